// Package timeq is a queue of values due at given times: a binary min-heap
// ordered by time, ties in the order they were pushed, so that whatever
// drains it does so deterministically. The checker's hold ends, the udp
// environment's callbacks and its delayed datagrams all use it. (The
// simulator's event queue is a separate, tuned structure: it is the hot
// path.)
package timeq

type item[T any] struct {
	t   int64
	seq uint64
	v   T
}

// Queue is a time-ordered queue of T. The zero value is empty and ready.
type Queue[T any] struct {
	a   []item[T]
	seq uint64
}

// Len is the number of queued values.
func (q *Queue[T]) Len() int { return len(q.a) }

// Grow makes room for n more values without reallocating.
func (q *Queue[T]) Grow(n int) {
	if n > cap(q.a)-len(q.a) {
		a := make([]item[T], len(q.a), len(q.a)+n)
		copy(a, q.a)
		q.a = a
	}
}

// Next returns the earliest due time; ok is false when the queue is empty.
func (q *Queue[T]) Next() (t int64, ok bool) {
	if len(q.a) == 0 {
		return 0, false
	}
	return q.a[0].t, true
}

// Peek returns the earliest value and its time. The queue must not be empty.
func (q *Queue[T]) Peek() (int64, T) { return q.a[0].t, q.a[0].v }

func (q *Queue[T]) less(i, j int) bool {
	a, b := &q.a[i], &q.a[j]
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// Push queues v due at t.
func (q *Queue[T]) Push(t int64, v T) {
	q.seq++
	q.a = append(q.a, item[T]{t: t, seq: q.seq, v: v})
	i := len(q.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.a[i], q.a[p] = q.a[p], q.a[i]
		i = p
	}
}

// Pop removes and returns the earliest value and its time. The queue must
// not be empty.
func (q *Queue[T]) Pop() (int64, T) {
	top := q.a[0]
	n := len(q.a) - 1
	q.a[0] = q.a[n]
	q.a[n] = item[T]{} // let the garbage collector have what v points to
	q.a = q.a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.a[i], q.a[m] = q.a[m], q.a[i]
		i = m
	}
	return top.t, top.v
}

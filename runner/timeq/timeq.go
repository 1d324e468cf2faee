// Package timeq is a queue of values due at given times: a min-heap
// ordered by time, ties in the order they were pushed, so that whatever
// drains it does so deterministically. The simulator's events, the
// checker's hold ends, the udp environment's callbacks and its delayed
// datagrams all use it.
//
// The heap is 4-ary: half the depth of a binary heap, and a node's
// children share cache lines, which matters to the simulator with
// millions of pending events. Sifting moves a hole rather than swapping.
package timeq

// arity is the number of children of a heap node.
const arity = 4

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

func before[T any](a, b *item[T]) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// Push queues v due at t.
func (q *Queue[T]) Push(t int64, v T) {
	q.seq++
	e := item[T]{t: t, seq: q.seq, v: v}
	a := append(q.a, e)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !before(&e, &a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = e
	q.a = a
}

// Pop removes and returns the earliest value and its time. The queue must
// not be empty.
func (q *Queue[T]) Pop() (int64, T) {
	a := q.a
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a[n] = item[T]{} // let the garbage collector have what v points to
	a = a[:n]
	i := 0
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+arity, n); j++ {
			if before(&a[j], &a[m]) {
				m = j
			}
		}
		if !before(&a[m], &last) {
			break
		}
		a[i] = a[m]
		i = m
	}
	if n > 0 {
		a[i] = last
	}
	q.a = a
	return top.t, top.v
}

// Reset empties the queue and keeps its memory; it then behaves as a new
// queue (ties are again broken in push order from the first push on).
func (q *Queue[T]) Reset() {
	clear(q.a) // let the garbage collector have what values point to
	q.a = q.a[:0]
	q.seq = 0
}

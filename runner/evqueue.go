package runner

import "math"

// evQueue is the simulator's pending-event queue, ordered by (t, seq). It
// is a two-tier calendar: events in the current time bucket (2^bucketShift
// ns wide) live in a 4-ary heap; later ones are appended, unsorted, to
// their bucket and enter the heap only when time reaches that bucket. At a
// million leases most pending events are timers far in the future
// (response timeouts, lease expiries) that are replaced or never fire
// before the run ends; keeping them out of the heap keeps it small and
// cache-resident.
type evQueue struct {
	near    eventHeap
	cur     int64 // bucket key of the near heap; events of later buckets wait in far
	far     map[int64]int32
	buckets [][]simEvent
	free    []int32
	keys    keyHeap
	n       int
}

// bucketShift: buckets of 2^14 ns (about 16 µs): a LAN round trip spans a
// few dozen of them, so the heap holds a small slice of what is in flight.
const bucketShift = 14

func (q *evQueue) Len() int { return q.n }

func (q *evQueue) push(e simEvent) {
	q.n++
	k := e.t >> bucketShift
	if k <= q.cur {
		q.near.push(e)
		return
	}
	if q.far == nil {
		q.far = make(map[int64]int32)
	}
	b, ok := q.far[k]
	if !ok {
		if f := len(q.free); f > 0 {
			b = q.free[f-1]
			q.free = q.free[:f-1]
		} else {
			q.buckets = append(q.buckets, nil)
			b = int32(len(q.buckets) - 1)
		}
		q.far[k] = b
		q.keys.push(k)
	}
	q.buckets[b] = append(q.buckets[b], e)
}

// fill moves the next bucket into the heap while the heap is empty.
func (q *evQueue) fill() {
	for len(q.near) == 0 && len(q.keys) > 0 {
		k := q.keys.pop()
		b := q.far[k]
		delete(q.far, k)
		q.cur = k
		for _, e := range q.buckets[b] {
			q.near.push(e)
		}
		q.buckets[b] = q.buckets[b][:0]
		q.free = append(q.free, b)
	}
}

// peek returns the earliest event's time (MaxInt64 if none).
func (q *evQueue) peek() int64 {
	q.fill()
	if len(q.near) == 0 {
		return math.MaxInt64
	}
	return q.near[0].t
}

// pop removes the earliest event; the queue must not be empty.
func (q *evQueue) pop() simEvent {
	q.fill()
	q.n--
	return q.near.pop()
}

// keyHeap is a binary min-heap of bucket keys.
type keyHeap []int64

func (h *keyHeap) push(k int64) {
	a := append(*h, k)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p] <= k {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = k
	*h = a
}

func (h *keyHeap) pop() int64 {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && a[c+1] < a[c] {
			c++
		}
		if a[c] >= last {
			break
		}
		a[i] = a[c]
		i = c
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

package sim

import (
	"math"

	"leaselab/runner/internal/slab"
	"leaselab/runner/timeq"
)

// evQueue is the simulator's pending-event queue, ordered by (time,
// scheduling order). It is a two-tier calendar: events in the current
// time bucket (2^bucketShift ns wide) live in a heap (timeq, whose ties go
// in push order); later ones are appended, in scheduling order, to
// their bucket and enter the heap only when time reaches that bucket. At a
// million leases most pending events are timers far in the future
// (response timeouts, lease expiries) that are replaced or never fire
// before the run ends; keeping them out of the heap keeps it small and
// cache-resident.
//
// The heap's push order is the scheduling order of the events in it: a
// bucket enters the heap only when the heap is empty, in the order its
// events were scheduled, and every event pushed directly afterwards was
// scheduled later.
type evQueue struct {
	near    timeq.Queue[simEvent]
	cur     int64 // bucket key of the near heap; events of later buckets wait in far
	far     map[int64]int32
	buckets slab.Slab[[]timedEvent] // a freed bucket keeps its capacity
	keys    timeq.Queue[int32]      // bucket keys (as times) and their bucket
	n       int
	// warm, if set, is shown each bucket as it enters the heap (see
	// sim.warm).
	warm func([]timedEvent)
}

// bucketShift: buckets of 2^14 ns (about 16 µs): a LAN round trip spans a
// few dozen of them, so the heap holds a small slice of what is in flight.
const bucketShift = 14

func (q *evQueue) Len() int { return q.n }

func (q *evQueue) push(e timedEvent) {
	q.n++
	k := e.t >> bucketShift
	if k <= q.cur {
		q.near.Push(e.t, e.simEvent)
		return
	}
	if q.far == nil {
		q.far = make(map[int64]int32)
	}
	b, ok := q.far[k]
	if !ok {
		b = q.buckets.Alloc()
		q.far[k] = b
		q.keys.Push(k, b)
	}
	bk := q.buckets.At(b)
	*bk = append(*bk, e)
}

// fill moves the next bucket into the heap while the heap is empty.
func (q *evQueue) fill() {
	for q.near.Len() == 0 && q.keys.Len() > 0 {
		k, b := q.keys.Pop()
		delete(q.far, k)
		q.cur = k
		bk := q.buckets.At(b)
		if q.warm != nil {
			q.warm(*bk)
		}
		for _, e := range *bk {
			q.near.Push(e.t, e.simEvent)
		}
		*bk = (*bk)[:0]
		q.buckets.Free(b)
	}
}

// peek returns the earliest event's time (MaxInt64 if none).
func (q *evQueue) peek() int64 {
	q.fill()
	t, ok := q.near.Next()
	if !ok {
		return math.MaxInt64
	}
	return t
}

// pop removes the earliest event; the queue must not be empty.
func (q *evQueue) pop() timedEvent {
	q.fill()
	q.n--
	t, e := q.near.Pop()
	return timedEvent{t, e}
}

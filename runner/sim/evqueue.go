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
	near timeq.Queue[simEvent]
	cur  int64 // bucket key of the near heap; later events wait in their bucket
	// The bucket of a key: within ringSize buckets of cur, in ring
	// (indexed by key mod ringSize: no hashing for the messages and
	// timers of the next 67 ms, most of the pushes); beyond, in far.
	ring    []ringEntry
	far     map[int64]int32
	buckets slab.Slab[[]timedEvent] // a freed bucket keeps its capacity
	keys    timeq.Queue[int32]      // bucket keys (as times) and their bucket
	// spare holds the emptied buckets of an earlier run (reset), given
	// to new buckets so that they need not grow again.
	spare [][]timedEvent
	n     int
	// warm, if set, is shown each bucket as it enters the heap (see
	// sim.warm).
	warm func([]timedEvent)
}

// bucketShift: buckets of 2^14 ns (about 16 µs): a LAN round trip spans a
// few dozen of them, so the heap holds a small slice of what is in flight.
const bucketShift = 14

const ringSize = 1 << 12

// ringEntry is a bucket of ring: key 0 means none (a key in ring is above
// cur, which is never negative).
type ringEntry struct {
	key int64
	b   int32
}

func (q *evQueue) Len() int { return q.n }

func (q *evQueue) push(e timedEvent) {
	q.n++
	k := e.t >> bucketShift
	if k <= q.cur {
		q.near.Push(e.t, e.simEvent)
		return
	}
	bk := q.buckets.At(q.bucket(k))
	*bk = append(*bk, e)
}

// bucket returns the bucket of key k (> q.cur), making one if k has none.
// Distinct keys in (cur, cur+ringSize) take distinct ring entries, and an
// entry's key is at or below cur once its bucket was taken, so an entry
// that does not hold k is free for it.
func (q *evQueue) bucket(k int64) int32 {
	if k-q.cur < ringSize {
		if q.ring == nil {
			q.ring = make([]ringEntry, ringSize)
		}
		e := &q.ring[k&(ringSize-1)]
		if e.key == k {
			return e.b
		}
		// k may have a bucket in far, made while it was further off.
		b, ok := q.far[k]
		if ok {
			delete(q.far, k)
		} else {
			b = q.newBucket(k)
		}
		*e = ringEntry{key: k, b: b}
		return b
	}
	if b, ok := q.far[k]; ok {
		return b
	}
	if q.far == nil {
		q.far = make(map[int64]int32)
	}
	b := q.newBucket(k)
	q.far[k] = b
	return b
}

func (q *evQueue) newBucket(k int64) int32 {
	b := q.buckets.Alloc()
	if bk := q.buckets.At(b); *bk == nil && len(q.spare) > 0 {
		*bk = q.spare[len(q.spare)-1]
		q.spare = q.spare[:len(q.spare)-1]
	}
	q.keys.Push(k, b)
	return b
}

// fill moves the next bucket into the heap while the heap is empty.
func (q *evQueue) fill() {
	for q.near.Len() == 0 && q.keys.Len() > 0 {
		k, b := q.keys.Pop()
		if q.ring != nil && q.ring[k&(ringSize-1)].key == k {
			q.ring[k&(ringSize-1)].key = 0
		} else {
			delete(q.far, k)
		}
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

// reset empties the queue and keeps its memory: its buckets go to spare.
// Bucket numbers never reach the order of events, so which spare a new
// bucket gets does not matter.
func (q *evQueue) reset() {
	q.near.Reset()
	q.keys.Reset()
	clear(q.ring)
	clear(q.far)
	for i := range q.buckets.Len() {
		if bk := q.buckets.At(int32(i)); cap(*bk) > 0 {
			q.spare = append(q.spare, (*bk)[:0])
		}
	}
	q.buckets.Reset()
	q.cur = 0
	q.n = 0
	q.warm = nil
}

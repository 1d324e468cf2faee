package sim

import (
	"cmp"
	"math"
	"slices"

	"leaselab/runner/internal/slab"
	"leaselab/runner/timeq"
)

// evQueue is the simulator's pending-event queue, ordered by (time,
// scheduling order). It is a two-tier calendar: events due after the
// current time bucket (2^bucketShift ns wide) are appended, in scheduling
// order, to their bucket; when time reaches a bucket, its events are
// sorted by time at once (a stable radix sort: ties stay in scheduling
// order) into the run, which is then read front to back. Events scheduled
// for the current bucket after that go to a small heap (timeq, whose ties
// go in push order). At a million leases most pending events are timers
// far in the future (response timeouts, lease expiries) that are
// replaced or never fire before the run ends; they wait in buckets and
// cost nothing until their time. A batch delivers thousands of messages
// per bucket, and one radix sort of them measured faster than heap
// operations on each.
//
// The order holds because a bucket is taken only when the run and the
// heap are both empty, and an event joins the end of the run only while
// the heap is empty: every event in the heap was scheduled after every
// event of the run, so of two due at the same time the run's goes first.
//
// Events scheduled for the instant being run (push's instant) wait in a
// FIFO of their own, nowQ: they come after every queued event of the same
// instant (those were scheduled earlier), so the FIFO keeps the order
// without heap operations (a node's messages to itself take this way).
type evQueue struct {
	// run is the bucket of cur, sorted by (time, scheduling order), and
	// head its next event; near holds the events scheduled for cur's
	// bucket after it was taken. tmp is the sort's buffer.
	run  []bucketEvent
	head int
	tmp  []bucketEvent
	near timeq.Queue[simEvent]
	cur  int64 // bucket key of the run and the heap; later events wait in their bucket
	// nowQ holds the events pushed for the instant being run, from
	// nowHead on.
	nowQ    []simEvent
	nowHead int
	// The bucket of a key: within ringSize buckets of cur, in ring
	// (indexed by key mod ringSize: no hashing for the messages and
	// timers of the next 67 ms, most of the pushes); beyond, in far.
	ring []ringEntry
	far  map[int64]int32
	// farHit remembers the far buckets pushed to last, by key mod
	// farHits: the timers a batch arms (grant lapses, response timeouts,
	// hold ends) go, thousands in a row, to the same few far buckets,
	// and a map lookup for each cost more than the append. An entry goes
	// when its key leaves far.
	farHit  [farHits]ringEntry
	buckets slab.Slab[[]bucketEvent] // a freed bucket keeps its capacity
	keys    timeq.Queue[int32]       // bucket keys (as times) and their bucket
	// spare holds the emptied buckets of an earlier run (reset) and the
	// memory that full buckets moved out of (regrow), for new and growing
	// buckets, so that a run on reused tables allocates none.
	spare [][]bucketEvent
	n     int
	// warm, if set, is shown each bucket as it is taken (see
	// sim.warm).
	warm func([]bucketEvent)
}

// bucketEvent is an event in a bucket (or the run): its time is its
// bucket's start plus off, so it takes 16 bytes where a timedEvent takes
// 24. A batch keeps tens of thousands of events in buckets (every message
// in flight, every timer armed), and the queue was the largest of the
// simulator's tables after the nodes' own: a third less of it to write,
// sort and read is a third less of it competing for the cache.
type bucketEvent struct {
	off uint16
	simEvent
}

// An offset within a bucket must fit bucketEvent.off.
const _ = uint16(1<<bucketShift - 1)

// at is e's true time, e being in the bucket of key k.
func (e *bucketEvent) at(k int64) int64 { return k<<bucketShift | int64(e.off) }

// inBucket is e as an event of its bucket.
func inBucket(e timedEvent) bucketEvent {
	return bucketEvent{uint16(e.t & (1<<bucketShift - 1)), e.simEvent}
}

// bucketShift: buckets of 2^14 ns (about 16 µs): a LAN round trip spans a
// few dozen of them, so a bucket holds a small slice of what is in flight.
const bucketShift = 14

const ringSize = 1 << 12

const farHits = 4

// ringEntry is a bucket of ring: key 0 means none (a key in ring is above
// cur, which is never negative).
type ringEntry struct {
	key int64
	b   int32
}

func (q *evQueue) Len() int { return q.n }

// push queues e. instant is the instant being run (-1 before the run
// starts): an event due at it joins the instant's FIFO.
func (q *evQueue) push(e timedEvent, instant int64) {
	q.n++
	if e.t == instant {
		q.nowQ = append(q.nowQ, e.simEvent)
		return
	}
	k := e.t >> bucketShift
	if k <= q.cur {
		// An event of the run's bucket due no earlier than the run's last
		// one, with the heap empty, goes at the end of the run, where it
		// is in order (the driver's thousands of requests at time 0 take
		// this way). An earlier bucket's (the queue may have taken a
		// bucket beyond the simulator's clock) goes to the heap.
		if q.near.Len() == 0 && k == q.cur {
			if q.head == len(q.run) {
				q.run, q.head = q.run[:0], 0
			}
			if b := inBucket(e); len(q.run) == 0 || b.off >= q.run[len(q.run)-1].off {
				q.run = append(q.run, b)
				return
			}
		}
		q.near.Push(e.t, e.simEvent)
		return
	}
	var b int32
	if e := q.ringAt(k); e != nil && e.key == k {
		b = e.b // the common case, without bucket's call
	} else {
		b = q.bucket(k)
	}
	bk := q.buckets.At(b)
	if len(*bk) == cap(*bk) {
		q.regrow(bk)
	}
	*bk = append(*bk, inBucket(e))
}

// regrow moves a full bucket to a spare at least twice its size (the
// smallest such, else the largest larger one), giving the bucket's own
// memory to spare; with none larger it grows the bucket to twice its
// size and keeps the old memory as a spare. A batch pushes tens of
// thousands of timers to one bucket (every hold end of the leases
// acquired in the same instant), which would otherwise double its way up
// on every run; new buckets take the smallest spares (newBucket), so the
// large ones wait for the buckets that grow into them, and the memory
// the queue holds stops growing after a run or two. (Giving new buckets
// the largest spares let small buckets take them: the large ones grew
// again on every run, 0.74 MB of allocation a run of the batch
// benchmark, and the memory held grew from run to run,
// TestEvQueueMemorySettles.) Growing is rare (a bucket's size doubles
// each time), so the scans cost little.
func (q *evQueue) regrow(bk *[]bucketEvent) {
	c := cap(*bk)
	fit, big := -1, -1
	for i := range q.spare {
		switch sc := cap(q.spare[i]); {
		case sc >= 2*c && (fit < 0 || sc < cap(q.spare[fit])):
			fit = i
		case sc > c && (big < 0 || sc > cap(q.spare[big])):
			big = i
		}
	}
	if fit < 0 {
		fit = big
	}
	if fit < 0 {
		grown := make([]bucketEvent, len(*bk), max(2*c, 64))
		copy(grown, *bk)
		if c > 0 {
			q.spare = append(q.spare, (*bk)[:0])
		}
		*bk = grown
		return
	}
	grown := append(q.spare[fit], *bk...)
	q.spare[fit] = (*bk)[:0]
	*bk = grown
}

// ringAt returns the ring entry of key k (> q.cur), or nil if k is not
// within ringSize of cur or the ring does not exist yet.
func (q *evQueue) ringAt(k int64) *ringEntry {
	if k-q.cur >= ringSize || q.ring == nil {
		return nil
	}
	return &q.ring[k&(ringSize-1)]
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
			q.unfar(k)
		} else {
			b = q.newBucket(k)
		}
		*e = ringEntry{key: k, b: b}
		return b
	}
	h := &q.farHit[k&(farHits-1)]
	if h.key == k {
		return h.b
	}
	b, ok := q.far[k]
	if !ok {
		if q.far == nil {
			q.far = make(map[int64]int32)
		}
		b = q.newBucket(k)
		q.far[k] = b
	}
	*h = ringEntry{key: k, b: b}
	return b
}

// unfar takes key k's bucket out of far.
func (q *evQueue) unfar(k int64) {
	delete(q.far, k)
	if h := &q.farHit[k&(farHits-1)]; h.key == k {
		*h = ringEntry{}
	}
}

func (q *evQueue) newBucket(k int64) int32 {
	b := q.buckets.Alloc()
	if bk := q.buckets.At(b); *bk == nil && len(q.spare) > 0 {
		j := 0
		for i := range q.spare {
			if cap(q.spare[i]) < cap(q.spare[j]) {
				j = i
			}
		}
		*bk = q.spare[j]
		last := len(q.spare) - 1
		q.spare[j] = q.spare[last]
		q.spare = q.spare[:last]
	}
	q.keys.Push(k, b)
	return b
}

// fill makes the next bucket the sorted run once the current one is used
// up (run and heap both empty). Callers check the run first (a call per
// event for nothing, most of the time, cost 7 calls a lease).
func (q *evQueue) fill() {
	for q.head == len(q.run) && q.near.Len() == 0 && q.keys.Len() > 0 {
		k, b := q.keys.Pop()
		if q.ring != nil && q.ring[k&(ringSize-1)].key == k {
			q.ring[k&(ringSize-1)].key = 0
		} else {
			q.unfar(k)
		}
		q.cur = k
		bk := q.buckets.At(b)
		if q.warm != nil {
			q.warm(*bk)
		}
		q.tmp = sortBucket(*bk, q.tmp)
		// The run and the bucket swap their memory.
		q.run, *bk = *bk, q.run[:0]
		q.head = 0
		q.buckets.Free(b)
	}
}

// sortBucket sorts a, the events of a bucket in scheduling order, by
// time, keeping that order among equal times: an LSD radix sort on their
// offsets, two stable counting passes through tmp (returned, grown to
// fit). Short buckets take an insertion sort.
func sortBucket(a, tmp []bucketEvent) []bucketEvent {
	if len(a) <= 32 {
		for i := 1; i < len(a); i++ {
			e := a[i]
			j := i
			for ; j > 0 && a[j-1].off > e.off; j-- {
				a[j] = a[j-1]
			}
			a[j] = e
		}
		return tmp
	}
	if cap(tmp) < len(a) {
		tmp = make([]bucketEvent, len(a), 2*len(a))
	}
	tmp = tmp[:len(a)]
	const digit = radixBits
	radixPass(tmp, a, 0, digit)
	radixPass(a, tmp, digit, digit)
	return tmp
}

// radixBits is the width of a radix digit: two digits cover a bucket.
const radixBits = (bucketShift + 1) / 2

// radixPass moves src to dst stably ordered by bits [shift, shift+width)
// of the offset.
func radixPass(dst, src []bucketEvent, shift, width uint) {
	var count [1 << radixBits]int32
	mask := uint16(1)<<width - 1
	for i := range src {
		count[src[i].off>>shift&mask]++
	}
	var sum int32
	for i := range count {
		c := count[i]
		count[i] = sum
		sum += c
	}
	for i := range src {
		d := src[i].off >> shift & mask
		dst[count[d]] = src[i]
		count[d]++
	}
}

// waitingNow reports whether events wait in the FIFO of the instant
// being run.
func (q *evQueue) waitingNow() bool { return q.nowHead < len(q.nowQ) }

// peek returns the earliest queued event's time (MaxInt64 if none); it
// does not look at the FIFO of the instant (waitingNow).
func (q *evQueue) peek() int64 {
	if q.head == len(q.run) {
		q.fill()
	}
	t, ok := q.near.Next()
	if q.head < len(q.run) {
		if r := q.run[q.head].at(q.cur); !ok || r <= t {
			return r
		}
	}
	if !ok {
		return math.MaxInt64
	}
	return t
}

// next removes and returns the next event in (time, scheduling order)
// order if it is due at or before lim (ok false otherwise, or if the
// queue is empty); instant is the instant being run, as for push, whose
// events are due whatever lim. Of the queued events and the instant's
// FIFO, the queued events due at the instant were scheduled first;
// nothing is queued before it. Of a run event and a heap event due at
// the same time, the run's was scheduled first: the heap only gets events
// scheduled after the run's bucket was taken. It is the simulator's one
// call per event, so it looks at the run and the heap once and takes the
// event in its own body.
func (q *evQueue) next(instant, lim int64) (timedEvent, bool) {
	if q.n == 0 {
		return timedEvent{}, false
	}
	if q.head == len(q.run) {
		q.fill()
	}
	t, ok := q.near.Next()
	var r *bucketEvent
	if q.head < len(q.run) {
		if at := q.run[q.head].at(q.cur); !ok || at <= t {
			t, ok, r = at, true, &q.run[q.head]
		}
	}
	if q.nowHead < len(q.nowQ) && (!ok || t != instant) {
		e := q.nowQ[q.nowHead]
		if q.nowHead++; q.nowHead == len(q.nowQ) {
			q.nowQ, q.nowHead = q.nowQ[:0], 0
		}
		q.n--
		return timedEvent{instant, e}, true
	}
	if !ok || t > lim && t != instant {
		return timedEvent{}, false
	}
	q.n--
	if r != nil {
		q.head++
		return timedEvent{t, r.simEvent}, true
	}
	t, e := q.near.Pop()
	return timedEvent{t, e}, true
}

// reset empties the queue and keeps its memory: its buckets go to spare.
// Bucket numbers never reach the order of events, so which spare a new
// bucket gets does not matter.
func (q *evQueue) reset() {
	q.near.Reset()
	q.nowQ, q.nowHead = q.nowQ[:0], 0
	q.run, q.head = q.run[:0], 0
	q.keys.Reset()
	clear(q.ring)
	clear(q.far)
	q.farHit = [farHits]ringEntry{}
	for i := range q.buckets.Len() {
		if bk := q.buckets.At(int32(i)); cap(*bk) > 0 {
			q.spare = append(q.spare, (*bk)[:0])
		}
	}
	// The largest spare goes to the run, which takes a batch's thousands
	// of requests at time 0; new buckets take the smallest (newBucket)
	// and grow into the larger ones (regrow). Slices that grew on their
	// way were most of the allocation of a batch run.
	if cap(q.run) > 0 {
		q.spare = append(q.spare, q.run[:0])
	}
	slices.SortFunc(q.spare, func(a, b []bucketEvent) int { return cmp.Compare(cap(a), cap(b)) })
	if k := len(q.spare) - 1; k >= 0 {
		q.run, q.spare = q.spare[k], q.spare[:k]
	}
	q.buckets.Reset()
	q.cur = 0
	q.n = 0
	q.warm = nil
}

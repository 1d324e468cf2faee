// Package checker is the lease-invariant checker: hold intervals in, in
// true time, overlaps out. It knows nothing of environments or meters.
//
// Two ways in, one judgement: Check takes finished intervals (resource,
// holder, start, end) and returns their overlaps, for intervals observed
// outside the runner; Checker takes the events of a run as they happen
// (Acquired, Lost, Crash, in true-time order), and is what the recorder
// (runner/record) feeds and observes. Check runs a Checker.
package checker

import (
	"math"
	"slices"
	"sync"

	"leaselab/algorithms"
	"leaselab/runner/internal/slab"
	"leaselab/runner/restable"
	"leaselab/runner/timeq"
)

// The lease-invariant checker.
//
// It records, in true time, every interval during which a node believes it
// holds the lease on a resource, and reports every stretch of true time in
// which two different owners believed so at once.
//
// A hold interval of owner n on resource r
//   - starts at the true instant n emitted Acquired for r while it held no
//     interval on r;
//   - is extended (or shortened) by every later Acquired of n on r while it
//     is open: the end becomes the new Until;
//   - ends at the earliest of: the first true instant n's own clock reads
//     the latest Until (Clocks.TrueAt), a Lost event of n on r, or n's crash.
//
// Intervals are half open, [start, end): an owner whose interval ends at t
// and another whose interval starts at t do not overlap.
//
// Overlaps are found when they begin (an interval starts while an interval
// of another owner is open) and measured when the first of the two ends.
// Interval ends are processed eagerly in true-time order (Advance), so
// callers must present events in non-decreasing true time.

// Violation is one breach of the lease invariant: two different owners
// believed they held Resource during the same stretch of true time.
type Violation struct {
	Resource  algorithms.ResourceID `json:"resource"`
	Owners    [2]algorithms.NodeID  `json:"owners"`
	Ballots   [2]algorithms.Ballot  `json:"ballots"`
	StartNS   int64                 `json:"start_ns"` // true time the overlap began
	OverlapNS int64                 `json:"overlap_ns"`
	Seed      uint64                `json:"seed"`
}

// Clocks maps a node's local clock readings to true time: the checker
// turns "held until my clock reads X" into a true instant with it.
type Clocks interface {
	// TrueAt returns the first true time at which node n's clock reads l
	// or more.
	TrueAt(n algorithms.NodeID, l algorithms.Local) int64
}

// HoldObserver is told about hold intervals as the checker sees them.
// The Recorder implements it (its meters, and the trace).
type HoldObserver interface {
	// HoldStart: owner began holding res at t; prev is the owner of the
	// previous interval on res (NoNode if none).
	HoldStart(t int64, res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, prev algorithms.NodeID, untilTrue int64)
	// HoldEnd: the interval [start, t) of owner on res ended.
	HoldEnd(t int64, res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, start int64)
	// ViolationBegins: the overlap described by v (OverlapNS not yet known)
	// began at t.
	ViolationBegins(t int64, v Violation)
}

type hold struct {
	res    algorithms.ResourceID
	ballot algorithms.Ballot
	start  int64
	end    int64 // tentative: the true instant the owner's clock reads until
	until  algorithms.Local
	gen    uint32
	owner  algorithms.NodeID
	live   bool
	next   int32 // next open hold on the same resource, -1 at the end
}

type chkRes struct {
	head int32 // first open hold, -1 if none
	last algorithms.NodeID
}

type pendingViolation struct {
	a, b int32 // hold indices; a began first
	v    Violation
}

// tables are the checker's tables that grow with the resources of a run.
// Release leaves them in tablePool for the next checker in the process,
// emptied (reused memory is already mapped; new tables of a batch cost
// page faults and zeroing on every run).
type tables struct {
	holds slab.Slab[hold]
	// idx maps a resource to its entry in res: the first open hold (a
	// list through hold.next) and the owner of the last interval.
	idx  restable.Table
	res  []chkRes
	ends timeq.Queue[holdEnd]
}

var tablePool sync.Pool // of *tables

// Release hands the checker's tables to the next checker in the process.
// The checker must not be used afterwards.
func (c *Checker) Release() {
	t := &tables{}
	*t = c.tables
	c.tables = tables{}
	t.holds.Reset()
	t.idx.Reset()
	t.res = t.res[:0]
	t.ends.Reset()
	tablePool.Put(t)
}

// Checker is the lease-invariant checker. The zero value is not usable;
// use NewChecker.
type Checker struct {
	clocks   Clocks
	seed     uint64
	observer HoldObserver
	now      int64
	// nextEnd is the earliest queued hold end, or less (0 until the first
	// Advance): Advance has nothing to end before it.
	nextEnd int64

	tables

	pending    []pendingViolation
	violations []Violation
	count      int // all violations; violations keeps at most maxViolations
	maxKept    int
	// paused: the intervals a process pause set aside (Pause), to be
	// opened again at the resume.
	paused []pausedHold
}

// pausedHold is an interval of a paused node, set aside.
type pausedHold struct {
	owner  algorithms.NodeID
	res    algorithms.ResourceID
	ballot algorithms.Ballot
	until  algorithms.Local
}

// maxViolations bounds the violations a Checker keeps in detail (all are
// counted).
const maxViolations = 100

// NewChecker returns a checker that converts local expiries with clocks and
// stamps violations with seed. observer may be nil.
func NewChecker(clocks Clocks, seed uint64, observer HoldObserver) *Checker {
	c := &Checker{
		clocks:   clocks,
		seed:     seed,
		observer: observer,
		maxKept:  maxViolations,
	}
	if t, ok := tablePool.Get().(*tables); ok {
		c.tables = *t
	}
	return c
}

// Reserve makes room for about n resources held at once.
func (c *Checker) Reserve(n int) {
	c.holds.Grow(n)
	c.res = slices.Grow(c.res, n)
	c.ends.Grow(n)
}

// Now is the latest true time the checker has seen.
func (c *Checker) Now() int64 { return c.now }

// Advance ends every interval whose end is at or before t, in true-time
// order. Every other method calls it first; environments call it directly
// before they ask questions about time t (e.g. Holders).
func (c *Checker) Advance(t int64) {
	// Every end at or before c.now is taken already, so one at or before
	// t is one at or before max(t, c.now).
	if c.nextEnd <= t {
		c.advance(t)
		return
	}
	if t > c.now {
		c.now = t // nothing ends by t (most calls): small enough to inline
	}
}

// advance is Advance once some interval ends by t.
func (c *Checker) advance(t int64) {
	if t < c.now {
		t = c.now
	}
	for {
		if due, ok := c.ends.Next(); !ok || due > t {
			break
		}
		_, top := c.ends.Pop()
		h := c.holds.At(top.idx)
		if !h.live || h.gen != top.gen {
			continue // extended, ended early, or reused since
		}
		c.close(top.idx, h.end)
	}
	c.now = t
	c.nextEnd = math.MaxInt64
	if due, ok := c.ends.Next(); ok {
		c.nextEnd = due
	}
}

// pushEnd queues a hold end (nextEnd follows the queue's earliest).
func (c *Checker) pushEnd(end int64, e holdEnd) {
	c.ends.Push(end, e)
	c.nextEnd = min(c.nextEnd, end)
}

// entry returns res's entry, creating it if need be.
func (c *Checker) entry(res algorithms.ResourceID) *chkRes {
	i, ok := c.idx.Get(res)
	if !ok {
		i = int32(len(c.res))
		c.res = append(c.res, chkRes{head: -1, last: algorithms.NoNode})
		c.idx.Put(res, i)
	}
	return &c.res[i]
}

// head returns the first open hold on res, or -1.
func (c *Checker) head(res algorithms.ResourceID) int32 {
	i, ok := c.idx.Get(res)
	if !ok {
		return -1
	}
	return c.res[i].head
}

// find returns the open hold of owner on res, or -1.
func (c *Checker) find(res algorithms.ResourceID, owner algorithms.NodeID) int32 {
	i := c.head(res)
	for i >= 0 {
		if h := c.holds.At(i); h.owner == owner {
			return i
		}
		i = c.holds.At(i).next
	}
	return -1
}

// Acquired records that owner emitted Acquired for res at true time t with
// ballot, holding until its clock reads until.
func (c *Checker) Acquired(t int64, owner algorithms.NodeID, res algorithms.ResourceID, ballot algorithms.Ballot, until algorithms.Local) {
	c.Advance(t)
	end := c.clocks.TrueAt(owner, until)
	if i := c.find(res, owner); i >= 0 {
		h := c.holds.At(i)
		h.ballot = ballot
		h.until = until
		if end <= t {
			// The new belief ends at once.
			c.close(i, t)
			return
		}
		h.end = end
		h.gen++
		c.pushEnd(end, holdEnd{idx: i, gen: h.gen})
		return
	}
	if end <= t {
		return // a hold that ends before it starts is no hold
	}
	i := c.holds.Alloc()
	h := c.holds.At(i)
	h.gen++
	gen := h.gen
	*h = hold{res: res, ballot: ballot, start: t, end: end, until: until, gen: gen, owner: owner, live: true, next: -1}
	// Every open hold of another owner overlaps from t on.
	e := c.entry(res)
	head := e.head
	if head >= 0 {
		for j := head; j >= 0; j = c.holds.At(j).next {
			o := c.holds.At(j)
			if o.owner == owner {
				continue
			}
			v := Violation{
				Resource: res,
				Owners:   [2]algorithms.NodeID{o.owner, owner},
				Ballots:  [2]algorithms.Ballot{o.ballot, ballot},
				StartNS:  t,
				Seed:     c.seed,
			}
			c.pending = append(c.pending, pendingViolation{a: j, b: i, v: v})
			if c.observer != nil {
				c.observer.ViolationBegins(t, v)
			}
		}
		c.holds.At(i).next = head
	}
	e.head = i
	prev := e.last
	e.last = owner
	c.pushEnd(end, holdEnd{idx: i, gen: gen})
	if c.observer != nil {
		c.observer.HoldStart(t, res, owner, ballot, prev, end)
	}
}

// Lost records that owner no longer believes it holds res (from t on).
func (c *Checker) Lost(t int64, owner algorithms.NodeID, res algorithms.ResourceID) {
	c.Advance(t)
	if i := c.find(res, owner); i >= 0 {
		c.close(i, t)
	}
}

// Crash ends every interval of node n at t.
func (c *Checker) Crash(t int64, n algorithms.NodeID) {
	c.Advance(t)
	k := 0
	for _, p := range c.paused {
		if p.owner != n {
			c.paused[k] = p
			k++
		}
	}
	c.paused = c.paused[:k]
	for i := range int32(c.holds.Len()) {
		if h := c.holds.At(i); h.live && h.owner == n {
			c.close(i, t)
		}
	}
}

// Pause ends node n's intervals at t because its process paused, and sets
// them aside: the invariant is about nodes that run, and a paused node
// acts on nothing (what it goes on believing is Recorder's double-belief
// meter's business). Resume opens again those whose end has not come.
func (c *Checker) Pause(t int64, n algorithms.NodeID) {
	c.Advance(t)
	for i := range int32(c.holds.Len()) {
		if h := c.holds.At(i); h.live && h.owner == n {
			c.paused = append(c.paused, pausedHold{owner: n, res: h.res, ballot: h.ballot, until: h.until})
			c.close(i, t)
		}
	}
}

// Resume opens again, from t, the intervals of node n that Pause set
// aside and whose end, on n's clock, has not come.
func (c *Checker) Resume(t int64, n algorithms.NodeID) {
	c.Advance(t)
	k := 0
	var back []pausedHold
	for _, p := range c.paused {
		if p.owner == n {
			back = append(back, p)
			continue
		}
		c.paused[k] = p
		k++
	}
	c.paused = c.paused[:k]
	for _, p := range back {
		c.Acquired(t, n, p.res, p.ballot, p.until)
	}
}

// Reclock recomputes the ends of n's open intervals after its clock was
// set (scenario files); an end now in the past ends the interval at t.
func (c *Checker) Reclock(t int64, n algorithms.NodeID) {
	c.Advance(t)
	for i := range c.holds.Len() {
		h := c.holds.At(int32(i))
		if !h.live || h.owner != n {
			continue
		}
		end := c.clocks.TrueAt(n, h.until)
		if end <= t {
			c.close(int32(i), t)
			continue
		}
		h.end = end
		h.gen++
		c.pushEnd(end, holdEnd{idx: int32(i), gen: h.gen})
	}
}

// close ends hold i at t: unlinks it, settles the violations it is part of
// and tells the observer.
func (c *Checker) close(i int32, t int64) {
	h := c.holds.At(i)
	// Unlink from the resource's open list.
	e := c.entry(h.res)
	if e.head == i {
		e.head = h.next
	} else {
		for j := e.head; j >= 0; j = c.holds.At(j).next {
			if o := c.holds.At(j); o.next == i {
				o.next = h.next
				break
			}
		}
	}
	// The first of two overlapping intervals to end ends the overlap.
	if len(c.pending) > 0 {
		k := 0
		for _, p := range c.pending {
			if p.a != i && p.b != i {
				c.pending[k] = p
				k++
				continue
			}
			p.v.OverlapNS = t - p.v.StartNS
			if p.v.OverlapNS > 0 {
				c.count++
				if len(c.violations) < c.maxKept {
					c.violations = append(c.violations, p.v)
				}
			}
		}
		c.pending = c.pending[:k]
	}
	h.live = false
	h.gen++
	h.next = -1
	c.holds.Free(i)
	if c.observer != nil {
		c.observer.HoldEnd(t, h.res, h.owner, h.ballot, h.start)
	}
}

// Finish ends every open interval at t (the end of the run) and settles
// every open overlap.
func (c *Checker) Finish(t int64) {
	c.Advance(t)
	for i := range int32(c.holds.Len()) {
		if c.holds.At(i).live {
			c.close(i, t)
		}
	}
}

// Violations returns the violations found so far (at most 100 in detail)
// and how many there were in all. An overlap still open is counted only
// once it ends (or at Finish).
func (c *Checker) Violations() ([]Violation, int) { return c.violations, c.count }

// OpenViolations is the number of overlaps that began and have not ended
// yet (not counted by Violations until they end).
func (c *Checker) OpenViolations() int { return len(c.pending) }

// OpenList returns the overlaps still open, in the order they began, each
// with its overlap so far (up to the checker's current time).
func (c *Checker) OpenList() []Violation {
	out := make([]Violation, len(c.pending))
	for i, p := range c.pending {
		out[i] = p.v
		out[i].OverlapNS = c.now - p.v.StartNS
	}
	return out
}

// Holders returns the owners that hold res at the checker's current time,
// in the order their intervals began (latest first).
func (c *Checker) Holders(res algorithms.ResourceID) []algorithms.NodeID {
	var out []algorithms.NodeID
	for i := c.head(res); i >= 0; i = c.holds.At(i).next {
		out = append(out, c.holds.At(i).owner)
	}
	return out
}

// Since returns the start of owner's open interval on res, if it has one
// at the checker's current time.
func (c *Checker) Since(res algorithms.ResourceID, owner algorithms.NodeID) (int64, bool) {
	if i := c.find(res, owner); i >= 0 {
		return c.holds.At(i).start, true
	}
	return 0, false
}

// HoldCount is the number of hold intervals open now.
func (c *Checker) HoldCount() int { return c.holds.InUse() }

// holdEnd is a due hold end: valid only while its hold's generation is
// still gen (lazy deletion: extending or ending a hold early just bumps
// the generation).
type holdEnd struct {
	idx int32
	gen uint32
}

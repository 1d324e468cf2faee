package explore

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// random runs seeded random walks (TLC's simulation mode, Stateright's
// simulation checker): walk i starts from a root and takes up to MaxDepth
// moves, each drawn uniformly from those enabled, all from the random
// source seeded with (Seed, i); a walk ends early where no move is left,
// beyond the pending bound, or at a violation. Walks run on the workers,
// each changing its own world in place (no branching, so no Clone). The
// visited set counts the distinct states the walks saw. The counterexample
// is the violating walk with the lowest number, so it does not depend on
// the number of workers; the counts may (walks beyond the violating one
// that had started finish).
func (c *config) random(ctx context.Context, st *stats) (Result, error) {
	var res Result
	seen := newFPSet()
	defer seen.free()
	mem := newMemGuard(c.maxMemory, seen)
	s := &randomRun{c: c, ctx: ctx, st: st, seen: seen, mem: mem, badWalk: -1, stuckWalk: -1, probeWalk: -1, lateWalk: -1, lastProg: time.Now()}
	s.limit.Store(1<<62 - 1)
	if c.Walks > 0 {
		s.limit.Store(int64(c.Walks) - 1)
	}
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.worker()
		}()
	}
	wg.Wait()
	if s.firstErr != nil {
		return res, s.firstErr
	}
	switch {
	case s.badWalk >= 0:
		s.stopped = StopViolation
	case s.stopped == "":
		s.stopped = StopWalks
	}
	res.Stopped, res.Walks, res.DoubleBelief = s.stopped, s.walks, s.belief
	mem.sample()
	res.PeakMemory, res.VisitedBytes = mem.peak.Load(), seen.bytes
	if s.badWalk >= 0 {
		if err := c.counterexample(&res, s.badRoot, s.badPath); err != nil {
			return res, err
		}
		res.countFirst()
	}
	stuck, probed, late := pathRef{-1, nil}, pathRef{-1, nil}, pathRef{-1, nil}
	if s.stuckWalk >= 0 {
		stuck = pathRef{s.stuckRoot, s.stuckPath}
	}
	if s.probeWalk >= 0 {
		probed = pathRef{s.probeRoot, s.probePath}
	}
	if s.lateWalk >= 0 {
		late = pathRef{s.lateRoot, s.latePath}
	}
	err := c.liveWitness(&res, stuck, probed, late)
	return res, err
}

// randomRun is the state the workers of a random search share: the walk
// numbers (nextWalk, limit: no walk beyond it starts, a violation's
// number once one is found) and, under mu, the visited set, st and the
// outcome. Its steps (worker, walk, record, poll) are apart so that the
// part each worker runs alone (walk) reads apart from the part under mu
// (record).
type randomRun struct {
	c    *config
	ctx  context.Context
	st   *stats
	seen *fpSet
	mem  *memGuard

	nextWalk atomic.Int64
	limit    atomic.Int64

	mu      sync.Mutex // seen, st and the fields below
	walks   int64
	stopped string
	badWalk int64 // -1: none
	badRoot int
	badPath []int32
	belief  int64 // fresh states of double belief (pauses)
	// stuckWalk: the lowest-numbered walk through a state stuck
	// (Liveness), -1: none; stuckPath the path to that state.
	stuckWalk int64
	stuckRoot int
	stuckPath []int32
	// probeWalk: the lowest-numbered walk whose probe left a request
	// pending, -1: none; probePath the path to the state it ran from.
	probeWalk int64
	probeRoot int
	probePath []int32
	// lateWalk: the lowest-numbered walk with a late answer, -1: none;
	// latePath the path to the first on it.
	lateWalk  int64
	lateRoot  int
	latePath  []int32
	firstErr  error
	lastProg  time.Time
	lastCheck int64
}

// walkBuf is a worker's record of its current walk, reused from walk to
// walk: the moves enabled (scratch), the moves taken, the fingerprint of
// every state on the walk, whether it is one of double belief, its
// liveness verdict (at rest, stuck) and the nodes that hold a lease in it
// (world.holders).
type walkBuf struct {
	ms    []move
	path  []int32
	fps   []fp
	bel   []bool
	rest  []bool
	stuck []bool
	held  []uint64
	// The walk's settle probe (Liveness): from the first state on it with
	// a request pending and no input left. probed: it ran; probeStuck:
	// the index of that state when a request stayed pending, else -1.
	px         *exec
	probed     bool
	probeStuck int
	// late: the moves that left a holder's Acquire unanswered (their
	// index in path; Liveness); asked: the moves that ran a client's
	// Acquire at a holder.
	late  []int
	asked int64
}

// worker takes walks by number until the limit, and records each.
func (s *randomRun) worker() {
	x := s.c.newExec()
	x.walk = true
	wb := walkBuf{px: s.c.newExec()}
	for {
		i := s.nextWalk.Add(1) - 1
		if i > s.limit.Load() {
			return
		}
		root, bad, err := s.walk(x, i, &wb)
		if err != nil {
			s.mu.Lock()
			if s.firstErr == nil {
				s.firstErr = err
			}
			s.stop(StopInterrupted)
			s.mu.Unlock()
			return
		}
		s.record(i, root, bad, &wb)
	}
}

// walk takes walk i on x, without the lock, into wb, and returns its root
// and whether it ended at a violation.
func (s *randomRun) walk(x *exec, i int64, wb *walkBuf) (root int, bad bool, err error) {
	c := s.c
	rng := rand.New(rand.NewPCG(c.Seed^0x9e3779b97f4a7c15, uint64(i)))
	root = rng.IntN(len(c.roots))
	w, err := c.root(x, root)
	if err != nil {
		return root, false, err
	}
	wb.path, wb.fps, wb.bel, wb.held = wb.path[:0], wb.fps[:0], wb.bel[:0], wb.held[:0]
	wb.rest, wb.stuck = wb.rest[:0], wb.stuck[:0]
	wb.probed, wb.probeStuck = false, -1
	wb.late, wb.asked = wb.late[:0], 0
	x.parent = nil
	wb.fps = append(wb.fps, x.fingerprint())
	wb.bel = append(wb.bel, false)
	wb.held = append(wb.held, w.holders())
	rest, stuck := c.verdict(w)
	wb.rest, wb.stuck = append(wb.rest, rest), append(wb.stuck, stuck)
	bad = w.bad
	for d := 0; d < c.MaxDepth && !bad; d++ {
		if c.MaxPending > 0 && len(w.pending) > c.MaxPending {
			break
		}
		if wb.ms = c.moves(w, wb.ms[:0]); len(wb.ms) == 0 {
			break
		}
		mi := rng.IntN(len(wb.ms))
		x.w = w
		x.apply(w, wb.ms[mi])
		if x.err != nil {
			return root, bad, x.err
		}
		if x.heldAsk {
			wb.asked++
		}
		if x.late {
			wb.late = append(wb.late, len(wb.path))
		}
		wb.path = append(wb.path, int32(mi))
		x.parent = nil
		wb.fps = append(wb.fps, x.fingerprint())
		overlap := w.overlaps() > 0
		bad = overlap || w.tokFail
		wb.bel = append(wb.bel, !overlap && len(w.paused) > 0 && w.doubleBelief())
		wb.held = append(wb.held, w.holders())
		rest, stuck := c.verdict(w)
		wb.rest, wb.stuck = append(wb.rest, rest), append(wb.stuck, stuck)
		if !wb.probed && c.probed(w) {
			// One probe a walk, where its clients are done: a walk's
			// states are not known fresh until it is recorded, and a
			// probe from each of them would cost a continuation a move.
			ran, stuck, err := c.probe(wb.px, w, nil)
			if err != nil {
				return root, bad, err
			}
			wb.probed = ran
			if stuck {
				wb.probeStuck = len(wb.path)
			}
		}
	}
	return root, bad, nil
}

// record adds walk i's states to the visited set and its violation, if
// it is the lowest-numbered so far, to the outcome, under the lock.
func (s *randomRun) record(i int64, root int, bad bool, wb *walkBuf) {
	c, st := s.c, s.st
	s.mu.Lock()
	defer s.mu.Unlock()
	s.walks++
	st.transitions += int64(len(wb.path))
	st.depth = max(st.depth, len(wb.path))
	for k, f := range wb.fps {
		if c.MaxStates > 0 && st.states >= c.MaxStates && !s.seen.contains(f) {
			s.stop(StopMaxStates)
			break
		}
		fresh, err := s.seen.insert(f)
		if err != nil {
			s.stop(StopMaxMemory)
			break
		}
		if fresh {
			st.states++
			st.hold(wb.held[k])
			if wb.bel[k] {
				s.belief++
			}
			st.judge(wb.rest[k], wb.stuck[k])
		}
		if wb.stuck[k] && (s.stuckWalk < 0 || i < s.stuckWalk) {
			s.stuckWalk, s.stuckRoot, s.stuckPath = i, root, append([]int32(nil), wb.path[:k]...)
		}
	}
	if wb.probed {
		st.probed++
	}
	st.late += int64(len(wb.late))
	st.heldAsks += wb.asked
	if len(wb.late) > 0 && (s.lateWalk < 0 || i < s.lateWalk) {
		s.lateWalk, s.lateRoot, s.latePath = i, root, append([]int32(nil), wb.path[:wb.late[0]+1]...)
	}
	if k := wb.probeStuck; k >= 0 {
		st.stuck++
		if s.probeWalk < 0 || i < s.probeWalk {
			s.probeWalk, s.probeRoot, s.probePath = i, root, append([]int32(nil), wb.path[:k]...)
		}
	}
	if bad && (s.badWalk < 0 || i < s.badWalk) {
		s.badWalk, s.badRoot, s.badPath = i, root, append([]int32(nil), wb.path...)
		if s.limit.Load() > i {
			s.limit.Store(i)
		}
	}
	s.poll()
}

// poll checks for Ctrl-C and the memory cap, and reports progress, every
// 64 walks (often enough to stop promptly, rarely enough to cost
// nothing); under the lock.
func (s *randomRun) poll() {
	if s.lastCheck++; s.lastCheck < 64 {
		return
	}
	s.lastCheck = 0
	if s.ctx.Err() != nil {
		s.stop(StopInterrupted)
	} else if s.mem.over() {
		s.stop(StopMaxMemory)
	}
	st := s.st
	if s.c.Progress != nil && time.Since(s.lastProg) > 2*time.Second {
		s.lastProg = time.Now()
		s.c.Progress(Progress{Depth: st.depth, States: st.states, StatesPerSec: float64(st.states) / time.Since(st.start).Seconds(), Memory: s.mem.last.Load(), Walks: s.walks})
	}
}

// stop ends the search (no further walk starts); the first reason given
// stands. Under the lock.
func (s *randomRun) stop(why string) {
	if s.stopped == "" {
		s.stopped = why
	}
	s.limit.Store(-1)
}

package explore

import (
	"context"
	"time"
)

// dfs runs the depth-first search: one goroutine, the visited set as in
// bfs, the current path as live worlds on a stack (one per depth, nodes
// shared with the parent where a move did not touch them). It stops at
// the first violation: its counterexample is the stack's path, not a
// shortest one. With MaxDepth each visited state's least depth is kept
// beside the visited set (dfsRun.least) and a state met again nearer the
// root is expanded again from there, so a depth-bounded search leaves out
// no state within its bound; it says stopped max-depth if a state at the
// bound had moves left.
func (c *config) dfs(ctx context.Context, st *stats) (Result, error) {
	var res Result
	seen := newFPSet()
	defer seen.free()
	mem := newMemGuard(c.maxMemory, seen)
	s := &dfsRun{c: c, ctx: ctx, st: st, seen: seen, mem: mem, x: c.newExec(),
		lastProg: time.Now(), badRoot: -1, beliefRoot: -1, stuckRoot: -1, probeRoot: -1, lateRoot: -1, px: c.newExec()}
	if c.MaxDepth > 0 {
		s.least = make(map[fp]uint16, 1<<16)
	}
	for i := range c.roots {
		if err := s.fromRoot(i); err != nil {
			return res, err
		}
		if s.stopped != "" {
			break
		}
	}
	if s.stopped == "" {
		s.stopped = StopExhausted
		if s.cut {
			s.stopped = StopMaxDepth
		}
	}
	res.Stopped = s.stopped
	mem.sample()
	res.PeakMemory, res.VisitedBytes = mem.peak.Load(), seen.bytes
	if s.badRoot >= 0 {
		if err := c.counterexample(&res, s.badRoot, s.badPath); err != nil {
			return res, err
		}
		res.countFirst()
	}
	res.DoubleBelief = s.belief
	if s.beliefRoot >= 0 {
		sc, err := c.beliefWitness(s.beliefRoot, s.beliefPath)
		if err != nil {
			return res, err
		}
		res.BeliefScenario, res.BeliefDepth = sc, len(s.beliefPath)
	}
	err := c.liveWitness(&res, pathRef{s.stuckRoot, s.stuckPath}, pathRef{s.probeRoot, s.probePath}, pathRef{s.lateRoot, s.latePath})
	return res, err
}

// dfsRun is the state of one depth-first search, shared by its steps
// (fromRoot, step, admit, poll), which are apart so that each reads on
// its own. stopped is set, by the step that stops the search, exactly
// when the search is to stop.
type dfsRun struct {
	c     *config
	ctx   context.Context
	st    *stats
	seen  *fpSet
	mem   *memGuard
	x     *exec
	stack []dfsFrame
	sw    world // the successor being judged (cloned if it is pushed)
	cut   bool  // a state at MaxDepth had moves left unexplored
	// least: with MaxDepth, the least depth each visited state was
	// reached at (2+16 bytes and the map's overhead a state, in the Go
	// heap); nil without.
	least map[fp]uint16

	stopped             string
	lastProg            time.Time
	lastCheck           int
	badRoot, beliefRoot int // -1: none
	badPath, beliefPath []int32
	belief              int64
	stuckRoot           int // the first state stuck (Liveness), -1: none
	stuckPath           []int32
	probeRoot           int // the first state a probe left a request pending in, -1: none
	probePath           []int32
	lateRoot            int // the first late answer's path (Liveness), -1: none
	latePath            []int32
	px                  *exec // the settle probe's
}

// dfsFrame is one depth of the stack: a world, its moves (computed when
// first visited), the next one to try, and the move that led to it.
type dfsFrame struct {
	w    *world
	ms   []move
	next int
	mi   int32
}

// fromRoot searches depth first from initial state i until the stack is
// empty or the search stops.
func (s *dfsRun) fromRoot(i int) error {
	c, x := s.c, s.x
	w, err := c.root(x, i)
	if err != nil {
		return err
	}
	x.parent = nil
	f := x.fingerprint()
	if fresh, goOn := s.admit(f, w.holders()); !goOn || !fresh {
		return nil
	}
	if s.least != nil {
		s.least[f] = 0
	}
	if rest, stuck := c.verdict(w); rest {
		s.st.judge(rest, stuck)
		if stuck && s.stuckRoot < 0 {
			s.stuckRoot, s.stuckPath = i, nil
		}
	}
	if w.bad {
		s.badRoot, s.stopped = i, StopViolation
		return nil
	}
	if c.MaxPending > 0 && len(w.pending) > c.MaxPending {
		s.st.constrained++
		return nil
	}
	s.stack = append(s.stack[:0], dfsFrame{w: w})
	for len(s.stack) > 0 && s.stopped == "" {
		if err := s.step(i); err != nil {
			return err
		}
	}
	return nil
}

// step takes the top frame's next move (or pops the frame when none is
// left) and pushes the successor if it is new, within the bounds and
// not a violation.
func (s *dfsRun) step(i int) error {
	c, x, st := s.c, s.x, s.st
	top := &s.stack[len(s.stack)-1]
	d := len(s.stack) - 1
	if top.next == 0 && top.ms == nil {
		top.ms = c.moves(top.w, make([]move, 0, 16))
		if c.MaxDepth > 0 && d >= c.MaxDepth {
			if len(top.ms) > 0 {
				s.cut = true
			}
			top.ms = top.ms[:0]
		}
	}
	if top.next >= len(top.ms) {
		s.stack = s.stack[:len(s.stack)-1]
		return nil
	}
	mi := top.next
	top.next++
	p := top.w
	s.sw.copyFrom(p)
	x.w = &s.sw
	if !x.apply(p, top.ms[mi]) {
		return nil
	}
	if x.err != nil {
		return x.err
	}
	st.transitions++
	if x.heldAsk {
		st.heldAsks++
	}
	if x.late {
		st.late++
		if s.lateRoot < 0 {
			s.lateRoot, s.latePath = i, s.pathOf(int32(mi))
		}
	}
	bad := s.sw.overlaps() > 0 || s.sw.tokFail
	f := x.fingerprint()
	fresh, goOn := s.admit(f, s.sw.holders())
	if !goOn {
		return nil
	}
	if !s.nearer(f, fresh) {
		return nil
	}
	if !fresh {
		// Met before and judged then: expanded again from here.
		if c.MaxPending <= 0 || len(s.sw.pending) <= c.MaxPending {
			s.push(int32(mi))
		}
		return nil
	}
	if bad {
		s.badRoot, s.badPath, s.stopped = i, s.pathOf(int32(mi)), StopViolation
		return nil
	}
	if len(s.sw.paused) > 0 && s.sw.doubleBelief() {
		s.belief++
		if s.beliefRoot < 0 {
			s.beliefRoot, s.beliefPath = i, s.pathOf(int32(mi))
		}
	}
	if rest, stuck := c.verdict(&s.sw); rest {
		st.judge(rest, stuck)
		if stuck && s.stuckRoot < 0 {
			s.stuckRoot, s.stuckPath = i, s.pathOf(int32(mi))
		}
	}
	if c.probed(&s.sw) {
		ran, stuck, err := c.probe(s.px, &s.sw, nil)
		if err != nil {
			return err
		}
		if ran {
			st.probed++
		}
		if stuck {
			st.stuck++
			if s.probeRoot < 0 {
				s.probeRoot, s.probePath = i, s.pathOf(int32(mi))
			}
		}
	}
	if c.MaxPending > 0 && len(s.sw.pending) > c.MaxPending {
		st.constrained++
		return nil
	}
	s.push(int32(mi))
	return nil
}

// push puts the successor, reached by move mi, on the stack.
func (s *dfsRun) push(mi int32) {
	child := s.sw.clone()
	s.x.w = child
	s.x.fillNodeHashes() // x.parent and x.touched are still the move's
	s.stack = append(s.stack, dfsFrame{w: child, mi: mi})
	s.st.depth = max(s.st.depth, len(s.stack)-1)
	s.poll()
}

// nearer records the depth the successor f (fresh: never visited) is
// reached at now, one below the stack's top, and reports whether it is to
// be expanded: a fresh state always; a visited one only within a depth
// bound, when met nearer the root than ever before (a violation would
// have stopped the search when it was first met).
func (s *dfsRun) nearer(f fp, fresh bool) bool {
	if s.least == nil {
		return fresh
	}
	d := uint16(min(len(s.stack), 1<<16-1))
	if at, ok := s.least[f]; !fresh && (!ok || at <= d) {
		return false
	}
	s.least[f] = d
	return true
}

// admit judges a new state reached along the stack (held: the nodes that
// hold a lease in it, world.holders): fresh if it was not visited, goOn
// unless a bound stops the search (then stopped says which).
func (s *dfsRun) admit(f fp, held uint64) (fresh, goOn bool) {
	if s.c.MaxStates > 0 && s.st.states >= s.c.MaxStates && !s.seen.contains(f) {
		s.stopped = StopMaxStates
		return false, false
	}
	fresh, err := s.seen.insert(f)
	if err != nil {
		s.stopped = StopMaxMemory
		return false, false
	}
	if !fresh {
		return false, true
	}
	s.st.states++
	s.st.hold(held)
	return true, true
}

// pathOf is the moves from the root to the stack's top, then last.
func (s *dfsRun) pathOf(last int32) []int32 {
	p := make([]int32, 0, len(s.stack))
	for _, fr := range s.stack[1:] {
		p = append(p, fr.mi)
	}
	return append(p, last)
}

// poll checks for Ctrl-C and the memory cap, and reports progress, every
// 1024 states pushed (often enough to stop promptly, rarely enough to
// cost nothing).
func (s *dfsRun) poll() {
	if s.lastCheck++; s.lastCheck < 1024 {
		return
	}
	s.lastCheck = 0
	if s.ctx.Err() != nil {
		s.stopped = StopInterrupted
		return
	}
	if s.mem.over() {
		s.stopped = StopMaxMemory
		return
	}
	st := s.st
	if s.c.Progress != nil && time.Since(s.lastProg) > 2*time.Second {
		s.lastProg = time.Now()
		s.c.Progress(Progress{Depth: len(s.stack) - 1, States: st.states, StatesPerSec: float64(st.states) / time.Since(st.start).Seconds(), Memory: s.mem.last.Load()})
	}
}

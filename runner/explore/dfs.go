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
// beside the visited set (least) and a state met again nearer the root is
// expanded again from there, so a depth-bounded search leaves out no
// state within its bound; it says stopped max-depth if a state at the
// bound had moves left.
func (c *config) dfs(ctx context.Context, st *stats) (Result, error) {
	var res Result
	seen := newFPSet()
	defer seen.free()
	mem := newMemGuard(c.maxMemory, seen)
	seen.allow = mem.allow
	x := c.newExec()
	type frame struct {
		w    *world
		ms   []move
		next int
		mi   int32 // the move that led here
	}
	var stack []frame
	var sw world
	cut := false
	lastProg, lastCheck := time.Now(), 0
	stopped := ""
	var badRoot = -1
	var badPath []int32
	var belief int64
	beliefRoot := -1
	var beliefPath []int32
	// least: with MaxDepth, the least depth each visited state was
	// reached at (2+16 bytes and the map's overhead a state, in the Go
	// heap).
	var least map[fp]uint16
	if c.MaxDepth > 0 {
		least = make(map[fp]uint16, 1<<16)
	}

	// admit judges a new state reached along stack+mi; true if the search
	// goes on.
	admit := func(f fp) (fresh, goOn bool) {
		if c.MaxStates > 0 && st.states >= c.MaxStates && !seen.contains(f) {
			stopped = StopMaxStates
			return false, false
		}
		fresh, err := seen.insert(f)
		if err != nil {
			stopped = StopMaxMemory
			return false, false
		}
		if !fresh {
			return false, true
		}
		st.states++
		return true, true
	}
	pathOf := func(last int32) []int32 {
		p := make([]int32, 0, len(stack))
		for _, fr := range stack[1:] {
			p = append(p, fr.mi)
		}
		return append(p, last)
	}
roots:
	for i := range c.roots {
		w, err := c.root(x, i)
		if err != nil {
			return res, err
		}
		x.parent = nil
		f := x.fingerprint()
		fresh, goOn := admit(f)
		if !goOn {
			break
		}
		if !fresh {
			continue
		}
		if least != nil {
			least[f] = 0
		}
		if w.bad {
			badRoot, stopped = i, StopViolation
			break
		}
		if c.MaxPending > 0 && len(w.pending) > c.MaxPending {
			st.constrained++
			continue
		}
		stack = append(stack[:0], frame{w: w})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			d := len(stack) - 1
			if top.next == 0 && top.ms == nil {
				top.ms = c.moves(top.w, make([]move, 0, 16))
				if c.MaxDepth > 0 && d >= c.MaxDepth {
					if len(top.ms) > 0 {
						cut = true
					}
					top.ms = top.ms[:0]
				}
			}
			if top.next >= len(top.ms) {
				stack = stack[:len(stack)-1]
				continue
			}
			mi := top.next
			top.next++
			p := top.w
			sw.copyFrom(p)
			x.w = &sw
			if !x.apply(p, top.ms[mi]) {
				continue
			}
			if x.err != nil {
				return res, x.err
			}
			st.transitions++
			bad := sw.overlaps() > 0
			f := x.fingerprint()
			fresh, goOn := admit(f)
			if !goOn {
				break roots
			}
			nd := uint16(min(len(stack), 1<<16-1)) // the new state's depth
			if !fresh {
				// Met before, and judged then (a violation would have
				// stopped the search): expanded again only if now nearer
				// the root than ever, within a depth bound.
				if at, ok := least[f]; !ok || at <= nd {
					continue
				}
				least[f] = nd
				if c.MaxPending > 0 && len(sw.pending) > c.MaxPending {
					continue
				}
			} else if least != nil {
				least[f] = nd
			}
			if fresh && bad {
				badRoot, badPath, stopped = i, pathOf(int32(mi)), StopViolation
				break roots
			}
			if fresh && len(sw.paused) > 0 && sw.doubleBelief() {
				belief++
				if beliefRoot < 0 {
					beliefRoot, beliefPath = i, pathOf(int32(mi))
				}
			}
			if fresh && c.MaxPending > 0 && len(sw.pending) > c.MaxPending {
				st.constrained++
				continue
			}
			child := sw.clone()
			x.w = child
			x.fillNodeHashes() // x.parent and x.touched are still the move's
			stack = append(stack, frame{w: child, mi: int32(mi)})
			st.depth = max(st.depth, len(stack)-1)
			if lastCheck++; lastCheck >= 1024 {
				lastCheck = 0
				if ctx.Err() != nil {
					stopped = StopInterrupted
					break roots
				}
				if mem.over() {
					stopped = StopMaxMemory
					break roots
				}
				if c.Progress != nil && time.Since(lastProg) > 2*time.Second {
					lastProg = time.Now()
					c.Progress(Progress{Depth: len(stack) - 1, States: st.states, StatesPerSec: float64(st.states) / time.Since(st.start).Seconds(), Memory: mem.last.Load()})
				}
			}
		}
	}
	if stopped == "" {
		stopped = StopExhausted
		if cut {
			stopped = StopMaxDepth
		}
	}
	res.Stopped = stopped
	mem.sample()
	res.PeakMemory, res.VisitedBytes = mem.peak.Load(), seen.bytes
	if badRoot >= 0 {
		res.Violations = 1
		sc, v, d, err := c.counterexample(badRoot, badPath)
		if err != nil {
			return res, err
		}
		res.Scenario, res.First, res.CounterexampleDepth = sc, v, d
	}
	res.DoubleBelief = belief
	if beliefRoot >= 0 {
		sc, err := c.beliefWitness(beliefRoot, beliefPath)
		if err != nil {
			return res, err
		}
		res.BeliefScenario, res.BeliefDepth = sc, len(beliefPath)
	}
	return res, nil
}

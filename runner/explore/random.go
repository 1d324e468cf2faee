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
	seen.allow = mem.allow
	var (
		mu                  sync.Mutex // seen, st, the outcome
		nextWalk            atomic.Int64
		limit               atomic.Int64 // no walk beyond it starts (a violation's number)
		walks               int64
		stopped             string
		badWalk             int64 = -1
		badRoot             int
		badPath             []int32
		belief              int64 // fresh states of double belief (pauses)
		firstErr            error
		lastProg, lastCheck = time.Now(), int64(0)
	)
	limit.Store(1<<62 - 1)
	if c.Walks > 0 {
		limit.Store(int64(c.Walks) - 1)
	}
	stop := func(why string) {
		if stopped == "" {
			stopped = why
		}
		limit.Store(-1)
	}
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := c.newExec()
			x.walk = true
			var ms []move
			var path []int32
			var fps []fp
			var bel []bool
			for {
				i := nextWalk.Add(1) - 1
				if i > limit.Load() {
					return
				}
				rng := rand.New(rand.NewPCG(c.Seed^0x9e3779b97f4a7c15, uint64(i)))
				root := rng.IntN(len(c.roots))
				w, err := c.root(x, root)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					stop(StopInterrupted)
					mu.Unlock()
					return
				}
				path, fps, bel = path[:0], fps[:0], bel[:0]
				x.parent = nil
				fps = append(fps, x.fingerprint())
				bel = append(bel, false)
				bad := w.bad
				for d := 0; d < c.MaxDepth && !bad; d++ {
					if c.MaxPending > 0 && len(w.pending) > c.MaxPending {
						break
					}
					if ms = c.moves(w, ms[:0]); len(ms) == 0 {
						break
					}
					mi := rng.IntN(len(ms))
					x.w = w
					x.apply(w, ms[mi])
					if x.err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = x.err
						}
						stop(StopInterrupted)
						mu.Unlock()
						return
					}
					path = append(path, int32(mi))
					x.parent = nil
					fps = append(fps, x.fingerprint())
					bad = w.overlaps() > 0
					bel = append(bel, !bad && len(w.paused) > 0 && w.doubleBelief())
				}
				mu.Lock()
				walks++
				st.transitions += int64(len(path))
				st.depth = max(st.depth, len(path))
				for k, f := range fps {
					if c.MaxStates > 0 && st.states >= c.MaxStates && !seen.contains(f) {
						stop(StopMaxStates)
						break
					}
					fresh, err := seen.insert(f)
					if err != nil {
						stop(StopMaxMemory)
						break
					}
					if fresh {
						st.states++
						if bel[k] {
							belief++
						}
					}
				}
				if bad && (badWalk < 0 || i < badWalk) {
					badWalk, badRoot, badPath = i, root, append([]int32(nil), path...)
					if limit.Load() > i {
						limit.Store(i)
					}
				}
				if lastCheck++; lastCheck >= 64 {
					lastCheck = 0
					if ctx.Err() != nil {
						stop(StopInterrupted)
					} else if mem.over() {
						stop(StopMaxMemory)
					}
					if c.Progress != nil && time.Since(lastProg) > 2*time.Second {
						lastProg = time.Now()
						c.Progress(Progress{Depth: st.depth, States: st.states, StatesPerSec: float64(st.states) / time.Since(st.start).Seconds(), Memory: mem.last.Load(), Walks: walks})
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	switch {
	case badWalk >= 0:
		stopped = StopViolation
	case stopped == "":
		stopped = StopWalks
	}
	res.Stopped, res.Walks, res.DoubleBelief = stopped, walks, belief
	mem.sample()
	res.PeakMemory, res.VisitedBytes = mem.peak.Load(), seen.bytes
	if badWalk >= 0 {
		res.Violations = 1
		sc, v, d, err := c.counterexample(badRoot, badPath)
		if err != nil {
			return res, err
		}
		res.Scenario, res.First, res.CounterexampleDepth = sc, v, d
	}
	return res, nil
}

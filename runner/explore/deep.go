package explore

import (
	"runtime/debug"
	"time"
)

// stopEvery is how many new states a depth-first search finds between two
// calls of Config.Stop (it has no levels to stop after).
const stopEvery = 1 << 12

// deep is a depth-first search (Config.DepthFirst): the same states and
// transitions as the breadth-first one, but it keeps only the path it is
// on and, for every state it has seen, the fingerprint and the least depth
// it was reached at (about 40 bytes a state, against a frontier state's
// kilobyte or more). It reaches depths the breadth-first search cannot
// hold in memory; its counterexample is the first violating path found,
// not a shortest one. A state met again at a lower depth is expanded
// again, so that a depth bound leaves out no state within it.
type deep struct {
	c      *config
	x      *exec
	seen   map[fp]uint16
	ws     []*world // scratch world per depth
	ms     [][]move // moves per depth
	path   []int32  // move indices from the root
	root   int
	found  []int32 // the violating path, nil if none
	hits   int
	cut    bool // a state at MaxDepth had moves left
	stop   bool // MaxStates or Stop ended the search
	deeper int  // deepest depth reached
	trans  int64
	constr int64
	err    error
	start  time.Time
	next   int64 // states at which Stop is asked next
}

func (c *config) runDeep() (Result, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	start := time.Now()
	cpu0 := cpuTime()
	res := Result{Algo: c.Algo, Ablate: append([]string{}, c.Ablate...), Acceptors: c.Acceptors, Proposers: c.Proposers,
		Clocks: c.Clocks, Workers: 1, InitStates: len(c.roots)}
	d := &deep{c: c, x: c.newExec(), seen: make(map[fp]uint16, 1<<16), start: start, next: stopEvery}
	for i := range c.roots {
		if d.found != nil || d.stop || d.err != nil {
			break
		}
		w, err := c.root(d.x, i)
		if err != nil {
			return res, err
		}
		d.x.parent = nil
		f := d.x.fingerprint()
		if _, dup := d.seen[f]; dup {
			continue
		}
		d.seen[f] = 0
		d.root = i
		if w.bad {
			d.found, d.hits = []int32{}, 1
			break
		}
		d.visit(w, 0)
	}
	if d.err != nil {
		return res, d.err
	}
	res.States = int64(len(d.seen))
	res.Transitions = d.trans
	res.Constrained = d.constr
	res.MaxDepth = d.deeper
	res.Exhausted = d.found == nil && !d.stop && !d.cut
	el := time.Since(start)
	res.WallMS = float64(el.Microseconds()) / 1000
	if el > 0 {
		res.StatesPerSec = float64(res.States) / el.Seconds()
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		res.CPUMS = float64(cpu.Microseconds()) / 1000
		res.StatesPerCPUSec = float64(res.States) / cpu.Seconds()
	}
	if d.found != nil {
		res.Violations = d.hits
		sc, v, n, err := c.pathScenario(d.root, d.found)
		if err != nil {
			return res, err
		}
		res.Scenario, res.First, res.CounterexampleDepth = sc, v, n
	}
	return res, nil
}

// visit expands p, at depth, depth first; it returns when a violation is
// found or the search is to stop.
func (d *deep) visit(p *world, depth int) {
	c, x := d.c, d.x
	if depth > d.deeper {
		d.deeper = depth
	}
	if len(d.ws) <= depth {
		d.ws = append(d.ws, &world{})
		d.ms = append(d.ms, nil)
	}
	ms := c.moves(p, d.ms[depth][:0])
	d.ms[depth] = ms
	if c.MaxDepth > 0 && depth >= c.MaxDepth {
		if len(ms) > 0 {
			d.cut = true
		}
		return
	}
	w := d.ws[depth]
	for mi := range ms {
		w.copyFrom(p)
		x.w = w
		if !x.apply(p, ms[mi]) {
			continue
		}
		if x.err != nil {
			d.err = x.err
			return
		}
		d.trans++
		f := x.fingerprint()
		if at, dup := d.seen[f]; dup && int(at) <= depth+1 {
			continue
		}
		if c.MaxStates > 0 && int64(len(d.seen)) >= c.MaxStates {
			d.stop = true
			return
		}
		d.seen[f] = uint16(min(depth+1, 1<<16-1))
		d.path = append(d.path[:depth], int32(mi))
		if overlaps(w.holds) > 0 {
			d.found, d.hits = append([]int32{}, d.path...), 1
			return
		}
		if n := int64(len(d.seen)); n >= d.next {
			d.next = n + stopEvery
			if c.Stop != nil {
				el := time.Since(d.start).Seconds()
				if c.Stop(Progress{Depth: d.deeper, States: n, StatesPerSec: float64(n) / max(el, 1e-9)}) {
					d.stop = true
					return
				}
			}
		}
		if c.MaxPending > 0 && len(w.pending) > c.MaxPending {
			d.constr++
			continue
		}
		x.fillNodeHashes()
		d.visit(w, depth+1)
		if d.found != nil || d.stop || d.err != nil {
			return
		}
		// The scratch world of this depth was a parent below: its node
		// hashes are its own again after the next copy.
	}
}

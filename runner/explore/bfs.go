package explore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// chunk is how many frontier states a worker takes at a time.
const chunk = 256

// cand is one transition's outcome: the successor's fingerprint, where it
// came from, and what the checker and the pending bound say of it.
type cand struct {
	f      fp
	parent uint32 // position of the parent in its level
	move   uint32
	bad    bool   // a violation or (Tokens) a token failure
	tok    bool   // bad by a token failure alone
	over   bool   // beyond the pending bound: judged, not expanded
	belief bool   // double belief (with pauses)
	rest   bool   // at rest (Liveness)
	stuck  bool   // at rest with a request unanswered
	late   bool   // the move left a holder's Acquire unanswered (a late answer)
	asked  bool   // the move ran a client's Acquire at a holder (judged for late)
	held   uint64 // the nodes that hold a lease (the checker's view; world.holders)
}

// badRef is a violating state of the level after the one expanded: its
// parent's position and the move, or (parent -1) the root it is.
type badRef struct {
	Parent int64  `json:"parent"`
	Move   uint32 `json:"move"`
	// Tok: a token failure alone, no violation (Tokens).
	Tok bool `json:"tok,omitempty"`
}

type chunkOut struct {
	cands []cand
	// probes: states of the chunk probed (Liveness); probeStuck the
	// positions in the level of those the probe left a request pending.
	probes     int64
	probeStuck []int64
	err        error
}

// bfsRun is a breadth-first search: the visited set in memory, the
// frontier and the tree of first discoveries on disk (levels).
type bfsRun struct {
	c    *config
	ctx  context.Context
	st   *stats
	dir  string
	lv   *levels
	seen *fpSet
	mem  *memGuard
	ws   []*bfsWorker

	depth     int   // the level being expanded
	nextChunk int64 // first chunk of it not yet committed
	bad       []badRef
	belief    int64   // double-belief states (with pauses)
	beliefAt  *badRef // the first, in level beliefLv+1
	beliefLv  int
	stuckAt   *badRef // the first state stuck (Liveness), in level stuckLv+1
	stuckLv   int
	// probeAt: the first state a probe left a request pending in
	// (Liveness; liveness.go), at position probeAt in level probeLv.
	probeAt  int64 // -1: none
	probeLv  int
	lateAt   *badRef // the first late answer (Liveness), in level lateLv+1
	lateLv   int
	stopped  string
	err      error // an I/O error that stopped the search
	resumed  bool
	saved    int // checkpoints written so far (names the visited file)
	lastProg time.Time
	lastMem  time.Time
}

// memCheckEvery is how often the search reads its resident size (the
// visited set asks before every growth in any case).
const memCheckEvery = 20 * time.Millisecond

// bfsWorker is one worker's scratch: an exec, a cursor that rebuilds
// frontier states, and a world to apply moves in.
type bfsWorker struct {
	x  *exec
	px *exec // the settle probe's (Liveness)
	cu *cursor
	sw world
	ms []move
}

// bfs runs the breadth-first search (package doc, "Search").
func (c *config) bfs(ctx context.Context, st *stats) (Result, error) {
	var res Result
	r := &bfsRun{c: c, ctx: ctx, st: st, seen: newFPSet(), lastProg: time.Now(), probeAt: -1}
	defer r.seen.free()
	r.mem = newMemGuard(c.maxMemory, r.seen)
	if c.Checkpoint != "" {
		r.dir = c.Checkpoint
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return res, fmt.Errorf("checkpoint: %w", err)
		}
		ok, err := r.resume()
		if err != nil {
			return res, err
		}
		r.resumed = ok
	} else {
		dir, err := os.MkdirTemp("", "leaselab-explore-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		r.dir = dir
	}
	if !r.resumed {
		lv, err := openLevels(r.dir, nil)
		if err != nil {
			return res, err
		}
		r.lv = lv
		if err := r.addRoots(); err != nil {
			return res, err
		}
	}
	defer r.lv.close()
	for range c.Workers {
		r.ws = append(r.ws, &bfsWorker{x: c.newExec(), px: c.newExec(), cu: newCursor(r.lv, c)})
	}
	if err := r.loop(); err != nil {
		return res, err
	}
	return r.result()
}

// addRoots fingerprints the initial states and writes the new ones as
// level 0 (or files them among the bad).
func (r *bfsRun) addRoots() error {
	c := r.c
	if err := r.lv.startLevel(0); err != nil {
		return err
	}
	x := c.newExec()
	for i := range c.roots {
		w, err := c.root(x, i)
		if err != nil {
			return err
		}
		x.parent = nil
		fresh, err := r.seen.insert(x.fingerprint())
		if err != nil {
			r.stopped = StopMaxMemory
			return nil
		}
		if !fresh {
			continue
		}
		r.st.states++
		r.st.hold(w.holders())
		rest, stuck := c.verdict(w)
		r.st.judge(rest, stuck)
		if stuck && r.stuckAt == nil {
			r.stuckAt, r.stuckLv = &badRef{Parent: -1, Move: uint32(i)}, -1
		}
		switch {
		case w.bad:
			r.bad = append(r.bad, badRef{Parent: -1, Move: uint32(i), Tok: w.overlaps() == 0})
		case c.MaxPending > 0 && len(w.pending) > c.MaxPending:
			r.st.constrained++
		default:
			if err := r.lv.add(entry{parent: noParent, move: uint32(i)}); err != nil {
				return err
			}
		}
	}
	return r.lv.flush()
}

// loop expands level after level until the search stops.
func (r *bfsRun) loop() error {
	c := r.c
	for r.stopped == "" {
		n := r.lv.sizes[r.depth]
		if len(r.bad) > 0 {
			r.stopped = StopViolation
			break
		}
		if n == 0 {
			r.stopped = StopExhausted
			break
		}
		if c.MaxDepth > 0 && r.depth >= c.MaxDepth {
			stuck, err := r.stuck(n)
			if err != nil {
				return err
			}
			r.stopped = StopMaxDepth
			if stuck {
				r.stopped = StopExhausted
			}
			break
		}
		if err := r.lv.startLevel(r.depth + 1); err != nil {
			return err
		}
		if err := r.level(n); err != nil {
			return err
		}
		if err := r.lv.flush(); err != nil {
			return err
		}
		if len(r.bad) > 0 {
			// The violating states are in level depth+1; their parents,
			// which the counterexample starts from, in level depth.
			r.st.depth = r.depth + 1
			r.stopped = StopViolation
		}
		if r.stopped != "" {
			break
		}
		r.depth++
		r.st.depth = r.depth
		r.nextChunk = 0
		r.progress(true)
	}
	return nil
}

// level expands level r.depth (n states) from r.nextChunk on: workers
// take chunks in order, rebuild their states and fingerprint every
// successor; the candidates are committed (deduplicated, admitted to the
// next level) in chunk order on this goroutine, so that what is kept,
// the next level's order and the first violation are the same for any
// number of workers.
func (r *bfsRun) level(n int64) error {
	nChunks := (n + chunk - 1) / chunk
	workers := len(r.ws)
	window := int64(4 * workers)
	type done struct {
		k   int64
		out chunkOut
	}
	// Workers take chunks from a queue as deep as the window, so that
	// none waits for this goroutine to hand it the next one (on a busy
	// machine that handoff waits for the system to schedule a thread).
	jobs := make(chan int64, window)
	dones := make(chan done, window)
	var wg sync.WaitGroup
	for _, wk := range r.ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				dones <- done{k, wk.expand(r, k, n)}
			}
		}()
	}
	results := map[int64]chunkOut{}
	next, commit := r.nextChunk, r.nextChunk
	inflight := 0
	stop := false
	var err error
	for {
		for !stop && next < nChunks && next-commit < window {
			jobs <- next
			next++
			inflight++
		}
		if inflight == 0 {
			break
		}
		d := <-dones
		inflight--
		results[d.k] = d.out
		for !stop {
			out, ok := results[commit]
			if !ok {
				break
			}
			delete(results, commit)
			if out.err != nil {
				err, stop = out.err, true
				break
			}
			if !r.commit(out, commit) {
				stop = true
				break
			}
			commit++
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		err = r.err
	}
	return err
}

// expand rebuilds the states of chunk k of the level and applies every
// move to each.
func (wk *bfsWorker) expand(r *bfsRun, k, n int64) chunkOut {
	c, x := r.c, wk.x
	var out chunkOut
	defer func() { x.scratch = false }()
	for i := k * chunk; i < min((k+1)*chunk, n); i++ {
		x.scratch = false // the cursor keeps what it builds
		p, err := wk.cu.state(x, r.depth, i)
		if err != nil {
			out.err = err
			return out
		}
		x.scratch = true // the successors are only fingerprinted
		if c.probed(p) {
			ran, stuck, err := c.probe(wk.px, p, nil)
			if err != nil {
				out.err = err
				return out
			}
			if ran {
				out.probes++
			}
			if stuck {
				out.probeStuck = append(out.probeStuck, i)
			}
		}
		wk.ms = c.moves(p, wk.ms[:0])
		for mi, m := range wk.ms {
			wk.sw.copyFrom(p)
			x.w = &wk.sw
			if !x.apply(p, m) {
				continue
			}
			if x.err != nil {
				out.err = x.err
				return out
			}
			overlap := wk.sw.overlaps() > 0
			bad := overlap || wk.sw.tokFail
			rest, stuck := c.verdict(&wk.sw)
			out.cands = append(out.cands, cand{f: x.fingerprint(), parent: uint32(i), move: uint32(mi),
				bad: bad, tok: bad && !overlap, over: c.MaxPending > 0 && len(wk.sw.pending) > c.MaxPending,
				belief: !bad && len(wk.sw.paused) > 0 && wk.sw.doubleBelief(), held: wk.sw.holders(),
				rest: rest, stuck: stuck, late: x.late, asked: x.heldAsk})
		}
	}
	return out
}

// commit deduplicates chunk k's candidates in order and admits the new
// ones; false stops the search (r.stopped says why). A chunk cut short
// (max-states, max-memory within it) is left as the next to expand: its
// candidates already admitted are then duplicates, so a resumed search
// admits exactly the rest.
func (r *bfsRun) commit(out chunkOut, k int64) bool {
	c, st := r.c, r.st
	for _, cd := range out.cands {
		if c.MaxStates > 0 && st.states >= c.MaxStates {
			if r.seen.contains(cd.f) {
				continue // a repeat: nothing new, nothing cut
			}
			r.stopped = StopMaxStates
			return false
		}
		fresh, err := r.seen.insert(cd.f)
		if err != nil {
			r.stopped = StopMaxMemory
			return false
		}
		if !fresh {
			continue
		}
		st.states++
		st.hold(cd.held)
		st.judge(cd.rest, cd.stuck)
		if cd.stuck && r.stuckAt == nil {
			r.stuckAt, r.stuckLv = &badRef{Parent: int64(cd.parent), Move: cd.move}, r.depth
		}
		if cd.belief {
			r.belief++
			if r.beliefAt == nil {
				r.beliefAt, r.beliefLv = &badRef{Parent: int64(cd.parent), Move: cd.move}, r.depth
			}
		}
		switch {
		case cd.bad:
			r.bad = append(r.bad, badRef{Parent: int64(cd.parent), Move: cd.move, Tok: cd.tok})
		case len(r.bad) > 0:
			// The search stops after this level: nothing of the next one
			// is expanded.
		case cd.over:
			st.constrained++
		default:
			if err := r.lv.add(entry{parent: cd.parent, move: cd.move}); err != nil {
				r.err = err
				return false
			}
		}
	}
	st.transitions += int64(len(out.cands))
	for _, cd := range out.cands {
		if cd.asked {
			st.heldAsks++
		}
		if cd.late {
			st.late++
			if r.lateAt == nil {
				r.lateAt, r.lateLv = &badRef{Parent: int64(cd.parent), Move: cd.move}, r.depth
			}
		}
	}
	// Counted once the chunk is committed whole (a chunk cut short is
	// expanded again, probes included, when the search resumes).
	st.probed += out.probes
	st.stuck += int64(len(out.probeStuck))
	if len(out.probeStuck) > 0 && r.probeAt < 0 {
		r.probeAt, r.probeLv = out.probeStuck[0], r.depth
	}
	r.nextChunk = k + 1
	if r.ctx.Err() != nil {
		r.stopped = StopInterrupted
		return false
	}
	if time.Since(r.lastMem) >= memCheckEvery {
		r.lastMem = time.Now()
		if r.mem.over() {
			r.stopped = StopMaxMemory
			return false
		}
	}
	r.progress(false)
	return true
}

// progress reports after a level (always) or every few seconds.
func (r *bfsRun) progress(levelDone bool) {
	c := r.c
	if c.Progress == nil || (!levelDone && time.Since(r.lastProg) < 2*time.Second) {
		return
	}
	r.lastProg = time.Now()
	el := (time.Since(r.st.start) + r.st.prevWall).Seconds()
	c.Progress(Progress{Depth: r.depth, States: r.st.states, Frontier: int(r.lv.sizes[r.depth]),
		StatesPerSec: float64(r.st.states) / el, Memory: r.mem.last.Load()})
}

// stuck reports whether no state of the level has a move left (so
// stopping at the depth bound left nothing out).
func (r *bfsRun) stuck(n int64) (bool, error) {
	x, cu := r.c.newExec(), newCursor(r.lv, r.c)
	var ms []move
	for i := range n {
		w, err := cu.state(x, r.depth, i)
		if err != nil {
			return false, err
		}
		if ms = r.c.moves(w, ms[:0]); len(ms) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// refPath is the path to the state b names: its parent's in level lv
// and its move, or (parent -1) the root it is.
func (r *bfsRun) refPath(lv int, b badRef) (int, []int32, error) {
	if b.Parent < 0 {
		return int(b.Move), nil, nil
	}
	root, path, err := r.lv.path(lv, b.Parent)
	if err != nil {
		return 0, nil, err
	}
	return root, append(path, int32(b.Move)), nil
}

// result builds the result, the counterexample and the checkpoint.
func (r *bfsRun) result() (Result, error) {
	c := r.c
	res := Result{Stopped: r.stopped, Resumed: r.resumed}
	// The first violation if there is one, else the first token failure.
	first, tok := -1, 0
	for i, b := range r.bad {
		if b.Tok {
			tok++
		} else if first < 0 {
			first = i
		}
	}
	if len(r.bad) > 0 {
		res.Stopped = StopViolation
		if first < 0 {
			res.Stopped, first = StopTokens, 0
		}
	}
	res.PeakMemory = r.mem.peak.Load()
	res.VisitedBytes = r.seen.bytes
	if len(r.bad) > 0 {
		res.Violations, res.TokenFailures = len(r.bad)-tok, tok
		root, path, err := r.refPath(r.depth, r.bad[first])
		if err != nil {
			return res, err
		}
		if err := c.counterexample(&res, root, path); err != nil {
			return res, err
		}
	}
	res.DoubleBelief = r.belief
	if b := r.beliefAt; b != nil {
		root, path, err := r.refPath(r.beliefLv, *b)
		if err != nil {
			return res, err
		}
		if res.BeliefScenario, err = c.beliefWitness(root, path); err != nil {
			return res, err
		}
		res.BeliefDepth = len(path)
	}
	stuck, probed, late := pathRef{-1, nil}, pathRef{-1, nil}, pathRef{-1, nil}
	var err error
	if b := r.stuckAt; b != nil {
		if stuck.root, stuck.path, err = r.refPath(r.stuckLv, *b); err != nil {
			return res, err
		}
	} else if r.probeAt >= 0 {
		if probed.root, probed.path, err = r.lv.path(r.probeLv, r.probeAt); err != nil {
			return res, err
		}
	} else if b := r.lateAt; b != nil {
		if late.root, late.path, err = r.refPath(r.lateLv, *b); err != nil {
			return res, err
		}
	}
	if err := c.liveWitness(&res, stuck, probed, late); err != nil {
		return res, err
	}
	if c.Checkpoint != "" {
		if err := r.save(res.Stopped); err != nil {
			return res, err
		}
		if res.Stopped != StopExhausted && res.Stopped != StopViolation {
			res.Checkpoint = c.Checkpoint
		}
	}
	return res, nil
}

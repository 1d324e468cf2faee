package record

import (
	"testing"

	"leaselab/algorithms"
	"leaselab/runner"
)

// TestStaticDeadlockEpisodes checks the static-deadlock meter (the
// episodes and their length that Result.StaticDeadlocks and
// StaticDeadlockMS report) on hand-made histories of one resource, with
// every node's clock at true time. Nodes 0..A-1 are the acceptors, 5 to 7
// proposers. An episode is a stretch in which someone wants the resource,
// nobody holds it, and so many acceptors keep live grants that fewer than
// a majority are open, unless the grants of the last held proposal are at
// a majority. It counts when an expiry, the proposers giving up, a crash
// or the end of the run ends it, not when a message does (a hold, a
// Cleared grant).
func TestStaticDeadlockEpisodes(t *testing.T) {
	const res algorithms.ResourceID = 9
	b1, b2, b3 := algorithms.MakeBallot(1, 0, 5), algorithms.MakeBallot(1, 0, 6), algorithms.MakeBallot(1, 0, 7)
	type step func(r *Recorder)
	at := func(tt int64, f func(r *Recorder, tt int64)) step {
		return func(r *Recorder) { r.Checker().Advance(tt); f(r, tt) }
	}
	want := func(tt int64, n algorithms.NodeID) step {
		return at(tt, func(r *Recorder, tt int64) {
			r.Request(tt, n, algorithms.Local(tt), algorithms.Input{Kind: algorithms.Acquire, Resource: res})
		})
	}
	event := func(tt int64, n algorithms.NodeID, ev algorithms.Event) step {
		return at(tt, func(r *Recorder, tt int64) { ev.Resource = res; r.EventRef(tt, n, algorithms.Local(tt), &ev) })
	}
	grant := func(tt int64, a, owner algorithms.NodeID, b algorithms.Ballot, until int64) step {
		return event(tt, a, algorithms.Event{Kind: algorithms.Granted, Owner: owner, Ballot: b, Until: algorithms.Local(until)})
	}
	split := []step{want(0, 5), grant(10, 0, 5, b1, 1000), grant(20, 1, 6, b2, 1100)} // open from 20
	cases := []struct {
		name      string
		acceptors int
		steps     []step
		end       int64
		episodes  int
		ns        int64
	}{
		{"split vote, ended by a lapse", 3, split, 2000, 1, 1000 - 20},
		{"split vote, open at the end", 3, split, 800, 1, 800 - 20},
		{"split vote, ended by a Cleared grant", 3, append(split[:3:3],
			event(500, 0, algorithms.Event{Kind: algorithms.Cleared, Owner: 5, Ballot: b1})), 2000, 0, 0},
		{"split vote, ended by an acceptor's crash", 3, append(split[:3:3],
			at(500, func(r *Recorder, tt int64) { r.Crash(tt, 1) })), 2000, 1, 500 - 20},
		{"split vote, ended by giving up", 3, append(split[:3:3],
			event(600, 5, algorithms.Event{Kind: algorithms.Failed})), 2000, 1, 600 - 20},
		{"nobody wants", 3, []step{grant(10, 0, 5, b1, 1000), grant(20, 1, 6, b2, 1100)}, 2000, 0, 0},
		{"one grant leaves a majority open", 3, []step{want(0, 5), grant(10, 0, 6, b2, 1000)}, 2000, 0, 0},
		{"a majority's grants before the hold, ended by the hold", 3, []step{
			want(0, 5), grant(10, 0, 5, b1, 1000), grant(20, 1, 5, b1, 1000),
			event(30, 5, algorithms.Event{Kind: algorithms.Acquired, Owner: 5, Ballot: b1, Until: 900}),
		}, 2000, 0, 0},
		{"a held proposal's grants are a lease, not a block", 3, []step{
			want(0, 5), grant(10, 0, 5, b1, 1000), grant(20, 1, 5, b1, 1000),
			event(30, 5, algorithms.Event{Kind: algorithms.Acquired, Owner: 5, Ballot: b1, Until: 900}),
			want(40, 6), // waits; after the hold ends at 900 the grants lapse at 1000
		}, 2000, 0, 0},
		{"five acceptors, three owners, ended by a lapse", 5, []step{
			want(0, 5), grant(10, 0, 5, b1, 1000), grant(20, 1, 6, b2, 1100), grant(30, 2, 7, b3, 1200),
		}, 2000, 1, 1000 - 30},
		{"five acceptors, a hold's grants lapse unevenly: an expiry opens one", 5, []step{
			want(0, 5), grant(10, 0, 5, b1, 1000), grant(10, 1, 5, b1, 1100), grant(10, 2, 5, b1, 1200),
			grant(10, 3, 6, b2, 1500),
			event(20, 5, algorithms.Event{Kind: algorithms.Acquired, Owner: 5, Ballot: b1, Until: 900}),
			want(30, 6),
			// The hold ends at 900; the held ballot's grants stay at a
			// majority until 1000; then three of five acceptors are
			// closed until a1's grant lapses at 1100.
		}, 2000, 1, 1100 - 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := runner.DefaultSpec()
			spec.Acceptors = c.acceptors
			r := NewRecorder(runner.Plan{Spec: spec, Algo: algorithms.Algorithm{GrantBlocks: true}}, IdentityClocks, nil)
			defer r.Release()
			for _, s := range c.steps {
				s(r)
			}
			r.Checker().Advance(c.end)
			if n, ns := r.StaticDeadlocks(c.end); n != c.episodes || ns != c.ns {
				t.Errorf("StaticDeadlocks(%d) = %d episodes, %d ns; want %d, %d", c.end, n, ns, c.episodes, c.ns)
			}
			res := r.Finish(c.end, false)
			if res.StaticDeadlocks != c.episodes || res.StaticDeadlockMS != float64(c.ns)/1e6 {
				t.Errorf("Finish: %d episodes, %g ms; want %d, %g", res.StaticDeadlocks, res.StaticDeadlockMS, c.episodes, float64(c.ns)/1e6)
			}
		})
	}
}

// An algorithm whose grants do not block (Algorithm.GrantBlocks false:
// PaxosLease's accepted proposals can be overwritten) has no static
// deadlocks, whatever its acceptors keep.
func TestStaticDeadlockOnlyWhereGrantsBlock(t *testing.T) {
	r := NewRecorder(runner.Plan{Spec: runner.DefaultSpec()}, IdentityClocks, nil)
	defer r.Release()
	r.Request(0, 5, 0, algorithms.Input{Kind: algorithms.Acquire, Resource: 1})
	for a, owner := range []algorithms.NodeID{5, 6} {
		ev := algorithms.Event{Kind: algorithms.Granted, Resource: 1, Owner: owner, Ballot: algorithms.MakeBallot(1, 0, owner), Until: 1000}
		r.EventRef(10, algorithms.NodeID(a), 10, &ev)
	}
	if n, ns := r.StaticDeadlocks(500); n != 0 || ns != 0 {
		t.Fatalf("StaticDeadlocks = %d, %d ns; want none", n, ns)
	}
}

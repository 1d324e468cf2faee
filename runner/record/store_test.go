package record

import (
	"testing"

	"leaselab/algorithms"
	"leaselab/runner"
)

// The protected store: a write whose lease ended is stale only after a
// later lease wrote; the fenced store rejects exactly the writes whose
// token is below the highest accepted; a write that carries the highest
// token another node wrote is a tie, under either store.
func TestStore(t *testing.T) {
	tok := func(b uint64) algorithms.Token { return algorithms.Token{Minor: b} }
	type write struct {
		at    int64
		n     algorithms.NodeID
		token algorithms.Token
		want  uint8
	}
	tests := []struct {
		name, store      string
		writes           []write
		stale, rej, ties int64
	}{
		{"plain: late write after a later lease's is stale", "plain",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(7), runner.WriteAccepted}, {70, 0, tok(5), runner.WriteStale}}, 1, 0, 0},
		{"plain: late write before any later lease's is not", "plain",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {55, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(7), runner.WriteAccepted}}, 0, 0, 0},
		{"fenced: the late write is rejected", "fenced",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(7), runner.WriteAccepted}, {70, 0, tok(5), runner.WriteRejected}}, 0, 1, 0},
		{"fenced: a token that did not grow rejects the later holder", "fenced",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(3), runner.WriteRejected}, {70, 0, tok(5), runner.WriteAccepted}}, 0, 1, 0},
		{"fenced: a token that did not grow lets the late write through", "fenced",
			[]write{{60, 1, tok(3), runner.WriteAccepted}, {70, 0, tok(5), runner.WriteStale}}, 1, 0, 0},
		{"fenced: a later holder with the earlier one's token is a tie", "fenced",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(5), runner.WriteAccepted}}, 0, 0, 1},
		{"plain: so is it without fencing", "plain",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {60, 1, tok(5), runner.WriteAccepted}, {70, 0, tok(5), runner.WriteStale}}, 1, 0, 1},
		{"fenced: a node's own writes are no tie", "fenced",
			[]write{{10, 0, tok(5), runner.WriteAccepted}, {20, 0, tok(5), runner.WriteAccepted}}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := runner.DefaultSpec()
			spec.Store = tc.store
			r := NewRecorder(runner.Plan{Spec: spec}, IdentityClocks, nil)
			// Node 0 holds r0 in [0, 50), node 1 from 60 on.
			r.Event(0, 0, 0, algorithms.Event{Kind: algorithms.Acquired, Resource: 0, Owner: 0, Until: 50, Token: tok(5)})
			starts := map[algorithms.NodeID]int64{0: 0}
			for _, w := range tc.writes {
				if w.n == 1 && w.at >= 60 {
					if _, ok := r.Since(w.at, 1, 0); !ok {
						r.Event(60, 1, 60, algorithms.Event{Kind: algorithms.Acquired, Resource: 0, Owner: 1, Until: 200, Token: w.token})
						starts[1] = 60
					}
				}
				if got := r.Write(w.at, w.n, 0, w.token, starts[w.n]); got != w.want {
					t.Errorf("write of n%d at %d: %s, want %s", w.n, w.at, runner.WriteOutcome(got), runner.WriteOutcome(w.want))
				}
			}
			writes, stale, rej, ties := r.StoreCounts()
			if writes != int64(len(tc.writes)) || stale != tc.stale || rej != tc.rej || ties != tc.ties {
				t.Errorf("counts %d %d %d %d, want %d %d %d %d", writes, stale, rej, ties, len(tc.writes), tc.stale, tc.rej, tc.ties)
			}
		})
	}
}

// Two nodes believe they hold while their intervals overlap, and a paused
// node goes on believing until it resumes.
func TestDoubleBelief(t *testing.T) {
	tests := []struct {
		name   string
		pause  bool
		resume int64
		want   float64 // ns
	}{
		{"no pause: the overlap", false, 0, 10},
		{"paused past its end: until the resume", true, 90, 30},
		{"resumed before its end: the overlap", true, 55, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder(runner.Plan{Spec: runner.DefaultSpec()}, IdentityClocks, nil)
			r.Event(0, 0, 0, algorithms.Event{Kind: algorithms.Acquired, Resource: 0, Owner: 0, Until: 70})
			if tc.pause {
				r.Pause(20, 0)
			}
			r.Event(60, 1, 60, algorithms.Event{Kind: algorithms.Acquired, Resource: 0, Owner: 1, Until: 200})
			if tc.pause {
				r.Resume(tc.resume, 0)
			}
			res := r.Finish(100, false)
			if got := res.DoubleBeliefMS * 1e6; got < tc.want-1e-6 || got > tc.want+1e-6 {
				t.Errorf("double belief %g ns, want %g", got, tc.want)
			}
		})
	}
}

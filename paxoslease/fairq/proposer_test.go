package fairq

import (
	"testing"

	"leaselab/algorithms"
)

// Every Acquire is answered (algorithms.Acquire): by the lease held, at
// once, even with an extension in flight; and, once the hold has ended
// on the node's clock (its timer still to fire), by the extension's
// outcome: Acquired if it wins, Failed if it fails.
func TestAcquireDuringExtensionIsAnswered(t *testing.T) {
	const r = algorithms.ResourceID(3)
	params := testParams()
	params.MaxRounds = 1
	extending := func() *Node {
		n := New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 2), Params: params, Rand: newRand()})
		b := algorithms.MakeBallot(2, 0, 1)
		n.props[r] = &proposal{phase: collecting, extend: true, holding: true, cur: algorithms.MakeBallot(3, 0, 1), curAt: 900,
			holdBallot: b, holdUntil: 1_000, reports: make([]algorithms.Ballot, 3)}
		return n
	}
	answers := func(out *algorithms.Output) (acquired, failed int) {
		for _, e := range out.Events {
			switch {
			case e.Resource != r:
			case e.Kind == algorithms.Acquired:
				acquired++
			case e.Kind == algorithms.Failed:
				failed++
			}
		}
		return acquired, failed
	}

	n := extending()
	var out algorithms.Output
	n.acquire(999, r, &out) // still held
	if a, f := answers(&out); a != 1 || f != 0 {
		t.Fatalf("asked while holding, an extension in flight: %d Acquired, %d Failed; want the hold at once", a, f)
	}

	n = extending()
	out.Reset()
	n.acquire(1_000, r, &out) // the hold is over on our clock
	if a, f := answers(&out); a+f != 0 || n.props[r] == nil || n.props[r].holding {
		t.Fatalf("asked after the hold: %d Acquired, %d Failed, proposal %+v; want no answer yet, the hold ended and the extension still under way", a, f, n.props[r])
	}
	out.Reset()
	n.failRound(1_000, r, n.props[r], &out) // the extension's last round fails
	if a, f := answers(&out); a != 0 || f != 1 {
		t.Fatalf("the extension failed: %d Acquired, %d Failed; want one Failed", a, f)
	}
}

package classicpaxos

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
)

func TestRegistered(t *testing.T) {
	a, err := algorithms.Lookup("classicpaxos")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Durable {
		t.Fatal("classicpaxos must be registered with Durable: true")
	}
	cl := algorithms.NewCluster(3, 3)
	p := algorithms.DefaultParams()
	if err := a.ValidateConfig(p, cl, algorithms.Ablations{"fsync"}); err != nil {
		t.Fatalf("fsync ablation: %v", err)
	}
	if err := a.ValidateConfig(p, cl, algorithms.Ablations{"restart-wait"}); err == nil {
		t.Fatal("classicpaxos accepted FaTLease's restart-wait ablation (it has no restart wait)")
	}
	p.DMax = p.LeaseSpan
	if err := a.ValidateConfig(p, cl, nil); err == nil {
		t.Fatal("v <= d_max accepted: leases are still clock-based")
	}
}

// A Prepare makes the acceptor answer with a Promise and, in the same
// Output, the record of that promise; under the fsync ablation the record
// is marked NoSync.
func TestPromiseCarriesRecord(t *testing.T) {
	a, _ := algorithms.Lookup("classicpaxos")
	for _, abl := range []algorithms.Ablations{nil, {"fsync"}} {
		n, err := a.New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 3), Params: algorithms.DefaultParams(),
			Ablations: abl, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		var out algorithms.Output
		n.Step(0, algorithms.Input{Kind: algorithms.Start}, &out)
		out.Reset()
		b := algorithms.MakeBallot(3, 0, 0)
		n.Step(algorithms.Local(time.Second), algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{
			Kind: algorithms.Prepare, From: 0, To: 1, Owner: 0, Resource: 9, Ballot: b, Instance: 1}}, &out)
		if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Promise {
			t.Fatalf("answer %v", out.Msgs)
		}
		want := algorithms.Record{Resource: 9, Instance: 1, Promised: b, Owner: algorithms.NoNode}
		if len(out.Persist) != 1 || out.Persist[0] != want {
			t.Fatalf("persist %+v, want %+v", out.Persist, want)
		}
		if out.NoSync != (abl != nil) {
			t.Fatalf("ablations %v: NoSync = %v", abl, out.NoSync)
		}
	}
}

// A node that is both proposer and acceptor may not count its own
// acceptor's vote before that vote is durable: the Prepare goes to itself
// as a message, and its Promise leaves only in an Output that carries the
// record (found by a single-acceptor run that took leases with no fsync).
func TestOwnAcceptorVoteWaitsForDisk(t *testing.T) {
	a, _ := algorithms.Lookup("classicpaxos")
	n, err := a.New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 1), Params: algorithms.DefaultParams(),
		Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	var out algorithms.Output
	n.Step(0, algorithms.Input{Kind: algorithms.Start}, &out)
	out.Reset()
	n.Step(1, algorithms.Input{Kind: algorithms.Acquire, Resource: 4}, &out)
	for _, e := range out.Events {
		if e.Kind == algorithms.Acquired {
			t.Fatal("acquired before its own acceptor's promise was on disk")
		}
	}
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Prepare || out.Msgs[0].To != 0 {
		t.Fatalf("want one Prepare to itself, got %v", out.Msgs)
	}
	prep := out.Msgs[0]
	out.Reset()
	n.Step(2, algorithms.Input{Kind: algorithms.Recv, Msg: prep}, &out)
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Promise || len(out.Persist) == 0 {
		t.Fatalf("the promise must leave with its record: msgs %v persist %v", out.Msgs, out.Persist)
	}
}

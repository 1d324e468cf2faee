package fatlease

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
)

// Tests of the engine with durable acceptors (classic Paxos).

func TestDurableEveryAnswerCarriesItsRecord(t *testing.T) {
	c := newNet(t, 3, 3, Options{Durable: true})
	c.acquire(0)
	c.input(1, algorithms.Acquire, res0)
	c.run(7*time.Second, 10*time.Millisecond)
	checked := 0
	for _, out := range c.outs {
		for _, m := range out.Msgs {
			if m.Kind != algorithms.Promise && m.Kind != algorithms.Accepted {
				continue
			}
			found := false
			for _, rc := range out.Persist {
				if rc.Resource == m.Resource && rc.Instance == m.Instance && rc.Promised == m.Ballot &&
					(m.Kind == algorithms.Promise || rc.Accepted == m.Ballot) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%v left without its record in the same output (persist %v)", m, out.Persist)
			}
			if out.NoSync {
				t.Fatalf("NoSync without the fsync ablation")
			}
			checked++
		}
	}
	if checked < 8 {
		t.Fatalf("only %d answers checked", checked)
	}
	// Diskless: nothing is ever persisted.
	d := newNet(t, 3, 3, Options{})
	d.acquire(0)
	for i := range d.nodes {
		if len(d.nodes[i].persist) != 0 {
			t.Fatalf("fatlease persisted %v", d.nodes[i].persist)
		}
	}
}

func TestDurableFsyncAblationMarksNoSync(t *testing.T) {
	c := newNet(t, 3, 3, Options{Durable: true}, AblateFsync)
	c.acquire(0)
	n := 0
	for _, out := range c.outs {
		if len(out.Persist) > 0 {
			n++
			if !out.NoSync {
				t.Fatalf("records without NoSync under the fsync ablation: %v", out.Persist)
			}
		}
	}
	if n == 0 {
		t.Fatal("nothing persisted")
	}
	if _, err := Algorithm().New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Ablations: algorithms.Ablations{AblateFsync}, Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Fatal("fsync ablation accepted without durable acceptors")
	}
}

func TestDurableRecoveryKeepsPromise(t *testing.T) {
	c := newNet(t, 3, 3, Options{Durable: true})
	high := algorithms.MakeBallot(50, 0, 2)
	low := algorithms.MakeBallot(10, 0, 1)
	prep := func(b algorithms.Ballot) algorithms.Message {
		return algorithms.Message{Kind: algorithms.Prepare, From: b.Node(), To: 0, Owner: b.Node(), Resource: res0, Ballot: b, Instance: 1}
	}
	c.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: prep(high)})
	c.crash(0)
	c.restart(0)
	if j := c.eventsOf(0, algorithms.Joined); len(j) != 1 || c.nodes[0].n.joining {
		t.Fatal("a durable node must rejoin at once")
	}
	out := c.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: prep(low)})
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.PrepareReject || out.Msgs[0].Promised != high {
		t.Fatalf("after recovery a lower prepare got %v, want a reject naming %s", out.Msgs, high)
	}
	// Without durable state (FaTLease, restart wait ablated) it is
	// forgotten: the same lower prepare is promised.
	d := newNet(t, 3, 3, Options{}, AblateRestartWait)
	d.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: prep(high)})
	d.crash(0)
	d.restart(0)
	out = d.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: prep(low)})
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Promise {
		t.Fatalf("diskless restart: got %v, want a promise", out.Msgs)
	}
}

func TestDurableRecoveryKeepsAcceptedLease(t *testing.T) {
	c := newNet(t, 3, 3, Options{Durable: true})
	c.acquire(0)
	// Acceptors 1 and 2 crash and come back at once; their accepted lease
	// of node 0 is recovered, so node 1 (now wanting the lease) adopts or
	// waits for it, and never holds while node 0 holds.
	for _, i := range []int{1, 2} {
		c.crash(i)
		c.restart(i)
	}
	c.input(1, algorithms.Acquire, res0)
	for c.now < 4*time.Second {
		c.deliverAll()
		c.advance(10 * time.Millisecond)
		if h := c.holders(res0); len(h) > 1 {
			t.Fatalf("two holders after durable recovery: %v", h)
		}
	}
	if !c.holding(0, res0) {
		t.Fatal("node 0 lost its lease")
	}
}

func TestDurableRestartedHolderDoesNotBelieve(t *testing.T) {
	c := newNet(t, 3, 3, Options{Durable: true})
	c.acquire(0)
	c.crash(0)
	c.restart(0)
	c.deliverAll()
	c.advance(100 * time.Millisecond)
	c.deliverAll()
	if len(c.eventsOf(0, algorithms.Acquired)) != 0 || c.holding(0, res0) {
		t.Fatal("the restarted holder believes it still holds")
	}
	if st, _, _, _ := c.nodes[0].n.Local(res0, c.local(0)); st != Unknown {
		t.Fatalf("restarted node's learner state %v, want unknown (learning is volatile)", st)
	}
}

func TestDurableRestartNeverHoldsAnEarlierLifesLease(t *testing.T) {
	// Node 0 holds, gives up, node 1 takes over in instance 2. Node 0
	// restarts (durable: it recovers instances 1 and 2) and wants the
	// lease: consulting instance 1, Paxos hands it back its own given-up
	// lease. It must not hold it: it no longer knows it gave it up.
	c := newNet(t, 3, 3, Options{Durable: true})
	c.acquire(0)
	c.input(1, algorithms.Acquire, res0)
	c.deliverAll()
	c.advance(time.Second)
	c.input(0, algorithms.Relinquish, res0)
	c.deliverAll()
	if !c.holding(1, res0) {
		t.Fatal("setup: node 1 did not take over")
	}
	c.crash(0)
	c.restart(0)
	c.input(0, algorithms.Acquire, res0)
	for c.now < 3*time.Second {
		c.deliverAll()
		c.advance(10 * time.Millisecond)
		if h := c.holders(res0); len(h) > 1 {
			t.Fatalf("two holders: %v", h)
		}
	}
}

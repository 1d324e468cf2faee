package fatlease

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res0 = algorithms.ResourceID(7)

func TestCheckParams(t *testing.T) {
	cl := algorithms.NewCluster(3, 3)
	p := testParams()
	if err := Validate(p, cl); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*algorithms.Params)
		want string
	}{
		{"v equal d_max", func(p *algorithms.Params) { p.DMax = p.LeaseSpan }, "v > d_max"},
		{"v below d_max", func(p *algorithms.Params) { p.DMax = 2 * p.LeaseSpan }, "v > d_max"},
		{"drift eats the lease", func(p *algorithms.Params) { p.Drift = 0.45 }, "drift bound"},
	} {
		q := testParams()
		tc.mod(&q)
		err := Validate(q, cl)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
		if _, err := Algorithm().New(algorithms.Config{Cluster: cl, Params: q, Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
			t.Errorf("%s: New accepted bad params", tc.name)
		}
	}
}

// CHECK_LOCAL_STATE around a learned lease (n0, t): the owner holds it
// valid until t, then outdated; any other node sees it valid until t -
// d_max, then in its safety period until t + d_max, then outdated. (A node
// waiting out the safety period: testdata/safety-period-wait.txt.)
func TestLocalStateValidSafetyOutdated(t *testing.T) {
	tExp := algorithms.Local(5 * time.Second)
	d := testParams().DMax
	node := func(id algorithms.NodeID) *Node {
		n := newSingle(t, id)
		var out algorithms.Output
		if !n.learn(0, res0, n.state(res0), 1, lease{owner: 0, t: tExp}, algorithms.MakeBallot(1, 0, 0), &out) {
			t.Fatalf("n%d did not learn the lease", id)
		}
		return n
	}
	owner, other := node(0), node(2)
	for _, tc := range []struct {
		at    algorithms.Local
		owner LocalState
		other LocalState
	}{
		{tExp.Add(-d - time.Millisecond), Valid, Valid},
		{tExp.Add(-d), Valid, Valid},
		{tExp.Add(-d + 1), Valid, Safety},
		{tExp - 1, Valid, Safety},
		{tExp, Outdated, Safety},
		{tExp.Add(d), Outdated, Safety},
		{tExp.Add(d + 1), Outdated, Outdated},
	} {
		if st, _, _, _ := owner.Local(res0, tc.at); st != tc.owner {
			t.Errorf("owner at t%+v: %v, want %v", time.Duration(tc.at-tExp), st, tc.owner)
		}
		if st, _, _, _ := other.Local(res0, tc.at); st != tc.other {
			t.Errorf("other at t%+v: %v, want %v", time.Duration(tc.at-tExp), st, tc.other)
		}
	}
}

func TestMissedPreviousBound(t *testing.T) {
	// A node that knows only an incomplete instance n and cannot learn
	// n-1 waits until since + v(1+ρ)/(1-ρ) + d_max, then proposes in n.
	nd := newSingle(t, 2)
	now := algorithms.Local(time.Second)
	r := nd.state(res0)
	r.advance(5, now)
	p := nd.newProp()
	p.triedPrev = 5
	inst, _, wait := nd.where(now, r, p)
	if inst != 0 || wait != now.Add(nd.missedFor) {
		t.Fatalf("where = %d wait %d, want a wait until %d", inst, wait, now.Add(nd.missedFor))
	}
	if inst, _, _ := nd.where(now.Add(nd.missedFor), r, p); inst != 5 {
		t.Fatalf("after the bound: instance %d, want 5", inst)
	}
}

func TestMalformedInputIgnored(t *testing.T) {
	n := newSingle(t, 0)
	var out algorithms.Output
	for _, m := range []algorithms.Message{
		{Kind: algorithms.Kind(200), From: 1, To: 0},
		{Kind: algorithms.Promise, From: 99, To: 0, Resource: res0},
		{Kind: algorithms.Propose, From: 1, To: 0, Owner: algorithms.NoNode, Instance: 1},
		{Kind: algorithms.Learn, From: 1, To: 0, Owner: 77, Instance: 1},
		{Kind: algorithms.Propose, From: 1, To: 0, Owner: 3, Instance: 1}, // an owner one past the cluster's last node
		{Kind: algorithms.Prepare, From: 1, To: 2, Instance: 1},           // not for node 0
		{Kind: algorithms.Prepare, From: 1, To: 0, Instance: 0},
	} {
		n.Step(0, algorithms.Input{Kind: algorithms.Recv, Msg: m}, &out)
	}
	if len(out.Msgs) > 1 {
		t.Fatalf("malformed input produced %v", out.Msgs)
	}
}

func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	p.LeaseSpan = 5 * time.Second
	p.DMax = 500 * time.Millisecond
	p.Drift = 0.001
	p.ResponseTimeout = time.Second
	p.MaxRounds = 7
	p.Backoff = 100 * time.Millisecond
	return p
}

// newSingle returns node id of a diskless cluster of three, started at
// local time 0, for tests that step one node directly. Tests of more than
// one node are scenario files (testdata/*.txt, with golden transcripts
// checked by cmd/leaselab's TestGolden).
func newSingle(t *testing.T, id algorithms.NodeID) *Node {
	t.Helper()
	n := New(algorithms.Config{ID: id, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))}, Options{})
	var out algorithms.Output
	n.Step(0, algorithms.Input{Kind: algorithms.Start}, &out)
	return n
}

// leaseTo is the lease of instance 1 that node 2 of a cluster of three
// has learned for owner, ending at 5 s (ballot 1 of the owner); it
// returns the node and the lease's end.
func leaseTo(t *testing.T, owner algorithms.NodeID) (*Node, algorithms.Local) {
	t.Helper()
	n := newSingle(t, 2)
	var out algorithms.Output
	tExp := algorithms.Local(5 * time.Second)
	if !n.learn(0, res0, n.state(res0), 1, lease{owner: owner, t: tExp}, algorithms.MakeBallot(1, 0, owner), &out) {
		t.Fatal("did not learn the lease")
	}
	return n, tExp
}

// invalidate hands node n node 0's Invalidate of its leases of instance
// inst ending by until, sent by from.
func invalidate(n *Node, now algorithms.Local, from algorithms.NodeID, inst uint64, until algorithms.Local) {
	var out algorithms.Output
	n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Invalidate, From: from, To: n.id, Owner: 0,
		Resource: res0, Instance: inst, Ballot: algorithms.MakeBallot(1, 0, 0), Expiry: until}}, &out)
}

// An Invalidate voids a lease only when its sender is the lease's owner:
// another node's is ignored, the owner's ends the lease at once for
// everyone. (Honouring it only from others passed the battery: honest
// nodes send no such message, and an ignored release only makes others
// wait for the lease to run out.)
func TestInvalidateOnlyFromItsOwner(t *testing.T) {
	n, tExp := leaseTo(t, 0)
	now := algorithms.Local(time.Second)
	invalidate(n, now, 1, 1, tExp)
	if st, _, _, _ := n.Local(res0, now); st != Valid {
		t.Fatalf("after node 1's Invalidate of node 0's lease: %v, want Valid", st)
	}
	invalidate(n, now, 0, 1, tExp)
	if st, _, _, _ := n.Local(res0, now); st == Valid || st == Safety {
		t.Fatalf("after the owner's Invalidate: %v, want the lease gone", st)
	}
}

// An Invalidate moves its receivers past the invalidated instance only
// if that forgets no live lease of another owner: a node that knows node
// 1's lease in instance 1 stays there when node 0 invalidates instance 3.
// (Skipping the check passed the safety battery: a majority's guard had
// already judged every lower lease over when instance 3 was chosen, so
// the check is a second line; this test keeps it.)
func TestInvalidateKeepsOthersLiveLease(t *testing.T) {
	n, tExp := leaseTo(t, 1)
	now := algorithms.Local(time.Second)
	invalidate(n, now, 0, 3, tExp)
	if cur := n.state(res0).cur.n; cur != 1 {
		t.Fatalf("after node 0's Invalidate of instance 3: current instance %d, want 1 (node 1's lease is live)", cur)
	}
	if st, _, _, _ := n.Local(res0, now); st != Valid {
		t.Fatalf("node 1's lease: %v, want Valid", st)
	}
}

// The owner of a live lease may renew it in the next instance (the renew
// instance), and may try again there: an acceptor that knows node 0's
// lease of instance 1 promises node 0 in instance 2 twice, the second time
// on a higher ballot. (An acceptor that took instance 2's records for
// forgotten once it was current passed the safety battery: it refused
// only more.)
func TestRenewInstanceRetried(t *testing.T) {
	n, _ := leaseTo(t, 0)
	var out algorithms.Output
	now := algorithms.Local(time.Second)
	for _, b := range []algorithms.Ballot{algorithms.MakeBallot(2, 0, 0), algorithms.MakeBallot(3, 0, 0)} {
		out.Reset()
		n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Prepare, From: 0, To: 2, Owner: 0, Resource: res0, Instance: 2, Ballot: b}}, &out)
		if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Promise {
			t.Fatalf("Prepare of node 0 in instance 2, ballot %s: answered %v, want a Promise", b, out.Msgs)
		}
	}
}

// When the hold's timer fires the hold is over for the proposer too: a
// node with nothing else to do for the resource forgets it, and the
// client's next Acquire starts a round and gets a new lease. An Acquire
// after the hold's end also ends a hold whose timer has not fired (a
// pause can keep the timer behind it), so the second check alone no
// longer tells a timer that leaves the hold on; the first does (a node
// that kept every resource it ever held).
func TestHoldTimerEndsTheHold(t *testing.T) {
	n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 1), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))}, Options{})
	var out algorithms.Output
	acquired := func(now algorithms.Local, in algorithms.Input) algorithms.Local {
		out.Reset()
		n.Step(now, in, &out)
		for _, e := range out.Events {
			if e.Kind == algorithms.Acquired {
				return e.Until
			}
		}
		return 0
	}
	acquired(0, algorithms.Input{Kind: algorithms.Start})
	until := acquired(0, algorithms.Input{Kind: algorithms.Acquire, Resource: res0})
	if until == 0 {
		t.Fatal("a cluster of one acceptor did not grant at once")
	}
	acquired(until, algorithms.Input{Kind: algorithms.Fire, Timer: algorithms.TimerKey{Resource: res0, Kind: timerHold}})
	if n.props[res0] != nil {
		t.Fatalf("the hold's timer fired and nothing else was asked: the proposer still keeps state for the resource (%+v)", *n.props[res0])
	}
	if again := acquired(until+1, algorithms.Input{Kind: algorithms.Acquire, Resource: res0}); again <= until {
		t.Fatalf("Acquire after the hold's timer fired: Acquired until %d, want a new lease past %d (%v)", again, until, out.Events)
	}
}

// A client's Acquire while its node holds the lease is answered at once
// with the hold it has; once the hold has ended it starts a round.
func TestAcquireWhileHolding(t *testing.T) {
	n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 1), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))}, Options{})
	var out algorithms.Output
	step := func(now algorithms.Local, in algorithms.Input) []algorithms.Event {
		out.Reset()
		n.Step(now, in, &out)
		return out.Events
	}
	step(0, algorithms.Input{Kind: algorithms.Start})
	var until algorithms.Local
	for _, e := range step(0, algorithms.Input{Kind: algorithms.Acquire, Resource: res0}) {
		if e.Kind == algorithms.Acquired {
			until = e.Until
		}
	}
	if until == 0 {
		t.Fatal("a cluster of one acceptor did not grant at once")
	}
	now := until / 2
	evs := step(now, algorithms.Input{Kind: algorithms.Acquire, Resource: res0})
	if len(evs) != 1 || evs[0].Kind != algorithms.Acquired || evs[0].Until != until {
		t.Fatalf("Acquire while holding: %v, want the hold's Acquired (until %d)", evs, until)
	}
	for _, e := range step(until+1, algorithms.Input{Kind: algorithms.Acquire, Resource: res0}) {
		if e.Kind == algorithms.Acquired && e.Until == until {
			t.Fatalf("Acquire after the hold ended was answered with the old hold: %v", e)
		}
	}
}

// A proposer-only node has no record of the instances it proposes in.
// When a majority's promises in instance 1 report a lease that is over,
// the instance is done with and the next round goes to instance 2. (It
// went to instance 1 again, and again: rounds without end, never a
// Failed, the client never answered; found by the campaigns' settle
// stretch, swarm seed 70.)
func TestProposerOnlyMovesPastAnOverInstance(t *testing.T) {
	n := New(algorithms.Config{ID: 2, Cluster: algorithms.NewCluster(2, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))}, Options{})
	var out algorithms.Output
	n.Step(0, algorithms.Input{Kind: algorithms.Start}, &out)
	now := algorithms.Local(20 * time.Second)
	prepares := func() (inst []uint64, b algorithms.Ballot) {
		for _, m := range out.Msgs {
			if m.Kind == algorithms.Prepare {
				inst, b = append(inst, m.Instance), m.Ballot
			}
		}
		return inst, b
	}
	out.Reset()
	n.Step(now, algorithms.Input{Kind: algorithms.Acquire, Resource: res0}, &out)
	inst, b := prepares()
	if len(inst) != 2 || inst[0] != 1 {
		t.Fatalf("first round: prepares in instances %v, want two in instance 1", inst)
	}
	out.Reset()
	for _, a := range []algorithms.NodeID{0, 1} {
		n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Promise, From: a, To: 2,
			Owner: 0, Resource: res0, Ballot: b, Instance: 1, Accepted: algorithms.MakeBallot(1, 0, 0), Expiry: algorithms.Local(time.Second)}}, &out)
	}
	if next, _ := prepares(); !slices.Equal(next, []uint64{2, 2}) {
		t.Fatalf("after promises reporting instance 1's lease over: prepares in instances %v, want two in instance 2", next)
	}
}

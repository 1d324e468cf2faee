package fatlease

import (
	"math/rand/v2"
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
		{Kind: algorithms.Prepare, From: 1, To: 2, Instance: 1}, // not for node 0
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

package paxoslease

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res algorithms.ResourceID = 7

// An acceptor clears its accepted lease only on a release of that exact
// ballot (owner-only-release ablated: of that owner, any ballot). The
// holder's side of giving up, and the exact release clearing, are
// testdata/giveup-release.txt.
func TestReleaseClearsOnlyExactBallot(t *testing.T) {
	for _, tc := range []struct {
		name        string
		abl         []string
		wrongClears bool
	}{
		{"strict", nil, false},
		{"owner-only-release", []string{AblateOwnerOnlyRelease}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSingle(t, 1, tc.abl...) // acceptor n1
			b := algorithms.MakeBallot(1, 0, 0)
			a.recv(algorithms.Message{Kind: algorithms.Prepare, From: 0, To: 1, Resource: res, Ballot: b, Owner: algorithms.NoNode})
			a.recv(algorithms.Message{Kind: algorithms.Propose, From: 0, To: 1, Resource: res, Ballot: b, Owner: 0, Span: int64(5 * time.Second)})
			if a.n.res.get(res).accepted != b {
				t.Fatalf("proposal not accepted: %v", a.sent)
			}
			a.recv(algorithms.Message{Kind: algorithms.Release, From: 0, To: 1, Resource: res, Ballot: algorithms.MakeBallot(9, 0, 0), Owner: 0})
			if cleared := a.n.res.get(res).accepted == 0; cleared != tc.wrongClears {
				t.Fatalf("release with a wrong ballot cleared=%v, want %v", cleared, tc.wrongClears)
			}
			a.recv(algorithms.Message{Kind: algorithms.Release, From: 0, To: 1, Resource: res, Ballot: b, Owner: 0})
			if a.n.res.get(res).accepted != 0 {
				t.Fatal("exact release did not clear")
			}
		})
	}
}

func TestRestartQuarantine(t *testing.T) {
	p := testParams()
	q := Quarantine(p)
	if q < p.MaxLease {
		t.Fatalf("quarantine %v shorter than M %v", q, p.MaxLease)
	}
	if want := time.Duration(7_014_014_015); q != want { // ceil(7e9 * 1.001 / 0.999)
		t.Fatalf("Quarantine = %d, want %d", q, want)
	}
	// The quarantine itself: testdata/restart-quarantine*.txt.
}

func TestValidateAndNew(t *testing.T) {
	p := testParams()
	c := algorithms.NewCluster(3, 3)
	bad := p
	bad.LeaseSpan = p.MaxLease
	if err := Validate(bad, c); err == nil || !strings.Contains(err.Error(), "shorter than the max lease") {
		t.Errorf("T == M: got %v", err)
	}
	if err := Validate(p, algorithms.NewCluster(100, 3)); err != nil {
		t.Errorf("100 acceptors rejected: %v", err)
	}
	if err := Validate(p, c); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
	a, err := algorithms.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ValidateConfig(bad, c, nil); err == nil {
		t.Error("registry ValidateConfig accepted T == M")
	}
	want := []string{"restart-wait", "drift-margin", "backoff", "ballot-learning", "late-timer", "count-by-message", "owner-only-release", "stale-owner-open", "abandon-release", "cross-life-ballots", "rtt-backoff", "release-promise", "head-start", "failed-release", "promise-guard", "queue-behind", "split-retry", "release-hints"}
	if len(a.Ablations) != len(want) {
		t.Fatalf("%d ablations, want %d", len(a.Ablations), len(want))
	}
	for i, ab := range a.Ablations {
		if ab.Name != want[i] || ab.Rule == "" || ab.Breaks == "" {
			t.Errorf("ablation %d = %+v, want %s with rule and breaks", i, ab, want[i])
		}
	}
	cfg := algorithms.Config{ID: 0, Cluster: c, Params: p}
	if _, err := a.New(cfg); err == nil {
		t.Error("nil Rand accepted")
	}
	cfg.Rand = rand.New(rand.NewPCG(1, 1))
	cfg.ID = 3
	if _, err := a.New(cfg); err == nil {
		t.Error("id outside the cluster accepted")
	}
	cfg.ID = 0
	cfg.Ablations = algorithms.Ablations{"nope"}
	if _, err := a.New(cfg); err == nil {
		t.Error("unknown ablation accepted")
	}
}

func TestMalformedInputIgnored(t *testing.T) {
	nt := newSingle(t, 0)
	for _, m := range []algorithms.Message{
		{Kind: algorithms.Prepare, From: 1, To: 0, Resource: 1, Ballot: 0},                                                                // no ballot
		{Kind: algorithms.Prepare, From: 1, To: 0, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 2)},                                   // ballot of another node
		{Kind: algorithms.Prepare, From: 9, To: 0, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 9)},                                   // no such node
		{Kind: algorithms.Prepare, From: 1, To: 2, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 1)},                                   // not for us
		{Kind: algorithms.Propose, From: 1, To: 0, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 1)},                                   // no owner, no span
		{Kind: algorithms.Propose, From: 1, To: 0, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 1), Owner: 1, Span: int64(time.Hour)}, // span > M
		{Kind: algorithms.Promise, From: 1, To: 0, Resource: 1, Ballot: algorithms.MakeBallot(1, 0, 0)},                                   // no round
		{Kind: 200, From: 1, To: 0},
	} {
		nt.recv(m) // straight to n0, whatever To says
	}
	if len(nt.sent) != 0 || len(nt.events) != 0 {
		t.Fatalf("malformed input had effects: sent %v, events %v", nt.sent, nt.events)
	}
}

func testParams() algorithms.Params { return algorithms.DefaultParams() }

// single steps one node of a cluster of three directly: no network, its
// clock at 0. Tests of more than one node are scenario files
// (testdata/*.txt, with golden transcripts checked by cmd/leaselab's
// TestGolden).
type single struct {
	t      *testing.T
	n      *Node
	sent   []algorithms.Message
	events []algorithms.Event
	out    algorithms.Output
}

func newSingle(t *testing.T, id algorithms.NodeID, abl ...string) *single {
	t.Helper()
	n := New(algorithms.Config{ID: id, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Ablations: abl,
		Rand: rand.New(rand.NewPCG(1, 2))})
	s := &single{t: t, n: n}
	s.step(algorithms.Input{Kind: algorithms.Start})
	return s
}

func (s *single) step(in algorithms.Input) {
	s.out.Reset()
	s.n.Step(0, in, &s.out)
	s.sent = append(s.sent, s.out.Msgs...)
	s.events = append(s.events, s.out.Events...)
}

func (s *single) recv(m algorithms.Message) { s.step(algorithms.Input{Kind: algorithms.Recv, Msg: m}) }

// TestPromiseGuard: an acceptor guards only a promise it re-sent on
// clearing a lease, whatever its clock reads (local clocks may be below
// zero: an empty slot must not look guarded then), and the guard turns
// away other proposers' prepares but not its own proposer's.
func TestPromiseGuard(t *testing.T) {
	b := func(round uint32, node algorithms.NodeID) algorithms.Ballot {
		return algorithms.MakeBallot(round, 0, node)
	}
	msg := func(kind algorithms.Kind, from algorithms.NodeID, bal algorithms.Ballot) algorithms.Message {
		m := algorithms.Message{Kind: kind, From: from, To: 0, Ballot: bal, Owner: algorithms.NoNode}
		if kind == algorithms.Propose || kind == algorithms.Release {
			m.Owner, m.Span = from, int64(time.Second)
		}
		if kind == algorithms.Release {
			m.Span = 0
		}
		return m
	}
	for _, start := range []algorithms.Local{-5_000_000_000, 0, 5_000_000_000} {
		n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))})
		n.Step(start, algorithms.Input{Kind: algorithms.Start}, &algorithms.Output{})
		step := func(now algorithms.Local, m algorithms.Message) algorithms.Message {
			var out algorithms.Output
			n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: m}, &out)
			for _, o := range out.Msgs {
				if o.To == m.From {
					return o
				}
			}
			return algorithms.Message{}
		}
		if r := step(start, msg(algorithms.Prepare, 1, b(1, 1))); r.Kind != algorithms.Promise {
			t.Fatalf("clock %d: empty slot answered %v, want a promise", start, r.Kind)
		}
		if r := step(start, msg(algorithms.Prepare, 2, b(2, 2))); r.Kind != algorithms.Promise {
			t.Fatalf("clock %d: a higher prepare on an unguarded slot got %v, want a promise", start, r.Kind)
		}
		step(start, msg(algorithms.Propose, 2, b(2, 2)))   // n2 holds
		step(start+1, msg(algorithms.Prepare, 1, b(3, 1))) // n1 waits: promised 3.0.1
		var out algorithms.Output                          // n2 releases:
		n.Step(start+2, algorithms.Input{Kind: algorithms.Recv, Msg: msg(algorithms.Release, 2, b(2, 2))}, &out)
		if len(out.Msgs) != 1 || out.Msgs[0].Kind != algorithms.Promise || out.Msgs[0].To != 1 || out.Msgs[0].Ballot != b(3, 1) {
			t.Fatalf("clock %d: release sent %+v, want a re-sent promise of 3.0.1 to n1", start, out.Msgs)
		}
		if r := step(start+3, msg(algorithms.Prepare, 2, b(4, 2))); r.Kind != algorithms.PrepareReject || r.Owner != 1 {
			t.Fatalf("clock %d: a newcomer's prepare during the guard got %v (owner %v), want a reject naming n1", start, r.Kind, r.Owner)
		}
		if r := step(start+4, msg(algorithms.Propose, 1, b(3, 1))); r.Kind != algorithms.Accepted {
			t.Fatalf("clock %d: the guarded proposer's propose got %v, want accepted", start, r.Kind)
		}
	}
}

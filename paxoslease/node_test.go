package paxoslease

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res algorithms.ResourceID = 7

// fiveNodes: acceptors n0..n2 (also proposers, idle in most tests) and
// two proposer-only nodes n3 and n4, so acceptors can crash without taking
// a proposer with them.
var fiveNodes = algorithms.Cluster{Nodes: 5, Acceptors: 3, Proposers: 5}

func TestAcquireTwoRoundTrips(t *testing.T) {
	p := testParams()
	nt := newNet(t, algorithms.NewCluster(3, 3), p)
	hop := time.Millisecond // one way; RTT 2 ms
	start := nt.local(0)
	nt.acquire(0, res)
	if len(nt.msgs) != 3 {
		t.Fatalf("acquire sent %d messages, want one prepare per acceptor (3)", len(nt.msgs))
	}
	rt1 := func(k algorithms.Kind) {
		nt.advance(hop)
		for a := algorithms.NodeID(0); a < 3; a++ {
			nt.deliver(k, 0, a)
		}
	}
	rt1(algorithms.Prepare)
	nt.advance(hop)
	nt.deliver(algorithms.Promise, 1, 0)
	if nt.has(algorithms.Propose, 0, anyNode) {
		t.Fatal("proposed after one promise of three")
	}
	nt.deliver(algorithms.Promise, 2, 0)
	if !nt.has(algorithms.Propose, 0, anyNode) {
		t.Fatal("no propose after a majority of open promises")
	}
	nt.deliver(algorithms.Promise, 0, 0) // late third: ignored
	rt1(algorithms.Propose)
	nt.advance(hop)
	nt.deliver(algorithms.Accepted, 0, 0)
	if nt.count(0, algorithms.Acquired) != 0 {
		t.Fatal("acquired after one accept of three")
	}
	nt.deliver(algorithms.Accepted, 1, 0)
	ev, ok := nt.last(0, algorithms.Acquired)
	if !ok {
		t.Fatalf("not acquired after two round trips:\n%s", nt.dump())
	}
	if ev.at != int64(4*hop) {
		t.Errorf("acquired at %v, want two round trips (%v)", time.Duration(ev.at), 4*hop)
	}
	if want := start.Add(HoldSpan(p)); ev.ev.Until != want {
		t.Errorf("Until = %d, want Prepare time + HoldSpan = %d", ev.ev.Until, want)
	}
	if want := algorithms.MakeBallot(1, 0, 0); ev.ev.Ballot != want {
		t.Errorf("ballot %v, want %v", ev.ev.Ballot, want)
	}
	if n := nt.count(anyNode, algorithms.Granted); n != 3 {
		t.Errorf("%d acceptors granted, want 3", n)
	}
	if n := nt.count(0, algorithms.Round); n != 1 {
		t.Errorf("%d rounds, want 1", n)
	}
	// Granted.Until is the acceptor's own timer: T from its accept.
	for _, e := range nt.events {
		if e.ev.Kind == algorithms.Granted && e.ev.Until != nt.nodes[e.node].clk.local(e.at).Add(p.LeaseSpan) {
			t.Errorf("n%d granted until %d, want accept time + T", e.node, e.ev.Until)
		}
	}
}

func TestCompetingProposers(t *testing.T) {
	nt := newNet(t, algorithms.NewCluster(3, 3), testParams())
	nt.acquire(0, res)
	nt.acquire(1, res)
	b0, b1 := algorithms.MakeBallot(1, 0, 0), algorithms.MakeBallot(1, 0, 1)
	for a := algorithms.NodeID(0); a < 3; a++ {
		nt.deliver(algorithms.Prepare, 0, a)
	}
	for a := algorithms.NodeID(0); a < 3; a++ {
		nt.deliver(algorithms.Prepare, 1, a) // b1 > b0: every acceptor now promised b1
	}
	// n0 still gets its promises (given before b1 arrived) and proposes...
	for a := algorithms.NodeID(0); a < 3; a++ {
		nt.deliver(algorithms.Promise, a, 0)
	}
	for a := algorithms.NodeID(0); a < 3; a++ {
		m := nt.deliver(algorithms.Propose, 0, a)
		if m.Ballot != b0 {
			t.Fatalf("n0 proposed %v, want %v", m.Ballot, b0)
		}
	}
	// ...but every acceptor rejects it, naming b1.
	rej := nt.take(algorithms.ProposeReject, 0, 0)
	if rej.Promised != b1 {
		t.Fatalf("reject carries promised %v, want %v", rej.Promised, b1)
	}
	nt.put(rej)
	nt.deliver(algorithms.ProposeReject, 1, 0)
	pre, ok := nt.last(0, algorithms.Preempted)
	if !ok || pre.ev.Ballot != b1 {
		t.Fatalf("n0 not preempted by %v:\n%s", b1, nt.dump())
	}
	// The higher ballot wins.
	nt.deliverAll(100)
	if _, ok := nt.last(1, algorithms.Acquired); !ok {
		t.Fatalf("n1 did not acquire:\n%s", nt.dump())
	}
	// After its backoff, n0 jumps past b1 in one step.
	nt.advance(testParams().Backoff + time.Millisecond)
	var retry algorithms.Ballot
	for _, e := range nt.events {
		if e.node == 0 && e.ev.Kind == algorithms.Round {
			retry = e.ev.Ballot
		}
	}
	if retry <= b1 || retry.Round() != 2 {
		t.Fatalf("n0 retried with %v, want the smallest ballot of n0 above %v", retry, b1)
	}
	// n1 holds: n0 sees a majority of promises reporting it and waits
	// (not a failed round), then acquires once the lease is over.
	nt.deliverAll(100)
	if n := nt.count(0, algorithms.Acquired); n != 0 {
		t.Fatalf("n0 acquired while n1 holds")
	}
	if r := nt.nodes[0].n.rounds[res]; r == nil || r.phase != phaseWait || r.fails != 1 {
		t.Fatalf("n0 should wait for the held lease with 1 failed round, got %+v", r)
	}
	settle(nt, 8*time.Second)
	if _, ok := nt.last(0, algorithms.Acquired); !ok {
		t.Fatalf("n0 never acquired after n1's lease ended:\n%s", nt.dump())
	}
	if len(nt.violations) != 0 {
		t.Fatalf("violations: %+v", nt.violations)
	}
}

// settle delivers everything in flight and advances time in small steps.
func settle(nt *tnet, d time.Duration) {
	nt.t.Helper()
	const step = 10 * time.Millisecond
	for end := nt.now + int64(d); nt.now < end; {
		nt.deliverAll(10000)
		nt.advance(step)
	}
	nt.deliverAll(10000)
}

func TestDuplicatedAcceptedIsOneVote(t *testing.T) {
	for _, tc := range []struct {
		abl  []string
		want int // Acquired events
	}{
		{nil, 0},
		{[]string{AblateCountByMessage}, 1},
	} {
		t.Run(strings.Join(append([]string{"ablate"}, tc.abl...), "-"), func(t *testing.T) {
			nt := newNet(t, algorithms.NewCluster(3, 3), testParams(), tc.abl...)
			nt.acquire(0, res)
			nt.deliver(algorithms.Prepare, 0, 0)
			nt.deliver(algorithms.Prepare, 0, 1)
			nt.deliver(algorithms.Promise, 0, 0)
			nt.deliver(algorithms.Promise, 1, 0)
			nt.deliver(algorithms.Propose, 0, 0)
			nt.drop(algorithms.Propose, 0, anyNode)
			nt.dup(algorithms.Accepted, 0, 0) // one acceptor, two messages
			if got := nt.count(0, algorithms.Acquired); got != tc.want {
				t.Fatalf("Acquired %d times, want %d:\n%s", got, tc.want, nt.dump())
			}
		})
	}
}

func TestExtensionNoGap(t *testing.T) {
	p := testParams()
	nt := newNet(t, algorithms.NewCluster(3, 3), p)
	nt.acquire(0, res)
	nt.deliverAll(100)
	first, ok := nt.last(0, algorithms.Acquired)
	if !ok {
		t.Fatal("not acquired")
	}
	until := first.ev.Until
	prev := first.ev.Ballot
	// n1 wants the lease all along; it must keep waiting, never failing.
	nt.acquire(1, res)
	for i := 0; i < 10; i++ {
		settle(nt, 3*time.Second)
		nt.extend(0, res)
		before := nt.count(0, algorithms.Acquired)
		nt.deliverAll(100)
		ev, _ := nt.last(0, algorithms.Acquired)
		if nt.count(0, algorithms.Acquired) != before+1 {
			t.Fatalf("extension %d did not acquire:\n%s", i, nt.dump())
		}
		if nt.local(0) >= until {
			t.Fatalf("extension %d came at %d, after the lease ended at %d: a gap", i, nt.local(0), until)
		}
		if ev.ev.Until <= until || ev.ev.Ballot <= prev {
			t.Fatalf("extension %d: until %d ballot %v, want later than %d, %v", i, ev.ev.Until, ev.ev.Ballot, until, prev)
		}
		until, prev = ev.ev.Until, ev.ev.Ballot
	}
	if n := nt.count(1, algorithms.Acquired) + nt.count(1, algorithms.Failed); n != 0 {
		t.Fatalf("n1 acquired or failed %d times while n0 held the lease", n)
	}
	if len(nt.violations) != 0 {
		t.Fatalf("violations: %+v", nt.violations)
	}
}

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
			nt := newNet(t, algorithms.NewCluster(3, 3), testParams(), tc.abl...)
			nt.acquire(0, res)
			nt.deliverAll(100)
			ev, _ := nt.last(0, algorithms.Acquired)
			wrong := algorithms.Message{Kind: algorithms.Release, From: 0, To: 1, Resource: res, Ballot: algorithms.MakeBallot(9, 0, 0), Owner: 0}
			nt.put(wrong)
			s := nt.nodes[1].n.res.get(res)
			if cleared := s.accepted == 0; cleared != tc.wrongClears {
				t.Fatalf("release with a wrong ballot cleared=%v, want %v", cleared, tc.wrongClears)
			}
			// The exact (owner, ballot) always clears, via Giveup.
			nt.giveup(0, res)
			if e, ok := nt.last(0, algorithms.Lost); !ok || e.ev.Ballot != ev.ev.Ballot {
				t.Fatal("giveup did not emit Lost with the lease's ballot")
			}
			if i := len(nt.events) - 1; nt.events[i].ev.Kind != algorithms.Lost {
				t.Fatal("Lost must be the holder's last word")
			}
			rel := nt.take(algorithms.Release, 0, 2)
			if rel.Ballot != ev.ev.Ballot || rel.Owner != 0 {
				t.Fatalf("release %v, want ballot %v owner n0", rel, ev.ev.Ballot)
			}
			nt.put(rel)
			if nt.nodes[2].n.res.get(res).accepted != 0 {
				t.Fatal("exact release did not clear")
			}
			if len(nt.owners(res)) != 0 {
				t.Fatalf("owners after release: %v", nt.owners(res))
			}
		})
	}
}

// The renewal dilemma (practical notes): a competitor's failed prepares
// push the acceptors' promised ballot far past the owner's while it holds
// the lease. With ballot learning the owner's extension costs one extra
// round trip; without, it climbs one round per retry and loses the lease.
func TestRenewalDilemma(t *testing.T) {
	for _, tc := range []struct {
		name     string
		abl      []string
		extended bool
	}{
		{"ballot-learning", nil, true},
		{"no-ballot-learning", []string{AblateBallotLearning}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testParams()
			nt := newNet(t, algorithms.NewCluster(3, 3), p, tc.abl...)
			nt.acquire(0, res)
			nt.deliverAll(100)
			first, _ := nt.last(0, algorithms.Acquired)
			// n1 tries ten times, each time sees the lease and gives up.
			for i := 0; i < 10; i++ {
				nt.acquire(1, res)
				nt.deliverAll(100)
				nt.giveup(1, res)
			}
			promised := nt.nodes[2].n.res.get(res).promised
			if promised.Round() < 10 || promised.Node() != 1 {
				t.Fatalf("acceptors promised %v, want n1's tenth round", promised)
			}
			nt.advance(time.Second)
			nt.extend(0, res)
			nt.deliverAll(1000)
			ev, _ := nt.last(0, algorithms.Acquired)
			extended := ev.ev.Until > first.ev.Until
			if extended != tc.extended {
				t.Fatalf("extended=%v, want %v:\n%s", extended, tc.extended, nt.dump())
			}
			if tc.extended {
				if n := nt.count(0, algorithms.Preempted); n != 1 {
					t.Errorf("%d preemptions, want exactly one (one extra round trip)", n)
				}
				if ev.ev.Ballot <= promised {
					t.Errorf("extension ballot %v not past promised %v", ev.ev.Ballot, promised)
				}
			} else if nt.count(0, algorithms.Failed) != 1 {
				t.Errorf("without learning the extension should fail after MaxRounds:\n%s", nt.dump())
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
	t.Run("silent-then-joined", func(t *testing.T) {
		nt := newNet(t, algorithms.NewCluster(3, 3), p)
		if n := nt.count(anyNode, algorithms.Joined); n != 0 {
			t.Fatalf("first boot emitted Joined %d times: it must not wait", n)
		}
		nt.crash(2)
		nt.restart(2)
		nt.acquire(0, res)
		nt.deliver(algorithms.Prepare, 0, 2)
		if nt.has(algorithms.Promise, 2, anyNode) || nt.has(algorithms.PrepareReject, 2, anyNode) {
			t.Fatal("a quarantined node answered")
		}
		nt.acquire(2, 9) // client requests wait
		if nt.has(algorithms.Prepare, 2, anyNode) {
			t.Fatal("a quarantined node proposed")
		}
		nt.advance(q - 1)
		if nt.count(2, algorithms.Joined) != 0 {
			t.Fatal("joined before the quarantine ended")
		}
		nt.advance(1)
		if nt.count(2, algorithms.Joined) != 1 {
			t.Fatal("did not join when the quarantine ended")
		}
		if !nt.has(algorithms.Prepare, 2, anyNode) {
			t.Fatal("the waiting request did not start at Joined")
		}
		// And now it answers.
		nt.put(algorithms.Message{Kind: algorithms.Prepare, From: 1, To: 2, Resource: 3, Ballot: algorithms.MakeBallot(50, 0, 1), Owner: algorithms.NoNode})
		if !nt.has(algorithms.Promise, 2, 1) {
			t.Fatal("a joined node does not answer")
		}
	})
	t.Run("ablated", func(t *testing.T) {
		nt := newNet(t, algorithms.NewCluster(3, 3), p, AblateRestartWait)
		nt.crash(2)
		nt.restart(2)
		if nt.count(2, algorithms.Joined) != 1 {
			t.Fatal("restart-wait ablated: should join at once")
		}
	})
	t.Run("giveup-while-waiting", func(t *testing.T) {
		nt := newNet(t, algorithms.NewCluster(3, 3), p)
		nt.crash(2)
		nt.restart(2)
		nt.acquire(2, 9)
		nt.giveup(2, 9)
		nt.advance(q)
		if nt.has(algorithms.Prepare, 2, anyNode) {
			t.Fatal("a request given up during the quarantine still started")
		}
	})
}

func TestTimeoutsThenFailed(t *testing.T) {
	p := testParams()
	nt := newNet(t, algorithms.NewCluster(3, 3), p)
	nt.acquire(0, res)
	for i := 0; i < 20 && nt.count(0, algorithms.Failed) == 0; i++ {
		nt.drop(algorithms.Prepare, anyNode, anyNode) // every prepare is lost
		nt.advance(p.ResponseTimeout + p.Backoff)
	}
	if got := nt.count(0, algorithms.Timeout); got != p.MaxRounds {
		t.Fatalf("%d timeouts, want MaxRounds = %d", got, p.MaxRounds)
	}
	if nt.count(0, algorithms.Failed) != 1 || nt.count(0, algorithms.Round) != p.MaxRounds {
		t.Fatalf("want one Failed after %d rounds:\n%s", p.MaxRounds, nt.dump())
	}
	if len(nt.nodes[0].n.rounds) != 0 {
		t.Fatal("a failed acquisition left a round behind")
	}
}

func TestBallotLearningAfterRestart(t *testing.T) {
	// A proposer far behind the acceptors' promised ballot: with learning
	// one reject is enough; without it climbs one round per retry.
	for _, tc := range []struct {
		abl    []string
		rounds int
	}{
		{nil, 2},
		{[]string{AblateBallotLearning}, 7},
	} {
		p := testParams()
		nt := newNet(t, algorithms.NewCluster(3, 3), p, tc.abl...)
		for a := algorithms.NodeID(0); a < 3; a++ {
			nt.put(algorithms.Message{Kind: algorithms.Prepare, From: 1, To: a, Resource: res, Ballot: algorithms.MakeBallot(1000, 0, 1), Owner: algorithms.NoNode})
		}
		nt.drop(algorithms.Promise, anyNode, anyNode)
		nt.acquire(0, res)
		settle(nt, 2*time.Second)
		if got := nt.count(0, algorithms.Round); got != tc.rounds {
			t.Errorf("ablate %v: %d rounds, want %d", tc.abl, got, tc.rounds)
		}
		_, acquired := nt.last(0, algorithms.Acquired)
		if acquired != (tc.abl == nil) {
			t.Errorf("ablate %v: acquired=%v", tc.abl, acquired)
		}
	}
}

func TestCheckAndNew(t *testing.T) {
	p := testParams()
	c := algorithms.NewCluster(3, 3)
	bad := p
	bad.LeaseSpan = p.MaxLease
	if err := Check(bad, c); err == nil || !strings.Contains(err.Error(), "shorter than the max lease") {
		t.Errorf("T == M: got %v", err)
	}
	if err := Check(p, algorithms.NewCluster(65, 3)); err == nil {
		t.Error("65 acceptors accepted")
	}
	if err := Check(p, c); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
	a, err := algorithms.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(bad, c, nil); err == nil {
		t.Error("registry Validate accepted T == M")
	}
	want := []string{"restart-wait", "drift-margin", "backoff", "ballot-learning", "late-timer", "count-by-message", "owner-only-release", "stale-owner-open", "abandon-release", "rtt-backoff", "release-promise", "head-start", "failed-release", "promise-guard"}
	if len(a.Ablations) != len(want) {
		t.Fatalf("%d ablations, want %d", len(a.Ablations), len(want))
	}
	for i, ab := range a.Ablations {
		if ab.Name != want[i] || ab.Rule == "" || ab.Exposes == "" {
			t.Errorf("ablation %d = %+v, want %s with rule and exposes", i, ab, want[i])
		}
	}
	cfg := algorithms.Config{ID: 0, Cluster: c, Params: p}
	if _, err := a.New(cfg); err == nil {
		t.Error("nil Rand accepted")
	}
	cfg.Rand = nil
	cfg.ID = 3
	if _, err := New(cfg); err == nil {
		t.Error("id outside the cluster accepted")
	}
	cfg.ID = 0
	cfg.Ablations = algorithms.Ablations{"nope"}
	if _, err := New(cfg); err == nil {
		t.Error("unknown ablation accepted")
	}
}

func TestMalformedInputIgnored(t *testing.T) {
	nt := newNet(t, algorithms.NewCluster(3, 3), testParams())
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
		nt.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: m}) // straight to n0, whatever To says
	}
	if len(nt.msgs) != 0 || len(nt.events) != 0 {
		t.Fatalf("malformed input had effects: %s %s", nt.inflight(), nt.dump())
	}
}

func TestDeterministic(t *testing.T) {
	run := func() string {
		nt := newNet(t, algorithms.NewCluster(3, 3), testParams())
		for i := algorithms.NodeID(0); i < 3; i++ {
			nt.acquire(i, res)
			nt.acquire(i, res+1)
		}
		settle(nt, 12*time.Second)
		return nt.dump()
	}
	a, b := run(), run()
	if a != b {
		t.Fatal("same inputs, different traces")
	}
	if !strings.Contains(a, "acquired") {
		t.Fatal("nothing acquired")
	}
}

// Sec. 7: releases go to the proposers too, as hints. A proposer waiting
// for a held lease retries within its backoff instead of sleeping out the
// lease, and its next ballot passes the released one.
func TestReleaseHintWakesWaiter(t *testing.T) {
	p := testParams()
	nt := newNet(t, fiveNodes, p)
	nt.acquire(pp, res)
	nt.deliverAll(100)
	held, _ := nt.last(pp, algorithms.Acquired)
	nt.acquire(qq, res)
	nt.deliverAll(100) // q sees the lease and waits for it
	if r := nt.nodes[qq].n.rounds[res]; r == nil || !r.busy || r.fails != 0 {
		t.Fatalf("q should wait for the held lease without a failed round: %+v", r)
	}
	nt.advance(time.Second)
	nt.giveup(pp, res)
	if !nt.has(algorithms.Release, pp, qq) {
		t.Fatal("no release hint to the other proposer")
	}
	released := nt.now
	settle(nt, p.Backoff+10*time.Millisecond)
	got, ok := nt.last(qq, algorithms.Acquired)
	if !ok {
		t.Fatalf("q did not acquire within its backoff after the release:\n%s", nt.dump())
	}
	if d := time.Duration(got.at - released); d > p.Backoff+time.Millisecond {
		t.Errorf("q acquired %v after the release, want within the backoff %v", d, p.Backoff)
	}
	if got.ev.Ballot <= held.ev.Ballot || nt.count(qq, algorithms.Preempted) != 0 {
		t.Errorf("q's ballot %v should pass the released %v at the first try", got.ev.Ballot, held.ev.Ballot)
	}
	if len(nt.violations) != 0 {
		t.Fatalf("violations: %+v", nt.violations)
	}
}

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
		n, err := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
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

package naive

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res algorithms.ResourceID = 7

// A duplicate of a granted request is answered with Grant again, without
// moving the acceptor's timer; a request of the same owner in a later
// plain round is denied (the paper's rule), an extension round renews.
func TestAcceptorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		later      bool // the second request is of a later round
		flags      uint8
		wantKind   algorithms.Kind
		wantBallot string // "first" or "second": ballot of the grant afterwards
		wantMoved  bool   // the acceptor's timer moved
	}{
		{"duplicate request", false, 0, algorithms.Grant, "first", false},
		{"duplicate extension request", false, FlagExtend, algorithms.Grant, "first", false},
		{"later plain round of the owner", true, 0, algorithms.Deny, "first", false},
		{"later extension round of the owner", true, FlagExtend, algorithms.Grant, "second", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSingle(t, 1, 1, nil)
			req := algorithms.Message{Kind: algorithms.Request, From: 0, To: 0, Owner: 0, Resource: res,
				Ballot: algorithms.MakeBallot(1, 0, 0), Span: int64(5 * time.Second)}
			c.recv(req)
			c.take(algorithms.Grant)
			first := c.grant()
			c.now = c.now.Add(time.Second)
			second := req
			second.Flags = tc.flags
			if tc.later {
				second.Ballot = algorithms.MakeBallot(2, 0, 0)
			}
			c.recv(second)
			ans := c.take(tc.wantKind)
			if ans.Kind != tc.wantKind || ans.Ballot != second.Ballot {
				t.Fatalf("answer %v, want %v for %v", ans, tc.wantKind, second.Ballot)
			}
			g := c.grant()
			want := map[string]algorithms.Ballot{"first": req.Ballot, "second": second.Ballot}[tc.wantBallot]
			if g.owner != 0 || g.ballot != want {
				t.Fatalf("grant %+v, want ballot %v", g, want)
			}
			if moved := g.until != first.until; moved != tc.wantMoved {
				t.Fatalf("timer moved = %v, want %v", moved, tc.wantMoved)
			}
			if tc.wantMoved && c.timers[algorithms.TimerKey{Resource: res, Kind: timerGrant}] != g.until {
				t.Fatal("the renewed grant's timer was not reset")
			}
		})
	}
}

// Malformed requests are dropped, not answered and not granted.
func TestMalformedRequestsDropped(t *testing.T) {
	ok := algorithms.Message{Kind: algorithms.Request, From: 1, To: 0, Owner: 1, Resource: res,
		Ballot: algorithms.MakeBallot(1, 0, 1), Span: int64(5 * time.Second)}
	for _, tc := range []struct {
		name string
		edit func(*algorithms.Message)
	}{
		{"owner is not the sender", func(m *algorithms.Message) { m.Owner = 2 }},
		{"sender is not a proposer", func(m *algorithms.Message) { m.From, m.Owner = 5, 5 }},
		{"no ballot", func(m *algorithms.Message) { m.Ballot = 0 }},
		{"zero span", func(m *algorithms.Message) { m.Span = 0 }},
		{"negative span", func(m *algorithms.Message) { m.Span = -1 }},
		{"span beyond M", func(m *algorithms.Message) { m.Span = int64(8 * time.Second) }},
		{"addressed to another node", func(m *algorithms.Message) { m.To = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSingle(t, 3, 3, nil)
			m := ok
			tc.edit(&m)
			c.recv(m)
			if len(c.sent) != 0 || c.grant().owner != algorithms.NoNode {
				t.Fatalf("answered %v / granted %+v", c.sent, c.grant())
			}
		})
	}
}

// Release clears only a grant of that exact owner and round; with
// owner-only-release ablated any round of the owner, but still only of
// the owner's life unless cross-life-ballots is ablated too.
func TestRelease(t *testing.T) {
	ownerOnly := algorithms.Ablations{AblOwnerOnlyRelease}
	bothOff := algorithms.Ablations{AblOwnerOnlyRelease, AblCrossLife}
	for _, tc := range []struct {
		name      string
		ablate    algorithms.Ablations
		from      int
		round     int // offset added to the granted round's counter
		restart   uint16
		wantClear bool
	}{
		{"exact owner and round", nil, 0, 0, 0, true},
		{"earlier round", nil, 0, -1, 0, false},
		{"later round", nil, 0, 1, 0, false},
		{"another owner", nil, 1, 0, 0, false},
		{"another life", nil, 0, 1, 1, false},
		{"ablated: earlier round", ownerOnly, 0, -1, 0, true},
		{"ablated: another owner", ownerOnly, 1, 0, 0, false},
		{"ablated: another life", ownerOnly, 0, 1, 1, false},
		{"both ablated: another life", bothOff, 0, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSingle(t, 1, 2, tc.ablate)
			// Two rounds, so that the grant's round has one before it.
			c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
			c.flush()
			c.step(algorithms.Input{Kind: algorithms.Relinquish, Resource: res})
			c.flush()
			c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
			c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res}) // a second Acquire while trying is ignored
			c.flush()
			g := c.grant()
			if g.ballot.Round() != 2 {
				t.Fatalf("granted %v, want a second round", g.ballot)
			}
			b := algorithms.MakeBallot(uint32(int(g.ballot.Round())+tc.round), tc.restart, algorithms.NodeID(tc.from))
			c.recv(algorithms.Message{Kind: algorithms.Release, From: algorithms.NodeID(tc.from), To: 0,
				Owner: algorithms.NodeID(tc.from), Resource: res, Ballot: b})
			cleared := c.grant().owner == algorithms.NoNode
			if cleared != tc.wantClear {
				t.Fatalf("cleared = %v, want %v", cleared, tc.wantClear)
			}
			if _, timer := c.timers[algorithms.TimerKey{Resource: res, Kind: timerGrant}]; cleared == timer {
				t.Fatal("grant timer not cancelled with the grant (or cancelled without)")
			}
		})
	}
}

// The hold span: T(1-ρ)/(1+ρ), or T with the margin ablated.
func TestHoldSpan(t *testing.T) {
	for _, tc := range []struct {
		t      time.Duration
		drift  float64
		margin bool
		want   time.Duration
	}{
		{5 * time.Second, 0, true, 5 * time.Second},
		{5 * time.Second, 0.001, true, 4990009990}, // 5e9 * 0.999 / 1.001, rounded down
		{5 * time.Second, 0.001, false, 5 * time.Second},
		{10 * time.Second, 0.2, true, 10 * time.Second * 8 / 12},
	} {
		p := testParams()
		p.LeaseSpan, p.Drift = tc.t, tc.drift
		if got := HoldSpan(p, tc.margin); got != tc.want {
			t.Errorf("HoldSpan(T=%v, ρ=%g, margin=%v) = %v, want %v", tc.t, tc.drift, tc.margin, got, tc.want)
		}
	}
	// The rule it relies on: the longest true time of the hold does not
	// exceed the shortest true time of an acceptor's grant.
	for _, rho := range []float64{1e-6, 1e-3, 0.01, 0.1, 0.49} {
		p := testParams()
		p.Drift = rho
		h := HoldSpan(p, true)
		if float64(h)/(1-rho) > float64(p.LeaseSpan)/(1+rho) {
			t.Errorf("ρ=%g: hold %v outlasts a fast acceptor's grant", rho, h)
		}
	}
	// The holder's acquired event carries it: testdata/naive-hold-span.txt.
}

// Parameter and configuration errors say what is wrong.
func TestConfigErrors(t *testing.T) {
	a, err := algorithms.Lookup("naive")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*algorithms.Config)
		want string
	}{
		{"T > M", func(c *algorithms.Config) { c.Params.LeaseSpan, c.Params.MaxLease = 20*time.Second, 10*time.Second },
			"lease span 20s must be shorter than max lease 10s"},
		{"T = M", func(c *algorithms.Config) { c.Params.LeaseSpan = c.Params.MaxLease }, "must be shorter than max lease"},
		{"zero acceptors", func(c *algorithms.Config) { c.Cluster = algorithms.NewCluster(0, 3) }, "at least 1 acceptor"},
		{"unknown ablation", func(c *algorithms.Config) { c.Ablations = algorithms.Ablations{"backoff"} }, `no ablation "backoff"`},
		{"negative backoff", func(c *algorithms.Config) { c.Params.Backoff = -1 }, "backoff"},
		{"zero rounds", func(c *algorithms.Config) { c.Params.MaxRounds = 0 }, "max rounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: algorithms.DefaultParams(),
				Rand: newRand()}
			tc.edit(&cfg)
			for _, e := range []error{
				a.ValidateConfig(cfg.Params, cfg.Cluster, cfg.Ablations),
				func() error { _, err := a.New(cfg); return err }(),
			} {
				if e == nil || !strings.Contains(e.Error(), tc.want) {
					t.Fatalf("error %v, want it to say %q", e, tc.want)
				}
			}
		})
	}
	cfg := algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: algorithms.DefaultParams()}
	if _, err := a.New(cfg); err == nil || !strings.Contains(err.Error(), "Rand") {
		t.Errorf("nil Rand: %v", err)
	}
	cfg.Rand, cfg.ID = newRand(), 3
	if _, err := a.New(cfg); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("id outside the cluster: %v", err)
	}
}

// Both variants are registered with the same ablations, in the registry's
// order.
func TestRegistered(t *testing.T) {
	for _, name := range []string{"naive", "naive-undo"} {
		a, err := algorithms.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Durable || a.Summary == "" || len(a.Ablations) != 5 {
			t.Fatalf("%s: %+v", name, a)
		}
		for _, ab := range a.Ablations {
			if ab.Rule == "" || ab.Breaks == "" {
				t.Fatalf("%s: ablation %q lacks rule or exposure", name, ab.Name)
			}
		}
		n, err := a.New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: algorithms.DefaultParams(), Rand: newRand()})
		if err != nil {
			t.Fatal(err)
		}
		if got := n.(*Node).undo; got != (name == "naive-undo") {
			t.Fatalf("%s: undo = %v", name, got)
		}
	}
}

// single steps one node, node 0 of its cluster, directly: no network. What
// it sends waits in sent; flush delivers its messages to itself until none
// is left (in a one-acceptor cluster node 0 is the whole protocol). Tests
// of more than one node are scenario files (testdata/*.txt, with golden
// transcripts checked by cmd/leaselab's TestGolden).
type single struct {
	t      *testing.T
	n      *Node
	now    algorithms.Local
	sent   []algorithms.Message
	events []algorithms.Event
	timers map[algorithms.TimerKey]algorithms.Local
	out    algorithms.Output
}

func newSingle(t *testing.T, acceptors, proposers int, ablate algorithms.Ablations) *single {
	t.Helper()
	n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(acceptors, proposers), Params: testParams(), Ablations: ablate, Rand: newRand()}, Options{})
	s := &single{t: t, n: n, timers: map[algorithms.TimerKey]algorithms.Local{}}
	s.step(algorithms.Input{Kind: algorithms.Start})
	return s
}

func (s *single) step(in algorithms.Input) {
	s.out.Reset()
	s.n.Step(s.now, in, &s.out)
	for _, tm := range s.out.Timers {
		if tm.Cancel {
			delete(s.timers, tm.Key)
		} else {
			s.timers[tm.Key] = tm.At
		}
	}
	s.sent = append(s.sent, s.out.Msgs...)
	s.events = append(s.events, s.out.Events...)
}

func (s *single) recv(m algorithms.Message) { s.step(algorithms.Input{Kind: algorithms.Recv, Msg: m}) }

// take removes and returns the first sent message of kind k.
func (s *single) take(k algorithms.Kind) algorithms.Message {
	s.t.Helper()
	for j, m := range s.sent {
		if m.Kind == k {
			s.sent = append(s.sent[:j], s.sent[j+1:]...)
			return m
		}
	}
	s.t.Fatalf("no %v sent: %v", k, s.sent)
	return algorithms.Message{}
}

// flush delivers the node's messages to itself, in order, until none is
// left; messages to other nodes are dropped.
func (s *single) flush() {
	for len(s.sent) > 0 {
		m := s.sent[0]
		s.sent = s.sent[1:]
		if m.To == 0 {
			s.recv(m)
		}
	}
}

// grant returns the node's grant on res (owner NoNode if none).
func (s *single) grant() grant {
	g, ok := s.n.grantOf(res)
	if !ok {
		return grant{owner: algorithms.NoNode}
	}
	return g
}

// testParams: T = 5s, M = 7s, no drift, timeout 1s, 3 rounds, no backoff
// (the params line of the scenario files in testdata).
func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	p.LeaseSpan = 5 * time.Second
	p.MaxLease = 7 * time.Second
	p.Drift = 0
	p.ResponseTimeout = time.Second
	p.MaxRounds = 3
	p.Backoff = 0
	return p
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// A round goes on while a majority can still grant: with 3 acceptors one
// deny leaves two possible grants, which win it; only a second deny ends
// it. (Giving up at the first deny is no safety bug, the battery cannot
// see it; a mutation sample found that nothing else did.)
func TestRoundOutlivesMinorityDeny(t *testing.T) {
	c := newSingle(t, 3, 1, nil)
	c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
	b := c.n.prop(res).ballot
	c.events = nil // the round's own
	ended := func() bool {
		for _, e := range c.events {
			if e.Kind == algorithms.Failed || e.Kind == algorithms.Preempted {
				return true
			}
		}
		return false
	}
	answer := func(k algorithms.Kind, from algorithms.NodeID) {
		m := algorithms.Message{Kind: k, From: from, To: 0, Owner: 0, Resource: res, Ballot: b, Span: int64(testParams().LeaseSpan)}
		if k == algorithms.Deny {
			m.Owner = 2
		}
		c.recv(m)
	}
	answer(algorithms.Deny, 1)
	if p := c.n.prop(res); p == nil || p.phase != collecting || ended() {
		t.Fatalf("one deny of three ended the round: events %v", c.events)
	}
	answer(algorithms.Grant, 0)
	answer(algorithms.Grant, 2)
	if p := c.n.prop(res); ended() || p == nil || !p.holding {
		t.Fatalf("two grants of three after a deny: events %v, proposal %+v; want a hold", c.events, p)
	}
}

// A release during the restart silence withdraws that resource's deferred
// acquisition and no other.
func TestReleaseWhileSilentWithdrawsItsOwn(t *testing.T) {
	n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 2), Params: testParams(), Rand: newRand(), Restarts: 1}, Options{})
	var out algorithms.Output
	step := func(in algorithms.Input) { out.Reset(); n.Step(0, in, &out) }
	step(algorithms.Input{Kind: algorithms.Start})
	for _, r := range []algorithms.ResourceID{4, 5, 6} {
		step(algorithms.Input{Kind: algorithms.Acquire, Resource: r})
	}
	step(algorithms.Input{Kind: algorithms.Relinquish, Resource: 5})
	if want := []algorithms.ResourceID{4, 6}; !slices.Equal(n.deferred, want) {
		t.Fatalf("deferred %v after releasing 5, want %v", n.deferred, want)
	}
}

// A proposal whose hold ended and that tries nothing is forgotten (idle
// resources cost nothing), and one still trying is kept.
func TestHoldEndForgetsIdleProposal(t *testing.T) {
	c := newSingle(t, 1, 2, nil)
	c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
	c.flush()
	if p := c.n.prop(res); p == nil || !p.holding {
		t.Fatalf("no hold after the only acceptor granted: %+v", p)
	}
	c.step(algorithms.Input{Kind: algorithms.Fire, Timer: algorithms.TimerKey{Resource: res, Kind: timerHold}})
	if p := c.n.prop(res); p != nil {
		t.Fatalf("the proposal outlived its hold: %+v", p)
	}
	c.step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
	c.step(algorithms.Input{Kind: algorithms.Fire, Timer: algorithms.TimerKey{Resource: res, Kind: timerHold}})
	if p := c.n.prop(res); p == nil || p.phase != collecting {
		t.Fatalf("a stale hold timer dropped a round in progress: %+v", p)
	}
}

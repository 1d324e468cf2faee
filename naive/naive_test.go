package naive

import (
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res algorithms.ResourceID = 7

// A proposer asks every acceptor, each grants and starts its own timer,
// and the second distinct grant makes the majority: the proposer holds
// from its send until the hold span has passed on its own clock.
func TestAcquireMessageByMessage(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 1})
	c.advance(10 * time.Millisecond)
	c.acquire(0, res)
	rounds := c.evs(0, algorithms.Round)
	if len(rounds) != 1 || c.count(algorithms.Request) != 3 {
		t.Fatalf("want one round and 3 requests, got %v and %v", rounds, c.flight)
	}
	b := rounds[0].Ballot
	if b.Node() != 0 || b.Restart() != 0 || b.Round() != 1 {
		t.Fatalf("round ballot %v", b)
	}
	if !c.hasTimer(0, res, timerProposer) {
		t.Fatal("no response timeout set")
	}

	c.advance(time.Millisecond) // requests take 1 ms to arrive
	m := c.deliver(algorithms.Request, 0, 1)
	if m.Span != int64(5*time.Second) || m.Owner != 0 || m.Flags != 0 {
		t.Fatalf("request %v", m)
	}
	g := c.evs(1, algorithms.Granted)
	if len(g) != 1 || g[0].Owner != 0 || g[0].Ballot != b || g[0].Until != c.clock[1].Add(5*time.Second) {
		t.Fatalf("acceptor 1 granted %v", g)
	}
	if !c.hasTimer(1, res, timerGrant) {
		t.Fatal("acceptor 1 did not start its timer")
	}
	c.deliver(algorithms.Request, 0, 2)
	c.deliver(algorithms.Grant, 1, 0)
	if len(c.evs(0, algorithms.Acquired)) != 0 {
		t.Fatal("acquired with one grant of three")
	}
	c.deliver(algorithms.Grant, 2, 0)
	acq := c.evs(0, algorithms.Acquired)
	if len(acq) != 1 || acq[0].Ballot != b || acq[0].Until != algorithms.Local(10*time.Millisecond).Add(5*time.Second) {
		t.Fatalf("acquired %v, want until send+T", acq)
	}
	if c.hasTimer(0, res, timerProposer) {
		t.Fatal("response timeout still set after the majority")
	}
	// The late third request is still granted: acceptor 0 was empty.
	c.deliver(algorithms.Request, 0, 0)
	if got := c.grantOf(0, res); got.owner != 0 || got.ballot != b {
		t.Fatalf("acceptor 0 state %+v", got)
	}
}

// An acceptor whose state is not empty denies, names the owner of its
// grant, and keeps the grant; enough denies end the round.
func TestDeny(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 2})
	c.acquire(0, res)
	c.flush()
	if len(c.evs(0, algorithms.Acquired)) != 1 {
		t.Fatal("node 0 did not acquire")
	}
	c.acquire(1, res)
	b1 := c.evs(1, algorithms.Round)[0].Ballot
	for a := 0; a < 3; a++ {
		c.deliver(algorithms.Request, 1, a)
	}
	for a := 0; a < 3; a++ {
		d := c.take(algorithms.Deny, a, 1)
		if d.Owner != 0 || d.Ballot != b1 {
			t.Fatalf("deny %v: want owner n0 and the request's ballot", d)
		}
		if got := c.grantOf(a, res); got.owner != 0 {
			t.Fatalf("acceptor %d lost node 0's grant: %+v", a, got)
		}
		if len(c.evs(a, algorithms.Cleared)) != 0 {
			t.Fatalf("acceptor %d cleared", a)
		}
		c.send(d)
		pre := c.evs(1, algorithms.Preempted)
		// Majority 2 of 3: the second deny makes a majority unreachable.
		if want := map[int]int{0: 0, 1: 1, 2: 1}[a]; len(pre) != want {
			t.Fatalf("after %d denies: %d preempted events, want %d", a+1, len(pre), want)
		}
		if a == 1 && pre[0].Owner != 0 {
			t.Fatalf("preempted %+v should name owner n0", pre[0])
		}
	}
	if len(c.evs(1, algorithms.Round)) != 2 {
		t.Fatal("node 1 did not retry (backoff 0) after its round failed")
	}
}

// Grants are counted by distinct acceptor; duplicated grants of one
// acceptor never make a majority. The count-by-message ablation shows
// why the rule exists.
func TestMajorityByDistinctAcceptor(t *testing.T) {
	for _, tc := range []struct {
		name      string
		acceptors int
		ablate    algorithms.Ablations
		dups      int // copies of acceptor 0's grant delivered
		want      bool
	}{
		{"one grant", 3, nil, 1, false},
		{"one grant thrice", 3, nil, 3, false},
		{"one grant twice of five", 5, nil, 2, false},
		{"one grant five times of five", 5, nil, 5, false},
		{"ablated: one grant twice", 3, algorithms.Ablations{AblCountByMessage}, 2, true},
		{"ablated: one grant once", 3, algorithms.Ablations{AblCountByMessage}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, opts{acceptors: tc.acceptors, proposers: 1, ablate: tc.ablate})
			c.acquire(0, res)
			c.deliver(algorithms.Request, 0, 0)
			g := c.take(algorithms.Grant, 0, 0)
			for i := 0; i < tc.dups; i++ {
				c.send(g)
			}
			if got := len(c.evs(0, algorithms.Acquired)) == 1; got != tc.want {
				t.Fatalf("acquired = %v, want %v", got, tc.want)
			}
		})
	}
}

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
			c := newCluster(t, opts{acceptors: 1, proposers: 1})
			req := algorithms.Message{Kind: algorithms.Request, From: 0, To: 0, Owner: 0, Resource: res,
				Ballot: algorithms.MakeBallot(1, 0, 0), Span: int64(5 * time.Second)}
			c.send(req)
			c.take(algorithms.Grant, 0, 0)
			first := c.grantOf(0, res)
			c.advance(time.Second)
			second := req
			second.Flags = tc.flags
			if tc.later {
				second.Ballot = algorithms.MakeBallot(2, 0, 0)
			}
			c.send(second)
			ans := c.flight[0]
			if ans.Kind != tc.wantKind || ans.Ballot != second.Ballot {
				t.Fatalf("answer %v, want %v for %v", ans, tc.wantKind, second.Ballot)
			}
			g := c.grantOf(0, res)
			want := map[string]algorithms.Ballot{"first": req.Ballot, "second": second.Ballot}[tc.wantBallot]
			if g.owner != 0 || g.ballot != want {
				t.Fatalf("grant %+v, want ballot %v", g, want)
			}
			if moved := g.until != first.until; moved != tc.wantMoved {
				t.Fatalf("timer moved = %v, want %v", moved, tc.wantMoved)
			}
			if tc.wantMoved && c.timers[0][algorithms.TimerKey{Resource: res, Kind: timerGrant}] != g.until {
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
			c := newCluster(t, opts{acceptors: 3, proposers: 3})
			m := ok
			tc.edit(&m)
			c.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: m})
			if len(c.flight) != 0 || c.grantOf(0, res).owner != algorithms.NoNode {
				t.Fatalf("answered %v / granted %+v", c.flight, c.grantOf(0, res))
			}
		})
	}
}

// The static deadlock of the paper's Sec. 1: three proposers, three
// acceptors, each acceptor granted a different proposer. Nobody has a
// majority, every retry is denied (even by the acceptor that granted the
// retrying proposer), and all wait until the acceptors' timers fire.
func TestStaticDeadlock(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 3})
	for p := 0; p < 3; p++ {
		c.acquire(p, res)
	}
	for a := 0; a < 3; a++ {
		c.deliver(algorithms.Request, a, a) // acceptor a hears proposer a first
	}
	first := make([]grant, 3)
	for a := range first {
		first[a] = c.grantOf(a, res)
		if first[a].owner != algorithms.NodeID(a) {
			t.Fatalf("acceptor %d granted %v", a, first[a].owner)
		}
	}
	c.flush() // every answer and every retry, until all give up
	for p := 0; p < 3; p++ {
		if n := len(c.evs(p, algorithms.Acquired)); n != 0 {
			t.Fatalf("proposer %d acquired in a static deadlock", p)
		}
		if n := len(c.evs(p, algorithms.Preempted)); n != 3 {
			t.Fatalf("proposer %d: %d failed rounds, want MaxRounds = 3", p, n)
		}
		if n := len(c.evs(p, algorithms.Failed)); n != 1 {
			t.Fatalf("proposer %d: %d Failed events", p, n)
		}
	}
	for a := 0; a < 3; a++ {
		if g := c.grantOf(a, res); g != first[a] {
			t.Fatalf("acceptor %d's grant changed while deadlocked: %+v -> %+v", a, first[a], g)
		}
	}
	// The deadlock ends only when the acceptors' timers fire.
	for a := 0; a < 3; a++ {
		c.fire(a, res, timerGrant)
		if cl := c.evs(a, algorithms.Cleared); len(cl) != 1 || cl[0].Owner != algorithms.NodeID(a) {
			t.Fatalf("acceptor %d cleared %v", a, cl)
		}
	}
	c.acquire(1, res)
	c.flush()
	if len(c.evs(1, algorithms.Acquired)) != 1 {
		t.Fatal("no acquisition after the grants expired")
	}
}

// With undo the same interleaving does not stay blocked: each proposer
// gives back its grant when its round fails, and the retry whose random
// backoff ends first wins, long before any acceptor timer fires. (Without
// backoff, symmetric delivery makes undo itself a livelock: all release,
// all retry at once, all split the acceptors again.)
func TestUndoBreaksStaticDeadlock(t *testing.T) {
	p := testParams()
	p.Backoff = 100 * time.Millisecond
	c := newCluster(t, opts{acceptors: 3, proposers: 3, undo: true, params: p})
	for p := 0; p < 3; p++ {
		c.acquire(p, res)
	}
	for a := 0; a < 3; a++ {
		c.deliver(algorithms.Request, a, a)
	}
	c.flush() // answers, then each proposer's undo
	for a := 0; a < 3; a++ {
		if g := c.grantOf(a, res); g.owner != algorithms.NoNode {
			t.Fatalf("acceptor %d still grants %+v after undo", a, g)
		}
	}
	won := 0
	for step := 0; won == 0 && step < 20; step++ {
		next, at := -1, algorithms.Local(0)
		for i := 0; i < 3; i++ {
			if d, ok := c.timers[i][algorithms.TimerKey{Resource: res, Kind: timerProposer}]; ok && (next < 0 || d < at) {
				next, at = i, d
			}
		}
		if next < 0 {
			break
		}
		c.fire(next, res, timerProposer)
		c.flush()
		for i := 0; i < 3; i++ {
			won += len(c.evs(i, algorithms.Acquired))
		}
	}
	if won != 1 || len(c.holders(res)) != 1 {
		t.Fatalf("%d acquisitions, holders %v; want exactly one", won, c.holders(res))
	}
	for i := 0; i < 3; i++ {
		if c.clock[i] >= algorithms.Local(p.LeaseSpan) {
			t.Fatalf("node %d reached %v: the deadlock lasted until the grants expired", i, c.clock[i])
		}
	}
}

// A failed round's partial grants: naive leaves them until they expire;
// naive-undo releases them, and only them.
func TestUndoFreesGrants(t *testing.T) {
	for _, undo := range []bool{false, true} {
		name := map[bool]string{false: "naive", true: "naive-undo"}[undo]
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, opts{acceptors: 3, proposers: 2, undo: undo})
			c.acquire(0, res)
			c.acquire(1, res)
			c.deliver(algorithms.Request, 0, 0) // acceptor 0 grants node 0
			c.deliver(algorithms.Request, 1, 1) // acceptors 1, 2 grant node 1
			c.deliver(algorithms.Request, 1, 2)
			c.deliver(algorithms.Request, 0, 1) // denied
			c.deliver(algorithms.Request, 0, 2) // denied
			c.deliver(algorithms.Request, 1, 0) // denied
			c.deliver(algorithms.Grant, 0, 0)
			c.deliver(algorithms.Deny, 1, 0)
			c.deliver(algorithms.Deny, 2, 0) // node 0's round fails here
			if len(c.evs(0, algorithms.Preempted)) != 1 {
				t.Fatal("node 0's round did not fail")
			}
			rel := c.count(algorithms.Release)
			if undo && rel != 1 {
				t.Fatalf("undo sent %d releases, want 1 (to acceptor 0 only: 1 and 2 denied)", rel)
			}
			if !undo && rel != 0 {
				t.Fatalf("naive sent %d releases", rel)
			}
			if undo {
				c.deliver(algorithms.Release, 0, 0)
				if g := c.grantOf(0, res); g.owner != algorithms.NoNode {
					t.Fatalf("acceptor 0 still grants %+v after undo", g)
				}
				if len(c.evs(0, algorithms.Cleared)) != 1 {
					t.Fatal("no Cleared event on undo")
				}
			} else if g := c.grantOf(0, res); g.owner != 0 {
				t.Fatalf("acceptor 0 lost node 0's grant without undo: %+v", g)
			}
			// Node 1 is unaffected either way.
			c.deliver(algorithms.Grant, 1, 1)
			c.deliver(algorithms.Grant, 2, 1)
			if len(c.evs(1, algorithms.Acquired)) != 1 {
				t.Fatal("node 1 did not acquire")
			}
		})
	}
}

// With undo, a grant that arrives after its round timed out is released
// at once: the proposer no longer uses that round.
func TestUndoReleasesLateGrant(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 1, undo: true, params: func() algorithms.Params {
		p := testParams()
		p.Backoff = 50 * time.Millisecond
		return p
	}()})
	c.acquire(0, res)
	late := c.take(algorithms.Request, 0, 0)
	c.drop()
	c.fire(0, res, timerProposer) // round times out; undo releases to all 3
	if len(c.evs(0, algorithms.Timeout)) != 1 || c.count(algorithms.Release) != 3 {
		t.Fatalf("timeout events %v, in flight %v", c.evs(0, algorithms.Timeout), c.flight)
	}
	c.drop()     // the releases are lost
	c.send(late) // and the request arrives after them
	c.deliver(algorithms.Grant, 0, 0)
	rel := c.take(algorithms.Release, 0, 0)
	if rel.Ballot != late.Ballot || rel.Owner != 0 {
		t.Fatalf("release %v, want round %v", rel, late.Ballot)
	}
	c.send(rel)
	if g := c.grantOf(0, res); g.owner != algorithms.NoNode {
		t.Fatalf("late grant not undone: %+v", g)
	}
}

// Undo never takes a grant from under the proposer's own hold: a failed
// extension round may have renewed (and so renamed) the grants the hold
// stands on.
func TestUndoKeepsGrantsBehindHold(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 2, undo: true})
	c.acquire(0, res)
	c.deliver(algorithms.Request, 0, 0)
	c.deliver(algorithms.Request, 0, 1)
	c.deliver(algorithms.Grant, 0, 0)
	c.deliver(algorithms.Grant, 1, 0)
	if len(c.evs(0, algorithms.Acquired)) != 1 {
		t.Fatal("node 0 did not acquire")
	}
	c.drop()
	c.acquire(1, res)
	c.deliver(algorithms.Request, 1, 2) // acceptor 2 grants node 1
	c.drop()
	c.advance(time.Second)
	c.step(0, algorithms.Input{Kind: algorithms.Extend, Resource: res})
	ext := c.evs(0, algorithms.Round)[1].Ballot
	c.deliver(algorithms.Request, 0, 0) // renewed to the extension's round
	if g := c.grantOf(0, res); g.ballot != ext {
		t.Fatalf("acceptor 0 not renewed: %+v", g)
	}
	c.take(algorithms.Request, 0, 1) // lost
	c.deliver(algorithms.Request, 0, 2)
	c.deliver(algorithms.Deny, 2, 0)
	grant0 := c.take(algorithms.Grant, 0, 0) // delayed past the timeout
	c.fire(0, res, timerProposer)
	if len(c.evs(0, algorithms.Timeout)) != 1 {
		t.Fatal("extension round did not time out")
	}
	c.send(grant0)
	if n := c.count(algorithms.Release); n != 0 {
		t.Fatalf("undo released a round under its own hold: %v", c.flight)
	}
	if len(c.holders(res)) != 1 || c.grantOf(0, res).owner != 0 {
		t.Fatal("hold or its grant lost")
	}
}

// An acceptor clears its grant when its own timer fires, and then grants
// again.
func TestExpiryClears(t *testing.T) {
	c := newCluster(t, opts{acceptors: 1, proposers: 2})
	c.acquire(0, res)
	c.flush()
	c.fire(0, res, timerGrant)
	cl := c.evs(0, algorithms.Cleared)
	if len(cl) != 1 || cl[0].Owner != 0 || c.grantOf(0, res).owner != algorithms.NoNode {
		t.Fatalf("cleared %v, state %+v", cl, c.grantOf(0, res))
	}
	if c.clock[0] != algorithms.Local(5*time.Second) {
		t.Fatalf("grant lapsed at %v, want T after receipt", c.clock[0])
	}
	c.advance(time.Millisecond)
	c.acquire(1, res)
	c.flush()
	if len(c.evs(1, algorithms.Acquired)) != 1 {
		t.Fatal("no grant after expiry")
	}
}

// Release clears only a grant of that exact owner and round.
func TestRelease(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ablate    algorithms.Ablations
		from      int
		round     int // offset added to the granted round's counter
		wantClear bool
	}{
		{"exact owner and round", nil, 0, 0, true},
		{"earlier round", nil, 0, -1, false},
		{"later round", nil, 0, 1, false},
		{"another owner", nil, 1, 0, false},
		{"ablated: earlier round", algorithms.Ablations{AblOwnerOnlyRelease}, 0, -1, true},
		{"ablated: another owner", algorithms.Ablations{AblOwnerOnlyRelease}, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, opts{acceptors: 1, proposers: 2, ablate: tc.ablate})
			c.acquire(0, res)
			c.acquire(0, res) // a second Acquire while trying is ignored
			c.flush()
			g := c.grantOf(0, res)
			b := algorithms.MakeBallot(uint32(int(g.ballot.Round())+tc.round), 0, algorithms.NodeID(tc.from))
			c.send(algorithms.Message{Kind: algorithms.Release, From: algorithms.NodeID(tc.from), To: 0,
				Owner: algorithms.NodeID(tc.from), Resource: res, Ballot: b})
			cleared := c.grantOf(0, res).owner == algorithms.NoNode
			if cleared != tc.wantClear {
				t.Fatalf("cleared = %v, want %v", cleared, tc.wantClear)
			}
			if cleared == c.hasTimer(0, res, timerGrant) {
				t.Fatal("grant timer not cancelled with the grant (or cancelled without)")
			}
		})
	}
}

// Relinquish: the holder stops believing (Lost) before its release leaves, and
// the release names the round of its hold.
func TestRelinquish(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 2})
	c.acquire(0, res)
	c.flush()
	b := c.evs(0, algorithms.Acquired)[0].Ballot
	c.step(0, algorithms.Input{Kind: algorithms.Relinquish, Resource: res})
	lost := c.evs(0, algorithms.Lost)
	if len(lost) != 1 || lost[0].Ballot != b || len(c.holders(res)) != 0 {
		t.Fatalf("lost %v, holders %v", lost, c.holders(res))
	}
	if c.count(algorithms.Release) != 3 {
		t.Fatalf("in flight %v", c.flight)
	}
	for a := 0; a < 3; a++ {
		if m := c.deliver(algorithms.Release, 0, a); m.Ballot != b {
			t.Fatalf("release of %v, hold was %v", m.Ballot, b)
		}
	}
	if c.hasTimer(0, res, timerHold) || len(c.nodes[0].props) != 0 {
		t.Fatal("holder kept state after giving up")
	}
	c.acquire(1, res)
	c.flush()
	if len(c.evs(1, algorithms.Acquired)) != 1 {
		t.Fatal("released lease not acquired by the next proposer")
	}
}

// The holder extends: acceptors renew its own grants and it holds until
// the extension round's send plus the hold span; a non-holder cannot
// extend.
func TestExtend(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 2})
	c.step(1, algorithms.Input{Kind: algorithms.Extend, Resource: res})
	if len(c.evs(1, algorithms.Failed)) != 1 || len(c.flight) != 0 {
		t.Fatal("a non-holder's extension was not refused")
	}
	c.acquire(0, res)
	c.flush()
	first := c.evs(0, algorithms.Acquired)[0]
	c.advance(3 * time.Second)
	c.step(0, algorithms.Input{Kind: algorithms.Extend, Resource: res})
	for _, m := range c.flight {
		if m.Flags&FlagExtend == 0 {
			t.Fatalf("extension request without the flag: %v", m)
		}
	}
	if len(c.holders(res)) != 1 {
		t.Fatal("holder stopped holding while extending")
	}
	c.flush()
	acq := c.evs(0, algorithms.Acquired)
	if len(acq) != 2 || acq[1].Until != algorithms.Local(3*time.Second).Add(5*time.Second) || acq[1].Until <= first.Until {
		t.Fatalf("extension acquired %v", acq)
	}
	for a := 0; a < 3; a++ {
		if g := c.grantOf(a, res); g.ballot != acq[1].Ballot || g.until != algorithms.Local(8*time.Second) {
			t.Fatalf("acceptor %d not renewed: %+v", a, g)
		}
	}
	// Past the first hold's end the lease is still held.
	c.advance(3 * time.Second)
	if h := c.holders(res); len(h) != 1 || h[0] != 0 {
		t.Fatalf("holders after the first hold's end: %v", h)
	}
}

// A round that gets no majority within the response timeout emits Timeout,
// retries after a backoff drawn in [0, Backoff], and gives up (Failed)
// after MaxRounds failed rounds.
func TestTimeoutBackoffAndFailure(t *testing.T) {
	p := testParams()
	p.Backoff = 100 * time.Millisecond
	p.MaxRounds = 4
	c := newCluster(t, opts{acceptors: 3, proposers: 1, params: p})
	c.acquire(0, res)
	for round := 1; round <= 4; round++ {
		if n := len(c.evs(0, algorithms.Round)); n != round {
			t.Fatalf("%d rounds started, want %d", n, round)
		}
		c.drop()
		start := c.clock[0]
		c.fire(0, res, timerProposer)
		if c.clock[0] != start.Add(time.Second) {
			t.Fatalf("timeout after %v", c.clock[0].Sub(start))
		}
		if n := len(c.evs(0, algorithms.Timeout)); n != round {
			t.Fatalf("%d timeouts after round %d", n, round)
		}
		if round == 4 {
			break
		}
		if len(c.evs(0, algorithms.Round)) == round { // waiting: backoff > 0
			at := c.timers[0][algorithms.TimerKey{Resource: res, Kind: timerProposer}]
			if w := at.Sub(c.clock[0]); w < 0 || w > p.Backoff {
				t.Fatalf("backoff %v outside [0, %v]", w, p.Backoff)
			}
			c.fire(0, res, timerProposer)
		}
	}
	if len(c.evs(0, algorithms.Failed)) != 1 {
		t.Fatal("no Failed after MaxRounds")
	}
	if len(c.timers[0]) != 0 || len(c.nodes[0].props) != 0 {
		t.Fatalf("state left after giving up: timers %v", c.timers[0])
	}
}

// A majority that arrives after the hold would already have ended gives no
// hold: the grants behind it may be lapsing.
func TestLateMajorityHoldsNothing(t *testing.T) {
	c := newCluster(t, opts{acceptors: 3, proposers: 1})
	c.acquire(0, res)
	for a := 0; a < 3; a++ {
		c.deliver(algorithms.Request, 0, a)
	}
	c.advance(6 * time.Second)
	c.deliver(algorithms.Grant, 0, 0)
	c.deliver(algorithms.Grant, 1, 0)
	if len(c.evs(0, algorithms.Acquired)) != 0 || len(c.evs(0, algorithms.Timeout)) != 1 {
		t.Fatalf("events %v", c.events[0])
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
	// And the holder's Acquired carries it.
	p := testParams()
	p.Drift = 0.001
	c := newCluster(t, opts{acceptors: 1, proposers: 1, params: p})
	c.acquire(0, res)
	c.flush()
	if acq := c.evs(0, algorithms.Acquired); len(acq) != 1 || acq[0].Until != algorithms.Local(4990009990) {
		t.Fatalf("acquired %v", acq)
	}
}

// A restarted node stays silent for M — no answer, no proposal — then
// emits Joined; acquisitions asked for meanwhile start then. Ablated, it
// answers at once.
func TestRestartSilence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ablate algorithms.Ablations
		silent bool
	}{
		{"restart-wait", nil, true},
		{"ablated", algorithms.Ablations{AblRestartWait}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, opts{acceptors: 3, proposers: 3, ablate: tc.ablate})
			c.acquire(1, res)
			c.flush()
			c.clearEvents()
			c.advance(time.Second)
			c.restart(0, 1) // node 0 forgot its grant to node 1
			if tc.silent == (len(c.evs(0, algorithms.Joined)) == 1) {
				t.Fatalf("joined at restart: %v", c.events[0])
			}
			c.acquire(2, res)
			c.acquire(0, res) // node 0 wants the lease too
			c.deliver(algorithms.Request, 2, 0)
			answered := c.count(algorithms.Grant) + c.count(algorithms.Deny)
			if tc.silent {
				if answered != 0 || len(c.evs(0, algorithms.Round)) != 0 || c.count(algorithms.Request) != 2 {
					t.Fatalf("silent node acted: %v / %v", c.flight, c.events[0])
				}
				if at := c.timers[0][algorithms.TimerKey{Kind: timerQuarantine}]; at != c.clock[0].Add(7*time.Second) {
					t.Fatalf("silence ends at %v", at)
				}
				c.drop()
				c.fire(0, 0, timerQuarantine)
				if len(c.evs(0, algorithms.Joined)) != 1 {
					t.Fatal("no Joined after M")
				}
				r := c.evs(0, algorithms.Round)
				if len(r) != 1 || r[0].Ballot.Restart() != 1 {
					t.Fatalf("deferred acquisition: rounds %v", r)
				}
				return
			}
			// Rejoined at once: it grants node 2 although node 1 may still
			// hold on the grant it forgot. Node 2 wins with one more.
			if c.take(algorithms.Grant, 0, 2).Owner != 2 {
				t.Fatal("no grant")
			}
			if len(c.evs(0, algorithms.Round)) != 1 {
				t.Fatal("restarted proposer did not propose at once")
			}
		})
	}
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
		if a.Durable || a.Summary == "" || len(a.Ablations) != 4 {
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

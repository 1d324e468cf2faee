package fatlease

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

const res0 = algorithms.ResourceID(7)

// acquire makes node i acquire res0 on a quiet network and returns the
// Until of its Acquired.
func (c *tnet) acquire(i int) algorithms.Local {
	c.t.Helper()
	c.input(i, algorithms.Acquire, res0)
	c.deliverAll()
	acq := c.eventsOf(i, algorithms.Acquired)
	if len(acq) == 0 {
		c.t.Fatalf("node %d did not acquire", i)
	}
	return acq[len(acq)-1].Until
}

func TestValidateParams(t *testing.T) {
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

func TestAcquire(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	start := c.local(0)
	until := c.acquire(0)
	want := start.Add(c.p.LeaseSpan) - algorithms.Local(c.nodes[0].n.holdMargin)
	if until != want {
		t.Fatalf("Until = %d, want start+v-margin = %d", until, want)
	}
	if got := c.eventsOf(0, algorithms.Round); len(got) != 1 {
		t.Fatalf("rounds = %d, want 1", len(got))
	}
	// Every node learned instance 1 = (n0, start+v); acceptors granted it.
	for i := range c.nodes {
		st, owner, exp, inst := c.nodes[i].n.Local(res0, c.local(i))
		if owner != 0 || exp != start.Add(c.p.LeaseSpan) || inst != 1 || st != Valid {
			t.Errorf("node %d: %v owner=%s exp=%d inst=%d", i, st, owner, exp, inst)
		}
		if g := c.eventsOf(i, algorithms.Granted); len(g) != 1 || g[0].Owner != 0 {
			t.Errorf("node %d: granted events %v", i, g)
		}
	}
	// Learn went to every other node: 2 prepares, 2 promises, 2 proposes,
	// 2 accepted, 2 learns (the local acceptor answers without a message).
	if len(c.sent) != 10 {
		t.Errorf("messages = %d, want 10", len(c.sent))
	}
}

func TestVotesCountedByDistinctAcceptor(t *testing.T) {
	c := newNet(t, 5, 1, Options{})
	c.input(0, algorithms.Acquire, res0)
	// Acceptor 1's promise arrives three times; with the local acceptor
	// that is 2 distinct of 5, not a majority.
	c.deliver(kind(algorithms.Prepare))
	c.drop(not(from(1)))
	dup := c.queue[0]
	c.queue = append(c.queue, dup, dup)
	c.deliverAll()
	if len(c.eventsOf(0, algorithms.Acquired)) != 0 {
		t.Fatal("duplicated promises made a majority")
	}
	for _, m := range c.sent {
		if m.Kind == algorithms.Propose {
			t.Fatalf("proposed without a majority: %v", m)
		}
	}
}

func TestLocalStateValidSafetyOutdated(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	start := c.local(0)
	c.acquire(0)
	tExp := start.Add(c.p.LeaseSpan)
	d := c.p.DMax
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
		if st, _, _, _ := c.nodes[0].n.Local(res0, tc.at); st != tc.owner {
			t.Errorf("owner at t%+v: %v, want %v", time.Duration(tc.at-tExp), st, tc.owner)
		}
		if st, _, _, _ := c.nodes[2].n.Local(res0, tc.at); st != tc.other {
			t.Errorf("other at t%+v: %v, want %v", time.Duration(tc.at-tExp), st, tc.other)
		}
	}
	// A node that wants the lease waits (timer at t + d_max + 1), it does
	// not propose during the safety period.
	c.clearEvents()
	c.input(2, algorithms.Acquire, res0)
	if r := c.eventsOf(2, algorithms.Round); len(r) != 0 {
		t.Fatalf("proposed while the lease is valid: %v", r)
	}
	if at := c.nodes[2].timers[algorithms.TimerKey{Resource: res0, Kind: timerRetry}]; at != tExp.Add(d)+1 {
		t.Fatalf("retry timer at %d, want t+d_max+1 = %d", at, tExp.Add(d)+1)
	}
	// Once it fires the lease is outdated: next instance.
	c.advance(time.Duration(tExp.Add(d)+1-c.local(2)) + time.Nanosecond)
	c.deliverAll()
	if !c.holding(2, res0) {
		t.Fatal("node 2 did not acquire after the lease ran out")
	}
	if cur, _ := c.nodes[2].n.Instance(res0); cur != 2 {
		t.Fatalf("node 2 in instance %d, want 2", cur)
	}
	if got := c.eventsOf(2, algorithms.Timeout); len(got) != 0 {
		t.Fatalf("waiting counted as timeouts: %v", got)
	}
}

// advanceInstances makes node 0 acquire and give up n times while node
// `left` hears nothing.
func (c *tnet) advanceInstances(n, left int) {
	c.t.Helper()
	for k := 0; k < n; k++ {
		c.input(0, algorithms.Acquire, res0)
		c.drop(touches(left))
		c.deliver(not(touches(left)))
		c.drop(touches(left))
		c.input(0, algorithms.Relinquish, res0)
		c.deliver(not(touches(left)))
		c.drop(touches(left))
	}
}

func TestOutdatedCatchUp(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.advanceInstances(3, 2) // nodes 0,1 go through instances 1..3 (now in 4)
	if cur, _ := c.nodes[1].n.Instance(res0); cur != 4 {
		t.Fatalf("node 1 in instance %d, want 4", cur)
	}
	// Node 0 acquires in 4 (node 2 still deaf), then node 2 wants it:
	// it proposes in instance 1, acceptors answer OUTDATED with instance
	// 4 and its chosen lease, and node 2 learns it and waits.
	c.input(0, algorithms.Acquire, res0)
	c.drop(touches(2))
	c.deliver(not(touches(2)))
	c.drop(touches(2))
	acq := c.eventsOf(0, algorithms.Acquired)
	until := acq[len(acq)-1].Until
	c.input(2, algorithms.Acquire, res0)
	var first algorithms.Message
	for _, m := range c.queue {
		if m.From == 2 && m.Kind == algorithms.Prepare {
			first = m
			break
		}
	}
	if first.Instance != 1 {
		t.Fatalf("node 2's first prepare in instance %d, want 1", first.Instance)
	}
	c.deliverAll()
	var outdated int
	for _, m := range c.sent {
		if m.Kind == algorithms.Outdated && m.To == 2 && m.Instance == 4 && m.Flags&FlagChosen != 0 {
			outdated++
		}
	}
	if outdated == 0 {
		t.Fatal("no OUTDATED with the chosen lease reached node 2")
	}
	st, owner, _, inst := c.nodes[2].n.Local(res0, c.local(2))
	if inst != 4 || owner != 0 || st != Valid {
		t.Fatalf("node 2 after catch-up: %v owner=%s inst=%d", st, owner, inst)
	}
	if c.holding(2, res0) || !c.holding(0, res0) || c.local(0) >= until {
		t.Fatal("catch-up changed the owner")
	}
}

func TestOutdatedIncompleteCatchUpConsultsPrevious(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.advanceInstances(2, 2) // nodes 0,1 now in instance 3, nothing chosen there
	// Node 2 proposes in 1, learns only that instance 3 exists (no chosen
	// lease there): it must not propose in 3 before it knows 2's lease.
	// Instance 2's lease was invalidated by its holder, but node 2 never
	// heard: it consults instance 2 (previous), where acceptors report
	// the accepted lease, re-proposes it, learns it, and waits for it.
	c.input(2, algorithms.Acquire, res0)
	c.deliverAll()
	var insts []uint64
	for _, m := range c.sent {
		if m.From == 2 && m.Kind == algorithms.Prepare && (len(insts) == 0 || insts[len(insts)-1] != m.Instance) {
			insts = append(insts, m.Instance)
		}
	}
	if len(insts) < 2 || insts[0] != 1 || insts[1] != 2 {
		t.Fatalf("node 2 prepared in instances %v, want 1 then 2 (the previous of 3)", insts)
	}
	for _, m := range c.sent {
		if m.From == 2 && m.Kind == algorithms.Propose && m.Instance == 2 && m.Owner != 0 {
			t.Fatalf("node 2 proposed a new lease in the previous instance: %v", m)
		}
	}
}

func TestAdoptPreviouslyAccepted(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.input(0, algorithms.Acquire, res0)
	c.deliver(kind(algorithms.Prepare))
	c.deliver(kind(algorithms.Promise))
	// Node 0's Propose reaches acceptor 1 only; the answers are lost.
	c.drop(to(2))
	c.deliver(kind(algorithms.Propose))
	c.drop(kind(algorithms.Accepted))
	var own algorithms.Message
	for _, m := range c.sent {
		if m.Kind == algorithms.Propose {
			own = m
		}
	}
	// Node 2 prepares with a higher ballot: acceptor 1 reports node 0's
	// accepted lease, node 2 must propose that lease, not its own.
	c.input(2, algorithms.Acquire, res0)
	c.deliverAll()
	var adopted bool
	for _, m := range c.sent {
		if m.From == 2 && m.Kind == algorithms.Propose {
			if m.Owner != 0 || m.Expiry != own.Expiry {
				t.Fatalf("node 2 proposed %v, want node 0's lease exp=%d", m, own.Expiry)
			}
			adopted = true
		}
	}
	if !adopted {
		t.Fatal("node 2 never proposed")
	}
	// The adopted lease is node 0's: node 0 learns it and holds; node 2
	// does not.
	if !c.holding(0, res0) || c.holding(2, res0) {
		t.Fatalf("holders %v, want [0]", c.holders(res0))
	}
}

func TestRenewWithoutGap(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	until := c.acquire(0)
	c.input(1, algorithms.Acquire, res0) // a competitor that keeps trying
	for k := 0; k < 5; k++ {
		// Renew 1 s before the hold ends.
		c.run(time.Duration(until-c.local(0))-time.Second, 50*time.Millisecond)
		if !c.holding(0, res0) {
			t.Fatalf("renewal %d: node 0 lost the lease before renewing", k)
		}
		c.input(0, algorithms.Extend, res0)
		c.deliverAll()
		acq := c.eventsOf(0, algorithms.Acquired)
		next := acq[len(acq)-1].Until
		if next <= until {
			t.Fatalf("renewal %d: Until %d not later than %d", k, next, until)
		}
		until = next
		cur, _ := c.nodes[0].n.Instance(res0)
		if cur != uint64(k+2) {
			t.Fatalf("renewal %d in instance %d, want renew instance %d", k, cur, k+2)
		}
	}
	if lost := c.eventsOf(0, algorithms.Lost); len(lost) != 0 {
		t.Fatalf("holder lost the lease: %v", lost)
	}
	if acq := c.eventsOf(1, algorithms.Acquired); len(acq) != 0 {
		t.Fatalf("competitor acquired while the holder renewed: %v", acq)
	}
}

func TestNonOwnerCannotProposeInRenewInstance(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	// Node 2 misses instance 1 entirely.
	c.input(0, algorithms.Acquire, res0)
	c.drop(touches(2))
	c.deliver(not(touches(2)))
	c.drop(touches(2))
	if !c.holding(0, res0) {
		t.Fatal("setup: node 0 does not hold")
	}
	// Node 0 opens renew instance 2; only node 2 hears the prepare (so the
	// acceptors' check is not what stops node 2: node 2 itself must). A
	// moment passes first: an Extend at the instant the lease began is
	// done at once (testdata/one-acceptor-extend.txt).
	c.advance(time.Millisecond)
	c.input(0, algorithms.Extend, res0)
	c.deliver(to(2))
	c.drop(func(m algorithms.Message) bool { return m.From == 2 || m.From == 0 || m.To == 0 })
	if cur, prev := c.nodes[2].n.Instance(res0); cur != 2 || prev != 1 {
		t.Fatalf("node 2 in %d/%d, want 2/1", cur, prev)
	}
	// Node 2 wants the lease while node 0's lease in 1 is valid: it must
	// propose in 1 (to learn it), never in the incomplete instance 2.
	c.input(2, algorithms.Acquire, res0)
	c.deliver(func(m algorithms.Message) bool { return m.To != 0 && m.From != 0 })
	c.deliver(nil)
	for _, m := range c.sent {
		if m.From == 2 && (m.Kind == algorithms.Prepare || m.Kind == algorithms.Propose) && m.Instance == 2 {
			t.Fatalf("node 2 proposed in the renew instance: %v", m)
		}
	}
	st, owner, _, _ := c.nodes[2].n.Local(res0, c.local(2))
	_ = st
	if owner != 0 && c.holding(2, res0) {
		t.Fatal("node 2 got the lease")
	}
	if c.holding(2, res0) {
		t.Fatal("node 2 holds while node 0's lease is valid")
	}
}

func TestMissedPreviousBound(t *testing.T) {
	// A node that knows only an incomplete instance n and cannot learn
	// n-1 waits until since + v(1+ρ)/(1-ρ) + d_max, then proposes in n.
	c := newNet(t, 3, 3, Options{})
	nd := c.nodes[2].n
	r := nd.state(res0)
	r.advance(5, c.local(2))
	p := nd.newProp()
	p.triedPrev = 5
	inst, _, wait := nd.where(c.local(2), r, p)
	if inst != 0 || wait != c.local(2).Add(nd.missedFor) {
		t.Fatalf("where = %d wait %d, want a wait until %d", inst, wait, c.local(2).Add(nd.missedFor))
	}
	if inst, _, _ := nd.where(c.local(2).Add(nd.missedFor), r, p); inst != 5 {
		t.Fatalf("after the bound: instance %d, want 5", inst)
	}
}

func TestInvalidateThenQuickAcquire(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	until := c.acquire(0)
	c.input(1, algorithms.Acquire, res0)
	c.deliverAll()
	if len(c.eventsOf(1, algorithms.Round)) != 0 {
		t.Fatal("node 1 proposed while node 0 holds")
	}
	c.advance(time.Second)
	c.clearEvents()
	c.input(0, algorithms.Relinquish, res0)
	if lost := c.eventsOf(0, algorithms.Lost); len(lost) != 1 {
		t.Fatalf("holder did not emit Lost first: %v", c.nodes[0].events)
	}
	c.deliverAll()
	// Node 1 got the lease at once, in one negotiation, long before the
	// old lease would have run out.
	if !c.holding(1, res0) {
		t.Fatal("node 1 did not get the lease after the invalidation")
	}
	if r := c.eventsOf(1, algorithms.Round); len(r) != 1 {
		t.Fatalf("node 1 needed %d rounds, want 1", len(r))
	}
	if c.local(1) >= until || c.holding(0, res0) {
		t.Fatal("no quick hand-over")
	}
	if cur, _ := c.nodes[1].n.Instance(res0); cur != 2 {
		t.Fatalf("new lease in instance %d, want 2", cur)
	}
}

func TestRestartWait(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.acquire(0)
	c.crash(1)
	c.restart(1)
	nd := c.nodes[1]
	join := nd.timers[algorithms.TimerKey{Kind: timerJoin}]
	want := c.local(1).Add(nd.n.restartFor)
	if join != want || nd.n.restartFor < c.p.LeaseSpan+c.p.DMax {
		t.Fatalf("join timer at %d, want %d (>= v + d_max)", join, want)
	}
	// During the wait it answers nothing and believes nothing.
	c.queue = append(c.queue, algorithms.Message{Kind: algorithms.Prepare, From: 2, To: 1, Owner: 2, Resource: res0, Ballot: algorithms.MakeBallot(9, 0, 2), Instance: 1})
	before := len(c.sent)
	c.deliverAll()
	if len(c.sent) != before {
		t.Fatalf("a node in its restart wait answered: %v", c.sent[before:])
	}
	c.input(1, algorithms.Acquire, res0)
	if len(c.eventsOf(1, algorithms.Round)) != 0 {
		t.Fatal("proposed during the restart wait")
	}
	c.advance(nd.n.restartFor)
	if j := c.eventsOf(1, algorithms.Joined); len(j) != 1 {
		t.Fatalf("joined events %v", j)
	}
	// The request made during the wait goes ahead now.
	c.run(time.Second, 10*time.Millisecond)
	if !c.holding(1, res0) {
		t.Fatal("the request made during the wait was not served after joining")
	}
}

func TestRestartWaitAblatedJoinsAtOnce(t *testing.T) {
	c := newNet(t, 3, 3, Options{}, AblateRestartWait)
	c.crash(1)
	c.restart(1)
	if len(c.eventsOf(1, algorithms.Joined)) != 1 || c.nodes[1].n.joining {
		t.Fatal("restart-wait ablated: node did not join at once")
	}
}

// fig4 builds the scenario of Fig. 4: five hosts know instance 3 (node
// 0's lease, over by now); a majority (2,3,4) restarts with empty state,
// waits, and negotiates node 2's lease in instance 1 while cut off from
// 0 and 1; then node 0, which still knows instance 3, proposes in 4.
func fig4(t *testing.T, abl ...string) *tnet {
	c := newNet(t, 5, 5, Options{}, abl...)
	for k := 0; k < 2; k++ {
		c.acquire(0)
		c.input(0, algorithms.Relinquish, res0)
		c.deliverAll()
	}
	for _, i := range []int{2, 3, 4} {
		c.crash(i)
		c.restart(i)
	}
	c.advance(c.nodes[2].n.restartFor + time.Millisecond)
	for _, i := range []int{2, 3, 4} {
		if len(c.eventsOf(i, algorithms.Joined)) != 1 {
			t.Fatalf("node %d did not join", i)
		}
	}
	// Node 2 acquires in instance 1 among the restarted majority.
	c.input(2, algorithms.Acquire, res0)
	c.drop(touches(0, 1))
	c.deliver(within(2, 3, 4))
	c.drop(touches(0, 1))
	if !c.holding(2, res0) {
		t.Fatal("setup: node 2 did not get the lease in instance 1")
	}
	if cur, _ := c.nodes[2].n.Instance(res0); cur != 1 {
		t.Fatalf("setup: node 2 in instance %d", cur)
	}
	// The partition heals; node 0 (instance 3 known, its own old lease
	// over) wants the lease and proposes in instance 4.
	c.advance(time.Millisecond)
	c.input(0, algorithms.Acquire, res0)
	c.deliverAll()
	return c
}

func TestFig4PreviousInstanceCheck(t *testing.T) {
	c := fig4(t)
	if h := c.holders(res0); len(h) != 1 || h[0] != 2 {
		t.Fatalf("holders %v, want only node 2", h)
	}
	var lower int
	for _, m := range c.sent {
		if m.Kind == algorithms.Outdated && m.Flags&FlagLower != 0 && m.To == 0 && m.Instance == 1 {
			lower++
		}
	}
	if lower < 2 {
		t.Fatalf("%d Fig. 4 rejects reporting instance 1, want a majority's", lower)
	}
}

func TestFig4WithoutCheckTwoOwners(t *testing.T) {
	c := fig4(t, AblatePrevInstCheck)
	if h := c.holders(res0); len(h) != 2 {
		t.Fatalf("holders %v, want two owners without the previous-instance check", h)
	}
}

func TestSkewBeyondDmaxTwoOwners(t *testing.T) {
	// Nodes 1 and 2 run 3·d_max ahead of node 0: beyond the bound, FaTLease
	// cannot keep its invariant. Node 0 acquires; when nodes 1,2 think
	// node 0's lease is over, node 0 still holds.
	for _, tc := range []struct {
		skew time.Duration
		two  bool
	}{{3 * testParams().DMax, true}, {testParams().DMax / 2, false}} {
		c := newNet(t, 3, 3, Options{})
		c.nodes[1].offset, c.nodes[2].offset = tc.skew, tc.skew
		c.acquire(0)
		c.input(1, algorithms.Acquire, res0)
		two := false
		for c.now < 8*time.Second {
			c.deliverAll()
			c.advance(20 * time.Millisecond)
			if len(c.holders(res0)) > 1 {
				two = true
			}
		}
		if two != tc.two {
			t.Errorf("skew %v: two owners = %v, want %v", tc.skew, two, tc.two)
		}
	}
}

func TestSafetyPeriodAblated(t *testing.T) {
	// Node 1 runs 200 ms ahead (within d_max). With the safety period it
	// waits; without it, it treats the lease as over at t and overlaps.
	for _, tc := range []struct {
		abl []string
		two bool
	}{{nil, false}, {[]string{AblateSafetyPeriod}, true}} {
		c := newNet(t, 3, 3, Options{}, tc.abl...)
		c.nodes[1].offset, c.nodes[2].offset = 200*time.Millisecond, 200*time.Millisecond
		c.acquire(0)
		c.input(1, algorithms.Acquire, res0)
		two := false
		for k := 0; k < 400; k++ {
			c.deliverAll()
			c.advance(20 * time.Millisecond)
			if len(c.holders(res0)) > 1 {
				two = true
			}
		}
		if two != tc.two {
			t.Errorf("ablations %v: two owners = %v, want %v", tc.abl, two, tc.two)
		}
	}
}

func TestTimeoutsThenFailed(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.input(0, algorithms.Acquire, res0)
	for k := 0; k < 40 && len(c.eventsOf(0, algorithms.Failed)) == 0; k++ {
		c.drop(func(algorithms.Message) bool { return true }) // a dead network
		c.advance(500 * time.Millisecond)
	}
	if n := len(c.eventsOf(0, algorithms.Timeout)); n != c.p.MaxRounds {
		t.Fatalf("timeouts = %d, want MaxRounds = %d", n, c.p.MaxRounds)
	}
	if n := len(c.eventsOf(0, algorithms.Failed)); n != 1 {
		t.Fatalf("failed = %d, want 1", n)
	}
	if n := len(c.eventsOf(0, algorithms.Round)); n != c.p.MaxRounds {
		t.Fatalf("rounds = %d, want %d", n, c.p.MaxRounds)
	}
}

func TestPreemptedByHigherBallot(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	c.input(0, algorithms.Acquire, res0)
	c.input(1, algorithms.Acquire, res0)
	// Node 0's prepare (ballot 1.0.0, above node 1's first ballot 0.0.1)
	// reaches acceptor 2 first; node 1's prepare there is NACKed with the
	// higher promised ballot.
	c.deliver(func(m algorithms.Message) bool { return m.From == 0 && m.To == 2 })
	c.deliver(func(m algorithms.Message) bool { return m.From == 1 && m.To == 2 })
	c.deliver(func(m algorithms.Message) bool { return m.To == 1 && m.From == 2 })
	pre := c.eventsOf(1, algorithms.Preempted)
	if len(pre) != 1 || pre[0].Ballot.Node() != 0 {
		t.Fatalf("preempted events %v, want one naming node 0's ballot", pre)
	}
	// Both eventually settle on one owner.
	c.run(3*time.Second, 10*time.Millisecond)
	if h := c.holders(res0); len(h) != 1 {
		t.Fatalf("holders %v", h)
	}
}

func TestMalformedInputIgnored(t *testing.T) {
	c := newNet(t, 3, 3, Options{})
	for _, m := range []algorithms.Message{
		{Kind: algorithms.Kind(200), From: 1, To: 0},
		{Kind: algorithms.Promise, From: 99, To: 0, Resource: res0},
		{Kind: algorithms.Propose, From: 1, To: 0, Owner: algorithms.NoNode, Instance: 1},
		{Kind: algorithms.Learn, From: 1, To: 0, Owner: 77, Instance: 1},
		{Kind: algorithms.Prepare, From: 1, To: 2, Instance: 1}, // not for node 0
		{Kind: algorithms.Prepare, From: 1, To: 0, Instance: 0},
	} {
		c.step(0, algorithms.Input{Kind: algorithms.Recv, Msg: m})
	}
	if len(c.queue) > 1 {
		t.Fatalf("malformed input produced %v", c.queue)
	}
}

package paxoslease

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

func exploreSetup(ablate ...string) *explorabletest.Setup {
	p := testParams()
	return &explorabletest.Setup{
		Acceptors: 3, Proposers: 3, Params: p, Resources: 2,
		TimerKinds: []uint8{timerRound, timerAccepted, timerQuarantine},
		New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, _ []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
			return New(algorithms.Config{ID: id, Cluster: cl, Params: p, Ablations: ablate, Rand: r, Restarts: restarts}), nil
		},
	}
}

func TestExplorable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ablate []string
	}{
		{"paxoslease", nil},
		{"late-timer", []string{AblateLateTimer}},
		{"count-by-message", []string{AblateCountByMessage}},
		{"restart-wait", []string{AblateRestartWait}},
	} {
		t.Run(tc.name, func(t *testing.T) { explorabletest.Run(t, exploreSetup(tc.ablate...)) })
	}
}

const stateNow algorithms.Local = 10_000

// stateNode is a node with a little of everything, built by hand: an
// accepted proposal, a promise only, a held lease, a round in each phase.
func stateNode(t testing.TB) *Node {
	t.Helper()
	n := New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))})
	n.started, n.lastRound = true, 5
	s := n.res.put(4)
	s.promised, s.accepted, s.accUntil = algorithms.MakeBallot(3, 0, 2), algorithms.MakeBallot(3, 0, 2), 15_000
	n.res.put(6).promised = algorithms.MakeBallot(4, 0, 0)
	s = n.res.put(9)
	s.heldRound, s.until = 5, 14_000 // ballot 5.0.1: node 1's own
	n.rounds[6] = &round{ballot: algorithms.MakeBallot(5, 0, 1), deadline: 13_000, phase: phasePrepare}
	n.rounds[6].promised.Add(0)
	n.rounds[6].open.Add(0)
	n.rounds[7] = &round{ballot: algorithms.MakeBallot(4, 0, 1), phase: phaseWait, fails: 1, busy: true, learned: algorithms.MakeBallot(4, 0, 2)}
	return n
}

// TestStateSensitivity: changes that matter change the encoding; changes
// that cannot influence any future output do not.
func TestStateSensitivity(t *testing.T) {
	b9 := algorithms.MakeBallot(9, 0, 1)
	explorabletest.Sensitivity(t, stateNode, stateNow, []explorabletest.Change[*Node]{
		{"promise", func(n *Node) { n.res.get(6).promised = b9 }, true},
		{"promise on a new resource", func(n *Node) { n.res.put(11).promised = b9 }, true},
		{"accepted proposal", func(n *Node) { n.res.get(4).accepted = b9 }, true},
		{"accepted proposal on a promise", func(n *Node) { s := n.res.get(6); s.accepted, s.accUntil = s.promised, 12_000 }, true},
		{"acceptor expiry", func(n *Node) { n.res.get(4).accUntil++ }, true},
		{"acceptor expiry passed", func(n *Node) { n.res.get(4).accUntil = stateNow }, true},
		{"held lease", func(n *Node) { n.res.get(9).heldRound = b9.Round() }, true},
		{"held lease end", func(n *Node) { n.res.get(9).until-- }, true},
		{"held lease ended", func(n *Node) { n.res.get(9).until = stateNow }, true},
		{"quarantine", func(n *Node) { n.silent = true }, true},
		{"not started", func(n *Node) { n.started = false }, true},
		{"pending request", func(n *Node) { n.pending = []algorithms.ResourceID{7} }, true},
		{"run counter", func(n *Node) { n.lastRound++ }, true},
		{"restart counter", func(n *Node) { n.restarts++ }, true},
		{"round phase", func(n *Node) { n.rounds[6].phase = phasePropose }, true},
		{"round ballot", func(n *Node) { n.rounds[6].ballot = b9 }, true},
		{"round deadline", func(n *Node) { n.rounds[6].deadline++ }, true},
		{"round deadline unknown", func(n *Node) { n.rounds[6].deadline = 0 }, true},
		{"round promise", func(n *Node) { n.rounds[6].promised.Add(1) }, true},
		{"round open promise", func(n *Node) { n.rounds[6].promised.Add(1); n.rounds[6].open.Add(1) }, true},
		{"round reject", func(n *Node) { n.rounds[6].rejected.Add(2) }, true},
		{"round hint", func(n *Node) { n.rounds[6].hint = 1 }, true},
		{"round learned ballot", func(n *Node) { n.rounds[7].learned = b9 }, true},
		{"round failures", func(n *Node) { n.rounds[7].fails++ }, true},
		{"round busy", func(n *Node) { n.rounds[7].busy = false }, true},
		{"round queued", func(n *Node) { n.rounds[7].queued = true }, true},
		{"round ended", func(n *Node) { delete(n.rounds, 7) }, true},
		{"random source", func(n *Node) { n.rand = rand.New(rand.NewPCG(9, 9)) }, false},
		{"measured round trip", func(n *Node) { n.rtt = 5 }, true},
		{"round parked", func(n *Node) { n.rounds[7].parked = true }, true},
		{"parked round's votes", func(n *Node) { n.rounds[7].parked = true; n.rounds[7].open.Add(1) }, true},
		{"free list and peak", func(n *Node) { n.free = append(n.free, new(round)); n.roundsPeak = 99 }, false},
		{"an empty slot", func(n *Node) { n.res.put(12) }, false},
		{"stale vote sets between rounds", func(n *Node) { n.rounds[7].promised.Add(0); n.rounds[7].promised.Add(1); n.rounds[7].hint = 5 }, false},
	})
}

// TestPastExpiriesAlike: an acceptor expiry at or before now acts as
// over, whatever its value.
func TestPastExpiriesAlike(t *testing.T) {
	a, b := stateNode(t), stateNode(t)
	a.res.get(4).accUntil = stateNow - 2
	b.res.get(4).accUntil = stateNow - 1
	if !bytes.Equal(a.AppendState(nil, stateNow), b.AppendState(nil, stateNow)) {
		t.Fatal("two past acceptor expiries encode differently")
	}
}

// TestPastPrepareDeadlines: with Backoff > 0 a prepare phase's deadline
// is encoded exactly even when past, since the round trip is measured
// from it (prepareSent).
func TestPastPrepareDeadlines(t *testing.T) {
	a, b := stateNode(t), stateNode(t)
	if a.params.Backoff <= 0 {
		t.Fatal("stateNode has no Backoff")
	}
	a.rounds[6].deadline = stateNow - 2
	b.rounds[6].deadline = stateNow - 1
	if bytes.Equal(a.AppendState(nil, stateNow), b.AppendState(nil, stateNow)) {
		t.Fatal("two past prepare deadlines encode alike")
	}
}

// TestStateCoversFields fails when a field is added to the node's state
// without a decision: encode it in AppendState, or say there why not.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, Node{}, "rules", "rand", "silent", "started", "lastRound", "rtt", "res", "keepTimers", "rounds", "roundsPeak", "free", "pending")
	explorabletest.Fields(t, round{}, "ballot", "deadline", "promised", "open", "accepted", "rejected", "leased", "nOpen", "nAccepted", "learned", "hint", "fails", "phase", "busy", "parked", "queued")
	explorabletest.Fields(t, slot{}, "key", "promised", "accepted", "accUntil", "until", "heldRound", "tseq")
	explorabletest.Fields(t, table{}, "recs", "ix", "n", "tm")
}

// TestCloneDeep: the copy shares no table, map, slice or round with the
// original, and a table grown in the copy leaves the original's alone.
func TestCloneDeep(t *testing.T) {
	n := stateNode(t)
	n.pending = []algorithms.ResourceID{3}
	c := n.Clone(rand.New(rand.NewPCG(3, 3))).(*Node)
	c.pending[0] = 8
	c.res.get(4).promised = 1
	c.rounds[6].phase = phasePropose
	for k := algorithms.ResourceID(100); k < 200; k++ {
		c.res.put(k).promised = 1
	}
	if n.pending[0] != 3 || n.res.get(4).promised != algorithms.MakeBallot(3, 0, 2) || n.rounds[6].phase != phasePrepare || n.res.len() != 3 || n.res.get(150) != nil {
		t.Fatal("changing the clone changed the original")
	}
	if c.res.get(4) == nil || c.res.get(150) == nil || c.heldBallot(c.res.get(9)) != algorithms.MakeBallot(5, 0, 1) {
		t.Fatal("the clone lost table entries")
	}
}

func BenchmarkClone(b *testing.B) { explorabletest.BenchClone(b, stateNode(b)) }

func BenchmarkAppendState(b *testing.B) {
	explorabletest.BenchAppendState(b, stateNode(b), stateNow)
}

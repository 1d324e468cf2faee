package naive

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

func exploreSetup(undo bool, ablate ...string) *explorabletest.Setup {
	p := testParams()
	p.Backoff = 50 * time.Millisecond // exercise the random source too
	return &explorabletest.Setup{
		Acceptors: 3, Proposers: 3, Params: p, Resources: 2,
		TimerKinds: []uint8{timerProposer, timerHold, timerGrant, timerQuarantine},
		New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, _ []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
			return New(algorithms.Config{ID: id, Cluster: cl, Params: p, Ablations: ablate, Rand: r, Restarts: restarts}, Options{Undo: undo}), nil
		},
	}
}

func TestExplorable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		undo   bool
		ablate []string
	}{
		{"naive", false, nil},
		{"naive-undo", true, nil},
		{"naive-count-by-message", false, []string{AblCountByMessage}},
	} {
		t.Run(tc.name, func(t *testing.T) { explorabletest.Run(t, exploreSetup(tc.undo, tc.ablate...)) })
	}
}

// stateNode is a node with a little of everything: a grant, a hold, a
// collecting round, built by hand.
func stateNode(t testing.TB) *Node {
	t.Helper()
	n := New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: newRand()}, Options{})
	n.counter = 7
	n.setGrant(4, grant{owner: 2, ballot: algorithms.MakeBallot(3, 0, 2), until: 5000})
	n.setGrant(9, grant{owner: 1, ballot: algorithms.MakeBallot(6, 0, 1), until: 6000})
	*n.newProp(9) = proposal{phase: idle, holding: true, holdBallot: algorithms.MakeBallot(6, 0, 1), holdUntil: 5500}
	p := &proposal{phase: collecting, ballot: algorithms.MakeBallot(7, 0, 1), sent: 900, failed: 1, lastDeny: algorithms.NoNode}
	p.granted.Add(0)
	*n.newProp(4) = *p
	return n
}

const stateNow algorithms.Local = 1000

// TestStateSensitivity: changes that matter change the encoding; changes
// that cannot influence any future output do not.
func TestStateSensitivity(t *testing.T) {
	ballot := algorithms.MakeBallot(9, 0, 1)
	explorabletest.Sensitivity(t, stateNode, stateNow, []explorabletest.Change[*Node]{
		{"grant owner", func(n *Node) { n.tab.get(4).g.owner = 0 }, true},
		{"grant ballot", func(n *Node) { n.tab.get(4).g.ballot++ }, true},
		{"grant expiry", func(n *Node) { n.tab.get(4).g.until++ }, true},
		{"grant added", func(n *Node) { n.setGrant(5, grant{owner: 0, ballot: 1, until: 2000}) }, true},
		{"grant removed", func(n *Node) { n.dropGrant(9) }, true},
		{"quarantine", func(n *Node) { n.quarantined = true }, true},
		{"deferred", func(n *Node) { n.deferred = []algorithms.ResourceID{3} }, true},
		{"deferred order", func(n *Node) { n.deferred = []algorithms.ResourceID{3, 4} }, true},
		{"run counter", func(n *Node) { n.counter++ }, true},
		{"restart counter", func(n *Node) { n.restarts++ }, true},
		{"round phase", func(n *Node) { n.prop(4).phase = waiting }, true},
		{"round ballot", func(n *Node) { n.prop(4).ballot = ballot }, true},
		{"round send time", func(n *Node) { n.prop(4).sent-- }, true},
		{"round grant from another acceptor", func(n *Node) { n.prop(4).granted.Add(2) }, true},
		{"round deny", func(n *Node) { n.prop(4).denied.Add(2) }, true},
		{"round failures", func(n *Node) { n.prop(4).failed++ }, true},
		{"round is extension", func(n *Node) { n.prop(4).extend = true }, true},
		{"hold expiry", func(n *Node) { n.prop(9).holdUntil++ }, true},
		{"hold ballot", func(n *Node) { n.prop(9).holdBallot = ballot }, true},
		{"hold ended", func(n *Node) { n.prop(9).holding = false; n.prop(9).holdBallot = 0 }, true},
		{"last deny (written before read)", func(n *Node) { n.prop(4).lastDeny = 2 }, false},
		{"random source", func(n *Node) { n.rnd = rand.New(rand.NewPCG(9, 9)) }, false},
		{"stale ballot of an idle proposal", func(n *Node) { n.prop(9).ballot = ballot }, false},
		{"stale send time of an idle proposal", func(n *Node) { n.prop(9).sent = 12345 }, false},
		{"stale failures of an idle proposal", func(n *Node) { n.prop(9).failed = 2 }, false},
		{"empty extra acceptor words", func(n *Node) { n.prop(4).denied.Add(70); n.prop(4).denied.Remove(70) }, false},
	})
}

// TestStateCoversFields fails when a field is added to the node's state
// without a decision: encode it in AppendState, or say there why not.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, Node{}, "rules", "rnd", "quarantined", "deferred", "counter", "tab")
	explorabletest.Fields(t, proposal{}, "phase", "extend", "holding", "lastDeny", "ballot", "sent", "failed", "granted", "denied", "grantMsgs", "holdBallot", "holdUntil")
	explorabletest.Fields(t, grant{}, "owner", "ballot", "until")
}

// TestCloneDeep: the copy shares no map, slice or proposal with the
// original.
func TestCloneDeep(t *testing.T) {
	n := stateNode(t)
	n.deferred = []algorithms.ResourceID{3}
	n.prop(4).granted.Add(70)
	c := n.Clone(newRand()).(*Node)
	c.deferred[0] = 8
	c.setGrant(4, grant{})
	c.prop(4).phase = waiting
	c.prop(4).granted.Add(71)
	c.prop(9).holdUntil = 1
	if n.deferred[0] != 3 || n.tab.get(4).g.owner != 2 || n.prop(4).phase != collecting || n.prop(4).granted.Has(71) || n.prop(9).holdUntil != 5500 {
		t.Fatal("changing the clone changed the original")
	}
}

func BenchmarkClone(b *testing.B) { explorabletest.BenchClone(b, benchNode(b)) }

func BenchmarkAppendState(b *testing.B) {
	explorabletest.BenchAppendState(b, benchNode(b), stateNow)
}

// benchNode is a node with a few resources of state: two grants, a hold
// and a collecting round.
func benchNode(b *testing.B) *Node {
	n := stateNode(b)
	n.setGrant(11, grant{owner: 0, ballot: algorithms.MakeBallot(2, 0, 0), until: 4000})
	*n.newProp(12) = proposal{phase: waiting, failed: 2}
	return n
}

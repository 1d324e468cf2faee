package fatlease

import (
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

func exploreSetup(opt Options, ablate ...string) *explorabletest.Setup {
	p := testParams()
	return &explorabletest.Setup{
		Acceptors: 3, Proposers: 3, Params: p, Resources: 2,
		TimerKinds: []uint8{timerPhase, timerRetry, timerHold, timerJoin},
		New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, rec []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
			if !opt.Durable {
				rec = nil
			}
			return New(algorithms.Config{ID: id, Cluster: cl, Params: p, Ablations: ablate, Rand: r, Restarts: restarts, Recovered: rec}, opt), nil
		},
	}
}

func TestExplorable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opt    Options
		ablate []string
	}{
		{"fatlease", Options{}, nil},
		{"durable", Options{Durable: true}, nil},
		{"previous-instance-check", Options{}, []string{AblatePrevInstCheck}},
		{"restart-wait", Options{}, []string{AblateRestartWait}},
	} {
		t.Run(tc.name, func(t *testing.T) { explorabletest.Run(t, exploreSetup(tc.opt, tc.ablate...)) })
	}
}

const stateNow algorithms.Local = 100_000

// stateNode is a node with a little of everything, built by hand: a
// resource with two instances (an accepted and a learned lease), a
// proposer in the prepare phase, a holder, a recovered record.
func stateNode(t testing.TB) *Node {
	t.Helper()
	n := New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Rand: rand.New(rand.NewPCG(1, 2))}, Options{})
	r := n.state(4)
	// The missed-instance bound of instance 2 has passed by stateNow.
	r.advance(2, stateNow.Add(-n.missedFor-10))
	r.prev.lrn, r.prev.lrnBal = lease{owner: 2, t: 95_000}, algorithms.MakeBallot(1, 0, 2)
	r.cur.promised, r.cur.accBal, r.cur.acc = algorithms.MakeBallot(2, 0, 0), algorithms.MakeBallot(2, 0, 0), lease{owner: 0, t: 104_000}
	r.granted = r.cur.acc
	p := n.newProp()
	p.req = reqAcquire
	p.rd = round{active: true, phase: phPrepare, inst: 2, ballot: algorithms.MakeBallot(3, 0, 1), own: lease{owner: 1, t: 105_000}, value: noLease, adopt: noLease}
	p.votes.Add(0)
	n.props[4] = p
	h := n.newProp()
	h.hold.on, h.hold.inst, h.hold.t, h.hold.until, h.hold.ballot = true, 1, 103_000, 102_900, algorithms.MakeBallot(1, 0, 1)
	h.rd.ballot = algorithms.MakeBallot(1, 0, 1)
	n.props[9] = h
	n.res[9] = newRstate()
	n.res[9].advance(1, 98_000)
	n.res[9].cur.lrn = lease{owner: 1, t: 103_000}
	return n
}

// TestStateSensitivity: changes that matter change the encoding; changes
// that cannot influence any future output do not.
func TestStateSensitivity(t *testing.T) {
	b9 := algorithms.MakeBallot(9, 0, 1)
	explorabletest.Sensitivity(t, stateNode, stateNow, []explorabletest.Change[*Node]{
		{"promise", func(n *Node) { n.res[4].cur.promised = b9 }, true},
		{"accepted ballot", func(n *Node) { n.res[4].cur.accBal = b9 }, true},
		{"accepted lease owner", func(n *Node) { n.res[4].cur.acc.owner = 2 }, true},
		{"accepted lease expiry", func(n *Node) { n.res[4].cur.acc.t++ }, true},
		{"learned lease", func(n *Node) { n.res[4].cur.lrn = lease{owner: 0, t: 104_000} }, true},
		{"long-over learned lease expiry", func(n *Node) { n.res[4].prev.lrn.t = 1 }, true},
		{"instance number", func(n *Node) { n.res[4].cur.n, n.res[4].prev.n = 3, 2 }, true},
		{"instance over", func(n *Node) { n.res[4].cur.over = true }, true},
		{"accepted lease void", func(n *Node) { n.res[4].cur.accVoid = true }, true},
		{"invalidation watermark", func(n *Node) { n.res[4].inv = lease{owner: 2, t: 95_000} }, true},
		{"own invalidation watermark", func(n *Node) { n.res[4].mine = lease{owner: 1, t: 80_000} }, true},
		{"last grant reported", func(n *Node) { n.res[4].granted = noLease }, true},
		{"missed-instance bound still ahead", func(n *Node) { n.res[4].cur.since = stateNow }, true},
		{"a new resource", func(n *Node) { n.state(5).cur.promised = b9 }, true},
		{"restart wait", func(n *Node) { n.joining = true }, true},
		{"restart floor ahead", func(n *Node) { n.ownFloor = stateNow + 1 }, true},
		{"pending request", func(n *Node) { n.pending = []algorithms.ResourceID{4} }, true},
		{"recovered record", func(n *Node) { n.recovered = []algorithms.Record{{Resource: 4, Instance: 1, Promised: b9}} }, true},
		{"restart counter", func(n *Node) { n.restarts++ }, true},
		{"round phase", func(n *Node) { n.props[4].rd.phase = phPropose }, true},
		{"round instance", func(n *Node) { n.props[4].rd.inst = 3 }, true},
		{"round ballot", func(n *Node) { n.props[4].rd.ballot = b9 }, true},
		{"round own lease", func(n *Node) { n.props[4].rd.own.t++ }, true},
		{"round adopted lease", func(n *Node) { n.props[4].rd.adopt, n.props[4].rd.adoptBal = lease{owner: 0, t: 104_000}, 5 }, true},
		{"round vote", func(n *Node) { n.props[4].votes.Add(2) }, true},
		{"round negative", func(n *Node) { n.props[4].neg.Add(2) }, true},
		{"round blocked", func(n *Node) { n.props[4].rd.blockUntil = stateNow + 5 }, true},
		{"round learns the previous instance", func(n *Node) { n.props[4].rd.learnPrev = true }, true},
		{"round ended", func(n *Node) { n.props[4].rd.active = false }, true},
		{"proposer failures", func(n *Node) { n.props[4].fails++ }, true},
		{"proposer blocked", func(n *Node) { n.props[4].blockedUntil = stateNow + 1 }, true},
		{"proposer max ballot", func(n *Node) { n.props[4].maxBal = b9 }, true},
		{"proposer tried previous", func(n *Node) { n.props[4].triedPrev = 2 }, true},
		{"extension", func(n *Node) { n.props[9].req, n.props[9].extendFrom = reqExtend, 103_000 }, true},
		{"hold expiry", func(n *Node) { n.props[9].hold.until++ }, true},
		{"hold ended", func(n *Node) { n.props[9].hold.on = false }, true},
		{"random source", func(n *Node) { n.rand = rand.New(rand.NewPCG(9, 9)) }, false},
		{"a resource state that knows nothing", func(n *Node) { n.state(7) }, false},
		{"previous instance's since", func(n *Node) { n.res[4].prev.since = 1 }, false},
		{"missed-instance bound long passed", func(n *Node) { n.res[4].cur.since = stateNow.Add(-2 * n.missedFor) }, false},
		{"restart floor passed", func(n *Node) { n.ownFloor = stateNow }, false},
		{"proposer block passed", func(n *Node) { n.props[4].blockedUntil = stateNow - 3 }, false},
		{"stale round of a holder", func(n *Node) { n.props[9].rd.inst, n.props[9].rd.phase = 7, phPropose; n.props[9].votes.Add(0) }, false},
		{"stale hold of a proposer", func(n *Node) { n.props[4].hold.t, n.props[4].hold.ballot = 5, 6 }, false},
		{"extendFrom of an acquisition", func(n *Node) { n.props[4].extendFrom = 77 }, false},
	})
}

// TestStateCoversFields fails when a field is added to the node's state
// without a decision: encode it in AppendState, or say there why not.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, Node{}, "rules", "rand", "recovered", "ownFloor", "joining", "pending", "lastBallot", "res", "props")
	explorabletest.Fields(t, rstate{}, "cur", "prev", "inv", "mine", "granted")
	explorabletest.Fields(t, instance{}, "n", "since", "promised", "accBal", "acc", "lrnBal", "lrn", "over", "accVoid", "lrnVoid")
	explorabletest.Fields(t, lease{}, "owner", "t")
	explorabletest.Fields(t, prop{}, "req", "fails", "extendFrom", "maxBal", "triedPrev", "blockedUntil", "rd", "votes", "neg", "hold")
	explorabletest.Fields(t, round{}, "active", "phase", "learnPrev", "inst", "ballot", "own", "value", "adoptBal", "adopt", "blockUntil")
}

// TestCloneDeep: the copy shares no map, slice, resource state or
// proposer with the original.
func TestCloneDeep(t *testing.T) {
	n := stateNode(t)
	n.pending = []algorithms.ResourceID{4}
	n.recovered = []algorithms.Record{{Resource: 4, Instance: 1}}
	n.props[4].votes.Add(70) // an overflow word, copied too
	c := n.Clone(rand.New(rand.NewPCG(3, 3))).(*Node)
	c.pending[0] = 8
	c.recovered[0].Instance = 9
	c.res[4].cur.promised = 1
	c.props[4].votes.Add(1)
	c.props[4].votes.Add(71)
	c.props[4].neg.Add(2)
	c.props[9].hold.on = false
	if n.pending[0] != 4 || n.recovered[0].Instance != 1 || n.res[4].cur.promised != algorithms.MakeBallot(2, 0, 0) ||
		n.props[4].votes.Len() != 2 || n.props[4].neg.Len() != 0 || !n.props[9].hold.on {
		t.Fatal("changing the clone changed the original")
	}
	if c.props[9].votes.Len() != 0 || c.props[4].votes.Len() != 4 || !c.props[4].votes.Has(70) {
		t.Fatal("the clone's vote sets are wrong")
	}
}

func BenchmarkClone(b *testing.B) { explorabletest.BenchClone(b, stateNode(b)) }

func BenchmarkAppendState(b *testing.B) {
	explorabletest.BenchAppendState(b, stateNode(b), stateNow)
}

package fairq

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	p.LeaseSpan, p.MaxLease = time.Second, 2*time.Second
	p.ResponseTimeout = 100 * time.Millisecond
	p.MaxRounds = 3
	return p
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func exploreSetup(ablate ...string) *explorabletest.Setup {
	p := testParams()
	p.Backoff = 50 * time.Millisecond // exercise the random source too
	return &explorabletest.Setup{
		Acceptors: 3, Proposers: 4, Params: p, Resources: 2,
		TimerKinds: []uint8{timerRecord, timerProposer, timerHold, timerQuarantine},
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
		{"fairq", nil},
		{"count-by-message", []string{AblateCountByMessage}},
		{"dead-ballots", []string{AblateDeadBallots}},
		{"named-successor", []string{AblateNamedSuccessor}},
	} {
		t.Run(tc.name, func(t *testing.T) { explorabletest.Run(t, exploreSetup(tc.ablate...)) })
	}
}

const stateNow algorithms.Local = 10_000

// stateNode is a node with a little of everything, built by hand: a
// record with a queue, a hold, and a request being collected.
func stateNode(t testing.TB) *Node {
	t.Helper()
	n := New(algorithms.Config{ID: 1, Cluster: algorithms.NewCluster(3, 4), Params: testParams(), Rand: newRand()})
	n.counter = 7
	*n.rec(4) = record{ballot: algorithms.MakeBallot(3, 0, 2), until: 15_000, told: true,
		queue: []algorithms.Ballot{algorithms.MakeBallot(5, 0, 3), algorithms.MakeBallot(6, 0, 0)}}
	*n.rec(9) = record{ballot: algorithms.MakeBallot(6, 0, 1), until: 16_000}
	n.props[9] = &proposal{phase: idle, holding: true, cur: algorithms.MakeBallot(6, 0, 1), holdBallot: algorithms.MakeBallot(6, 0, 1),
		holdUntil: 15_500, succ: algorithms.MakeBallot(5, 0, 3)}
	p := &proposal{phase: collecting, cur: algorithms.MakeBallot(7, 0, 1), curAt: 9_000, prev: algorithms.MakeBallot(4, 0, 1), prevAt: 8_000,
		fails: 1, curMsgs: 1, prevMsgs: 1, reports: make([]algorithms.Ballot, 3), span: 700}
	p.curVotes.Add(1)
	p.prevVotes.Add(0)
	p.reports[1] = p.cur
	p.reports[2] = algorithms.MakeBallot(3, 0, 2)
	n.props[4] = p
	return n
}

// TestStateSensitivity: changes that matter change the encoding; changes
// that cannot influence any future output do not.
func TestStateSensitivity(t *testing.T) {
	b := algorithms.MakeBallot(9, 0, 3)
	explorabletest.Sensitivity(t, stateNode, stateNow, []explorabletest.Change[*Node]{
		{"record ballot", func(n *Node) { n.recs[4].ballot++ }, true},
		{"record lapse", func(n *Node) { n.recs[4].until++ }, true},
		{"record told", func(n *Node) { n.recs[4].told = false }, true},
		{"queue order", func(n *Node) { q := n.recs[4].queue; q[0], q[1] = q[1], q[0] }, true},
		{"queue entry", func(n *Node) { n.recs[4].queue = n.recs[4].queue[:1] }, true},
		{"queue behind no record", func(n *Node) { n.rec(5).queue = []algorithms.Ballot{b} }, true},
		{"record added", func(n *Node) { *n.rec(5) = record{ballot: b, until: 12_000} }, true},
		{"quarantine", func(n *Node) { n.quarantined = true }, true},
		{"deferred", func(n *Node) { n.deferred = []algorithms.ResourceID{3} }, true},
		{"run counter", func(n *Node) { n.counter++ }, true},
		{"phase", func(n *Node) { n.props[4].phase = parked }, true},
		{"extension", func(n *Node) { n.props[4].extend = true }, true},
		{"current ballot", func(n *Node) { n.props[4].cur = b }, true},
		{"current send time", func(n *Node) { n.props[4].curAt-- }, true},
		{"current vote", func(n *Node) { n.props[4].curVotes.Add(2) }, true},
		{"current votes by message", func(n *Node) { n.props[4].curMsgs++ }, true},
		{"previous ballot", func(n *Node) { n.props[4].prev = 0 }, true},
		{"previous send time", func(n *Node) { n.props[4].prevAt-- }, true},
		{"previous vote", func(n *Node) { n.props[4].prevVotes.Add(2) }, true},
		{"report", func(n *Node) { n.props[4].reports[0] = b }, true},
		{"span", func(n *Node) { n.props[4].span++ }, true},
		{"dead", func(n *Node) { n.props[4].dead = algorithms.MakeBallot(4, 0, 1) }, true},
		{"fails", func(n *Node) { n.props[4].fails++ }, true},
		{"successor", func(n *Node) { n.props[9].succ = b }, true},
		{"hold end", func(n *Node) { n.props[9].holdUntil++ }, true},
		{"hold ballot", func(n *Node) { n.props[9].holdBallot = algorithms.MakeBallot(5, 0, 1) }, true},
		{"hold ended", func(n *Node) { n.props[9].holding = false }, true},
		{"lease number", func(n *Node) { n.recs[4].seq++ }, true},
		{"lease number of an empty record", func(n *Node) { n.recs[5] = &record{seq: 3} }, true},
		{"numbers seen", func(n *Node) { n.seen[9]++ }, true},
		{"number counted", func(n *Node) { n.props[4].curNum++ }, true},
		{"earlier request's number counted", func(n *Node) { n.props[4].prevNum++ }, true},
		{"hold's token", func(n *Node) { n.props[9].token.Major++ }, true},
		{"proposal added", func(n *Node) {
			n.props[5] = &proposal{phase: waiting, cur: b, curAt: 9_500, reports: make([]algorithms.Ballot, 3)}
		}, true},
		{"random source", func(n *Node) { n.rnd = rand.New(rand.NewPCG(9, 9)) }, false},
		{"restart counter", func(n *Node) { c := *n.rules; c.restarts++; n.rules = &c }, true},
		{"told of an empty record", func(n *Node) { n.recs[5] = &record{told: true, queue: []algorithms.Ballot{b}} }, true},
		{"request state of an idle proposal", func(n *Node) {
			p := n.props[9]
			p.fails, p.curAt, p.prev, p.span, p.curNum = 2, 123, b, 9, 4
			p.curVotes.Add(2)
		}, false},
		{"reports of a parked proposal", func(n *Node) {
			n.props[4].phase = parked
		}, true},
		{"empty extra acceptor words", func(n *Node) { n.props[4].curVotes.Add(70); n.props[4].curVotes.Remove(70) }, false},
	})
}

// Reports and span are read only while collecting: once parked, they
// may differ without the encoding telling.
func TestStateParkedReports(t *testing.T) {
	parkedNode := func(t testing.TB) *Node {
		n := stateNode(t)
		n.props[4].phase = parked
		return n
	}
	explorabletest.Sensitivity(t, parkedNode, stateNow, []explorabletest.Change[*Node]{
		{"report", func(n *Node) { n.props[4].reports[0] = algorithms.MakeBallot(9, 0, 3) }, false},
		{"span", func(n *Node) { n.props[4].span++ }, false},
		{"vote", func(n *Node) { n.props[4].curVotes.Add(2) }, true},
	})
}

// A record or hold whose time is up acts alike whenever it ended.
func TestStatePastTimes(t *testing.T) {
	pastNode := func(t testing.TB) *Node {
		n := stateNode(t)
		n.recs[9].until = 8_000
		n.props[9].holdUntil = 9_000
		return n
	}
	explorabletest.Sensitivity(t, pastNode, stateNow, []explorabletest.Change[*Node]{
		{"lapsed record's exact time", func(n *Node) { n.recs[9].until = 9_999 }, false},
		{"ended hold's exact time", func(n *Node) { n.props[9].holdUntil = 10_000 }, false},
		{"lapse in the future", func(n *Node) { n.recs[9].until = 10_001 }, true},
	})
}

// TestStateCoversFields fails when a field is added to the node's state
// without a decision: encode it in AppendState, or say there why not.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, Node{}, "rules", "rnd", "quarantined", "deferred", "counter", "recs", "props", "seen")
	explorabletest.Fields(t, record{}, "seq", "ballot", "until", "told", "queue")
	explorabletest.Fields(t, proposal{}, "phase", "extend", "holding", "cur", "prev", "curAt", "prevAt", "curVotes", "prevVotes",
		"curMsgs", "prevMsgs", "curNum", "prevNum", "token", "reports", "span", "dead", "fails", "holdBallot", "holdUntil", "succ")
}

// TestCloneDeep: the copy shares no map, slice or proposal with the
// original.
func TestCloneDeep(t *testing.T) {
	n := stateNode(t)
	n.deferred = []algorithms.ResourceID{3}
	c := n.Clone(newRand()).(*Node)
	c.deferred[0] = 8
	c.recs[4].queue[0] = 0
	c.recs[9].ballot = 0
	c.props[4].phase = waiting
	c.props[4].curVotes.Add(2)
	c.props[4].reports[0] = 5
	c.props[9].holdUntil = 1
	o := n.props[4]
	if n.deferred[0] != 3 || n.recs[4].queue[0] == 0 || n.recs[9].ballot == 0 || o.phase != collecting || o.curVotes.Has(2) || o.reports[0] != 0 || n.props[9].holdUntil != 15_500 {
		t.Fatal("changing the clone changed the original")
	}
}

func BenchmarkClone(b *testing.B) { explorabletest.BenchClone(b, stateNode(b)) }

func BenchmarkAppendState(b *testing.B) {
	explorabletest.BenchAppendState(b, stateNode(b), stateNow)
}

// TestDescribe: the description names the record, its queue and the
// proposal's state, times relative to now.
func TestDescribe(t *testing.T) {
	got := stateNode(t).Describe(stateNow)
	for _, want := range []string{
		"life 0",
		"acceptor r4: granted to n2 (ballot 3.0.2, lease number 0), lapses in 5µs; queued: n3 (5.0.3), n0 (6.0.0)",
		"proposer r4: acquiring, answers due (2 grants needed): ballot 7.0.1 sent 1µs ago, granted by n1; earlier 4.0.1 sent 2µs ago, granted by n0",
		"proposer r9: nothing in flight; holds the lease (ballot 6.0.1, token 0:0), ends in 5.5µs; next waiter n3 (5.0.3)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("description lacks %q:\n%s", want, got)
		}
	}
}

// Package htmlview writes a run's trace as one self-contained interactive
// HTML file, a small visual debugger: a hold timeline per node (crashes,
// downtime, partitions and lease-invariant violations marked) above a
// message-sequence view on the same axis, with zoom and pan, a legend, and
// hover for details (a message's kind, ballot, sender, receiver, send and
// delivery times).
//
// A replayed scenario or explorer counterexample (sim.ReplayWith) has a
// step axis besides true time, one step per scenario command, since its
// moves may all happen at one instant; at the step selected the page
// shows each node's state in words (algorithms.Describer) and what the
// step did. The Collector learns the steps as a runner.StepObserver.
//
// The file needs no network: its script, style and data are inline, and it
// names no external resource. The data comes from the run's trace records
// themselves: a Collector is a runner.Observer (hand it to
// runner.Options.Observers, sim.ReplayOptions.Observers, or a
// record.ViolationWindow for the records before a violation).
//
// A long run's trace holds millions of messages; the file stays bounded:
// at most Limits.Messages messages (those sent nearest a violation, or
// nearest the start and the end of the trace when there is none) and
// Limits.Holds hold intervals (the earliest) are embedded. What is left
// out is drawn: the page hatches every stretch of time whose messages or
// holds are not all in the file and says how many of how many it has
// (Data.Gaps, counted in time buckets as the records pass). The Collector
// keeps at most 8 × Limits.Messages messages in memory on the way (see
// Collector).
package htmlview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/record"
)

// Limits bound what one file embeds.
type Limits struct {
	Messages int // messages drawn (0: DefaultLimits.Messages)
	Holds    int // hold intervals drawn (0: DefaultLimits.Holds)
}

// DefaultLimits keep a file under a few megabytes (a message is about
// 100 bytes of JSON).
var DefaultLimits = Limits{Messages: 20000, Holds: 20000}

// Input is what the page shows besides the trace.
type Input struct {
	Title     string
	Meta      *runner.Meta
	Nodes     int   // rows: nodes 0..Nodes-1 (more if the trace names more)
	Acceptors int   // for row labels (A = acceptor, P = proposer)
	Proposers int   //
	StartNS   int64 // true time the view starts (a violation trace starts late)
	EndNS     int64 // true time the run ended (0: the last record's)
	// Violations from the result, with their overlap; the trace's
	// violation records are used when this is empty.
	Violations []runner.Violation
	Limits     Limits
	// NoDropReasons: the environment does not trace why a message was not
	// delivered (UDP: the emulated network's draws and the kernel's
	// losses are not in the trace), so an undelivered message is not
	// called in flight.
	NoDropReasons bool
}

// Msg is one message: sent at Send, delivered at Deliver (-1: dropped,
// with Drop the reason, or never delivered before the end). SendQ and
// DeliverQ are the records' sequence numbers (1, 2, ... in trace order),
// embedded only for a trace with steps (Data.Steps).
type Msg struct {
	Kind     string `json:"k"`
	From     int    `json:"f"`
	To       int    `json:"to"`
	Res      uint64 `json:"r"`
	Ballot   string `json:"b"`
	Send     int64  `json:"s"`
	Deliver  int64  `json:"d"`
	Drop     string `json:"x,omitempty"`
	Dup      bool   `json:"dup,omitempty"` // a copy the network made
	SendQ    int64  `json:"q,omitempty"`
	DeliverQ int64  `json:"dq,omitempty"`
}

// Hold is one hold interval of a node.
type Hold struct {
	Node   int    `json:"n"`
	Res    uint64 `json:"r"`
	Ballot string `json:"b"`
	Start  int64  `json:"s"`
	End    int64  `json:"e"`
	Q      int64  `json:"q,omitempty"` // sequence numbers of its start and end (steps only)
	EQ     int64  `json:"eq,omitempty"`
}

// Span is a stretch of time on one node (-1: every node).
type Span struct {
	Node  int    `json:"n"`
	Start int64  `json:"s"`
	End   int64  `json:"e"`
	Note  string `json:"t,omitempty"`
	Q     int64  `json:"q,omitempty"`
	EQ    int64  `json:"eq,omitempty"`
}

// Mark is an instant on one node.
type Mark struct {
	Node int    `json:"n"`
	T    int64  `json:"t"`
	Note string `json:"t2,omitempty"`
	Q    int64  `json:"q,omitempty"`
}

// Violation is an overlap of two owners' holds.
type Violation struct {
	Res    uint64    `json:"r"`
	Owners [2]int    `json:"o"`
	Ballot [2]string `json:"b"`
	Start  int64     `json:"s"`
	End    int64     `json:"e"`
	Q      int64     `json:"q,omitempty"`
	EQ     int64     `json:"eq,omitempty"`
}

// Step is one command of a replayed scenario: the records with sequence
// numbers after the previous step's Q, up to its own Q, are what it did.
type Step struct {
	Q     int64    `json:"q"`
	Line  int      `json:"line"`
	Cmd   string   `json:"cmd"`
	T     int64    `json:"t"`
	Nodes []string `json:"nodes"` // each node's state in words after the step
	// Recs: the step's records as the replay prints them, at most
	// stepRecs of them; More: how many more it had.
	Recs []string `json:"recs"`
	More int      `json:"more,omitempty"`
}

// Gap is a stretch of time from which the file leaves some messages or
// holds out: Kept of Total that started in it are embedded.
type Gap struct {
	What  string `json:"w"` // "messages" or "holds"
	Start int64  `json:"s"`
	End   int64  `json:"e"`
	Kept  int    `json:"kept"`
	Total int    `json:"total"`
}

// Data is what the page embeds (exported for tests and other tools).
type Data struct {
	Title      string       `json:"title"`
	Meta       *runner.Meta `json:"meta,omitempty"`
	Rows       []string     `json:"rows"`
	Start      int64        `json:"start"`
	End        int64        `json:"end"`
	Holds      []Hold       `json:"holds"`
	Down       []Span       `json:"down"`
	Crashes    []Mark       `json:"crashes"`
	Restarts   []Mark       `json:"restarts"`
	Partitions []Span       `json:"partitions"`
	Violations []Violation  `json:"violations"`
	Msgs       []Msg        `json:"msgs"`
	// Paused: process pauses, on the paused node's row; Writes: writes to
	// the protected store, on the writer's row, Note its outcome and
	// token (the first maxWrites accepted ones, and every stale or
	// rejected one).
	Paused []Span `json:"paused"`
	Writes []Mark `json:"writes"`
	// TotalMsgs and TotalHolds: how many the trace had; fewer are
	// embedded when it had more than the limits. TotalSelf: how many of
	// the messages were a node's to itself (delivered at once, as a step
	// of their own; drawn as a dot, not an arrow).
	TotalMsgs  int    `json:"total_msgs"`
	TotalSelf  int    `json:"total_self"`
	TotalHolds int    `json:"total_holds"`
	Kept       string `json:"kept,omitempty"` // which messages were kept, when not all
	// Gaps: where messages or holds are left out, in time order.
	Gaps []Gap `json:"gaps"`
	// Steps: a replayed scenario's commands, in order (empty for a run).
	// Records: the last record's sequence number.
	Steps   []Step `json:"steps"`
	Records int64  `json:"records"`
}

// Collector builds the page's data from a run's trace records as they
// happen (it is a runner.Observer, and a runner.StepObserver for the steps
// of a replay), so a long run's trace is never held whole. Messages are
// kept in memory up to 8 times Limits.Messages; past that, half are let
// go: those farthest from the violations known (Input.Violations) or seen
// in the trace so far, the start of the trace and the present (messages
// still in flight are always kept). Finish then picks the Limits.Messages
// to embed.
type Collector struct {
	in     Input
	lim    Limits
	d      Data
	nodes  int
	first  int64
	last   int64
	holds  record.Holds
	faults record.Faults
	// partNotes: the sides of each partition that healed, named at the heal.
	partNotes []string
	// Messages: msgs in send order; pending maps a message to the indices
	// in msgs of its undelivered sends, oldest first (the trace has no
	// message ids: a delivery or drop goes to the earliest undelivered
	// send of the same message); lastSent to its latest send (a delivery
	// with no send left is a copy the network duplicated).
	msgs      []Msg
	pending   map[algorithms.Message][]int
	lastSent  map[algorithms.Message]int
	total     int
	self      int
	seenViols []int64 // violation times seen in the trace so far
	// Where things happened, for the gaps: every message by send time,
	// every hold by start time.
	sendTimes, holdTimes buckets
	// The sequence numbers (steps): seq is the last record's; holdQ the
	// start and end numbers of the finished holds (parallel to
	// holds.Done) and openQ those of the open ones; faultQ the numbers of
	// the crashes, restarts and partition records in order; violQ the
	// trace's violation records; timeQ the first number at each new true
	// time (at most maxTimeQ of them), for what is known by time only.
	seq                int64
	stepped            bool // a step was seen: the numbers below are kept
	holdQ              [][2]int64
	holdQBase          int // holds.Done before the first step (no numbers)
	openQ              map[holdKey][]int64
	crashQ, restartQ   []int64
	partQ, healQ       []int64
	violQ              []violSeq
	timeQ              []timeSeq
	stepRecs, stepMore int
	stepLines          []string
	writes             int // writes seen
}

type holdKey struct {
	owner  algorithms.NodeID
	res    algorithms.ResourceID
	ballot algorithms.Ballot
}

type violSeq struct {
	res algorithms.ResourceID
	t   int64
	q   int64
}

type timeSeq struct{ t, q int64 }

const (
	// stepRecs bounds the records listed per step.
	stepRecs = 200
	// maxWrites bounds the accepted writes embedded.
	maxWrites = 20000
	// maxTimeQ bounds the time index (a replay changes time rarely; a
	// long run without steps never reads it).
	maxTimeQ = 1 << 16
)

// NewCollector starts collecting the trace of a run that in describes.
func NewCollector(in Input) *Collector {
	lim := in.Limits
	if lim.Messages <= 0 {
		lim.Messages = DefaultLimits.Messages
	}
	if lim.Holds <= 0 {
		lim.Holds = DefaultLimits.Holds
	}
	return &Collector{in: in, lim: lim, nodes: in.Nodes, first: -1, holds: record.Holds{Limit: lim.Holds},
		pending: map[algorithms.Message][]int{}, lastSent: map[algorithms.Message]int{}, openQ: map[holdKey][]int64{},
		d: Data{Title: in.Title, Meta: in.Meta, Start: in.StartNS, End: in.EndNS, Violations: []Violation{}}}
}

// node is n as the page numbers nodes (NoNode: -1).
func node(n algorithms.NodeID) int {
	if n == algorithms.NoNode {
		return -1
	}
	return int(n)
}

// Observe implements runner.Observer.
func (c *Collector) Observe(r *runner.TraceRec) {
	c.seq++
	if c.stepped && (len(c.timeQ) == 0 || (c.timeQ[len(c.timeQ)-1].t != r.T && len(c.timeQ) < maxTimeQ)) {
		c.timeQ = append(c.timeQ, timeSeq{r.T, c.seq})
	}
	if c.stepRecs < stepRecs {
		c.stepLines = append(c.stepLines, record.FormatTrace(r))
	} else {
		c.stepMore++
	}
	c.stepRecs++
	c.seen(r.T, node(r.Node))
	c.holds.Observe(r)
	healed := len(c.faults.Partitions)
	c.faults.Observe(r)
	if len(c.faults.Partitions) > healed {
		// The sides as the nodes known when it healed name them.
		c.partNotes = append(c.partNotes, sides(c.faults.Partitions[healed].SideA, c.nodes))
	}
	switch r.Kind {
	case runner.TraceSend:
		c.send(r)
	case runner.TraceDeliver, runner.TraceDrop:
		c.arrive(r)
	case runner.TraceHoldStart:
		c.holdTimes.add(r.T)
		if c.stepped {
			k := holdKey{r.Owner, r.Res, r.Ballot}
			c.openQ[k] = append(c.openQ[k], c.seq)
		}
	case runner.TraceHoldEnd:
		c.holdEnd(r)
	case runner.TraceCrash:
		c.crashQ = append(c.crashQ, c.seq)
	case runner.TraceRestart:
		c.restartQ = append(c.restartQ, c.seq)
	case runner.TracePartition:
		if len(c.partQ) == len(c.healQ) {
			c.partQ = append(c.partQ, c.seq)
		}
	case runner.TraceHeal:
		if len(c.partQ) > len(c.healQ) {
			c.healQ = append(c.healQ, c.seq)
		}
	case runner.TracePause:
		c.d.Paused = append(c.d.Paused, Span{Node: node(r.Node), Start: r.T, End: -1, Q: c.seq})
	case runner.TraceResume:
		c.resume(r)
	case runner.TraceWrite:
		c.write(r)
	case runner.TraceViolation:
		c.seenViols = append(c.seenViols, r.T)
		c.violQ = append(c.violQ, violSeq{r.Res, r.T, c.seq})
		if len(c.in.Violations) == 0 {
			c.d.Violations = append(c.d.Violations, Violation{Res: uint64(r.Res),
				Owners: [2]int{node(r.Owner), node(algorithms.NodeID(r.X))}, Start: r.T, End: r.T, Q: c.seq, EQ: c.seq})
		}
	}
}

// holdEnd pairs a hold's end with its start for the step axis (the
// oldest open hold of the same owner, resource and ballot), and widens the
// time axis for a hold that began before the trace.
func (c *Collector) holdEnd(r *runner.TraceRec) {
	if r.X < c.first {
		c.holdTimes.add(r.X) // begun before the trace (a violation window)
	}
	if !c.stepped {
		return
	}
	k := holdKey{r.Owner, r.Res, r.Ballot}
	q := int64(0)
	if qs := c.openQ[k]; len(qs) > 0 {
		q = qs[0]
		if len(qs) == 1 {
			delete(c.openQ, k)
		} else {
			c.openQ[k] = qs[1:]
		}
	}
	if c.holdQBase+len(c.holdQ) < len(c.holds.Done) {
		c.holdQ = append(c.holdQ, [2]int64{q, c.seq})
	}
}

// resume ends the node's open pause.
func (c *Collector) resume(r *runner.TraceRec) {
	for i := len(c.d.Paused) - 1; i >= 0; i-- {
		if p := &c.d.Paused[i]; p.Node == node(r.Node) && p.End < 0 {
			p.End, p.EQ = r.T, c.seq
			break
		}
	}
}

// write marks a write to the protected store: every rejected or stale
// one, and the accepted ones while no more than maxWrites writes have
// been seen (the data embedded stays bounded).
func (c *Collector) write(r *runner.TraceRec) {
	c.writes++
	if r.Sub != runner.WriteAccepted || c.writes <= maxWrites {
		c.d.Writes = append(c.d.Writes, Mark{Node: node(r.Node), T: r.T, Q: c.seq,
			Note: fmt.Sprintf("%s r%d token %d:%d", runner.WriteOutcome(r.Sub), r.Res, r.X, uint64(r.Ballot))})
	}
}

// Step implements runner.StepObserver: the records since the previous
// step are what this one did.
func (c *Collector) Step(s *runner.ScriptStep) {
	if !c.stepped {
		// The numbers of holds and of times are kept from the first
		// step on (a replay's boot starts no hold): a run without steps
		// does not pay for them.
		c.stepped, c.holdQBase = true, len(c.holds.Done)
	}
	c.d.Steps = append(c.d.Steps, Step{Q: c.seq, Line: s.Line, Cmd: s.Command, T: s.T, Nodes: slices.Clone(s.Nodes),
		Recs: c.stepLines, More: c.stepMore})
	c.stepLines, c.stepRecs, c.stepMore = nil, 0, 0
	if len(s.Nodes) > c.nodes {
		c.nodes = len(s.Nodes)
	}
}

func (c *Collector) seen(t int64, node int) {
	if c.first < 0 {
		c.first = t
	}
	c.last = max(c.last, t)
	if node >= c.nodes {
		c.nodes = node + 1
	}
}

// send notes a message sent.
func (c *Collector) send(r *runner.TraceRec) {
	m := &r.Msg
	c.total++
	if m.From == m.To {
		c.self++
	}
	c.sendTimes.add(r.T)
	if len(c.msgs) >= 8*c.lim.Messages {
		c.compact(r.T)
	}
	c.msgs = append(c.msgs, Msg{Kind: m.Kind.String(), From: node(m.From), To: node(m.To), Res: uint64(m.Resource),
		Ballot: m.Ballot.String(), Send: r.T, Deliver: -1, SendQ: c.seq})
	c.pending[*m] = append(c.pending[*m], len(c.msgs)-1)
	c.lastSent[*m] = len(c.msgs) - 1
}

// arrive pairs a delivery or a drop with the earliest undelivered send of
// the same message, or, with none left, with a copy of its latest send
// (the network duplicated it).
func (c *Collector) arrive(r *runner.TraceRec) {
	q := c.pending[r.Msg]
	if len(q) == 0 {
		k, ok := c.lastSent[r.Msg]
		if !ok {
			return // sent before the trace began (a violation trace's window) or let go
		}
		m := c.msgs[k]
		m.Dup, m.Deliver, m.Drop, m.DeliverQ = true, -1, "", 0
		c.total++
		if m.From == m.To {
			c.self++
		}
		c.sendTimes.add(m.Send)
		c.msgs = append(c.msgs, m)
		q = []int{len(c.msgs) - 1}
	}
	k := q[0]
	if len(q) == 1 {
		delete(c.pending, r.Msg)
	} else {
		c.pending[r.Msg] = q[1:]
	}
	c.msgs[k].DeliverQ = c.seq
	if r.Kind == runner.TraceDeliver {
		c.msgs[k].Deliver = r.T
		return
	}
	reason := runner.DropReason(r.Sub)
	if reason == "" {
		reason = "dropped"
	}
	c.msgs[k].Drop = reason
}

// compact lets half the messages go: those farthest from every violation
// seen, the start of the trace and now; messages in flight stay.
func (c *Collector) compact(now int64) {
	inFlight := map[int]bool{}
	for _, q := range c.pending {
		for _, k := range q {
			inFlight[k] = true
		}
	}
	times := append([]int64{c.first, now}, c.seenViols...)
	for _, v := range c.in.Violations {
		times = append(times, v.StartNS)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	score := func(k int) int64 {
		if inFlight[k] {
			return -1
		}
		return nearest(times, c.msgs[k].Send)
	}
	keep := selectNearest(len(c.msgs), len(c.msgs)/2, score)
	remap := make(map[int]int, len(keep))
	out := make([]Msg, len(keep))
	for i, k := range keep {
		out[i] = c.msgs[k]
		remap[k] = i
	}
	for key, q := range c.pending {
		var nq []int
		for _, k := range q {
			if i, ok := remap[k]; ok {
				nq = append(nq, i)
			}
		}
		if len(nq) == 0 {
			delete(c.pending, key)
		} else {
			c.pending[key] = nq
		}
	}
	for key, k := range c.lastSent {
		if i, ok := remap[k]; ok {
			c.lastSent[key] = i
		} else {
			delete(c.lastSent, key)
		}
	}
	c.msgs = out
}

// nearest is the distance from t to the nearest of sorted times.
func nearest(times []int64, t int64) int64 {
	k := sort.Search(len(times), func(i int) bool { return times[i] >= t })
	best := int64(1<<63 - 1)
	if k < len(times) {
		best = times[k] - t
	}
	if k > 0 && t-times[k-1] < best {
		best = t - times[k-1]
	}
	return best
}

// Input is the collector's input, for what is known only once the trace
// is written (the result's end time and violations, the meta, the title):
// set those before Finish.
func (c *Collector) Input() *Input { return &c.in }

// Finish ends the trace and returns the page's data.
func (c *Collector) Finish() Data {
	d := &c.d
	d.Title, d.Meta = c.in.Title, c.in.Meta
	if c.in.EndNS > 0 {
		d.End = c.in.EndNS
	}
	if c.in.StartNS > 0 {
		d.Start = c.in.StartNS
	}
	first := max(c.first, 0)
	if d.End <= 0 {
		d.End = c.last
	}
	if d.Start <= 0 || d.Start > first {
		d.Start = min(first, d.End)
	}
	c.finishSteps()
	c.finishFaults(d.End)
	for i := range d.Paused {
		if d.Paused[i].End < 0 {
			d.Paused[i].End = d.End // still paused at the end
		}
	}
	if d.Paused == nil {
		d.Paused = []Span{}
	}
	if d.Writes == nil {
		d.Writes = []Mark{}
	}
	c.finishHolds(d.End)
	if len(c.in.Violations) > 0 {
		d.Violations = d.Violations[:0] // the result's, with their overlap, replace the trace's instants
	}
	for _, v := range c.in.Violations {
		end := v.StartNS + v.OverlapNS
		d.Violations = append(d.Violations, Violation{Res: uint64(v.Resource), Owners: [2]int{int(v.Owners[0]), int(v.Owners[1])},
			Ballot: [2]string{v.Ballots[0].String(), v.Ballots[1].String()}, Start: v.StartNS, End: end,
			Q: c.violationQ(v.Resource, v.StartNS), EQ: c.lastQAt(end)})
	}
	for i := range c.msgs {
		if c.msgs[i].Deliver < 0 && c.msgs[i].Drop == "" {
			c.msgs[i].Drop = "in flight at the end"
			if c.in.NoDropReasons {
				c.msgs[i].Drop = "not delivered: lost, or still in flight at the end (a UDP run does not trace why)"
			}
		}
	}
	d.TotalMsgs, d.TotalSelf = c.total, c.self
	d.Msgs, d.Kept = keepMessages(c.msgs, c.total, d.Violations, d.Start, d.End, c.lim.Messages)
	if d.Msgs == nil {
		d.Msgs = []Msg{}
	}
	d.Gaps = c.gaps()
	d.Records = c.seq
	if len(d.Steps) == 0 {
		c.dropSeqs()
	}
	d.Rows = nil
	for i := 0; i < c.nodes; i++ {
		role := ""
		if i < c.in.Acceptors {
			role += "A"
		}
		if i < c.in.Proposers {
			if role != "" {
				role += "+"
			}
			role += "P"
		}
		label := fmt.Sprintf("n%d", i)
		if role != "" {
			label += " " + role
		}
		d.Rows = append(d.Rows, label)
	}
	return *d
}

// finishSteps ends the step list: the records after the last command
// (the replay's verdict) are a step of their own.
func (c *Collector) finishSteps() {
	d := &c.d
	if d.Steps == nil {
		d.Steps = []Step{}
		return
	}
	if last := d.Steps[len(d.Steps)-1]; c.seq > last.Q {
		d.Steps = append(d.Steps, Step{Q: c.seq, Line: last.Line, Cmd: "end of the scenario (the verdict)", T: c.last,
			Nodes: last.Nodes, Recs: c.stepLines, More: c.stepMore})
	}
	for i := range d.Steps {
		if d.Steps[i].Recs == nil {
			d.Steps[i].Recs = []string{}
		}
		if d.Steps[i].Nodes == nil {
			d.Steps[i].Nodes = []string{}
		}
	}
}

// violationQ is the sequence number of the trace's violation record on
// res at t, or the first record at t.
func (c *Collector) violationQ(res algorithms.ResourceID, t int64) int64 {
	for _, v := range c.violQ {
		if v.res == res && v.t == t {
			return v.q
		}
	}
	k := sort.Search(len(c.timeQ), func(i int) bool { return c.timeQ[i].t >= t })
	if k < len(c.timeQ) {
		return c.timeQ[k].q
	}
	return c.seq
}

// lastQAt is the sequence number of the last record at or before t.
func (c *Collector) lastQAt(t int64) int64 {
	k := sort.Search(len(c.timeQ), func(i int) bool { return c.timeQ[i].t > t })
	if k < len(c.timeQ) {
		return c.timeQ[k].q - 1
	}
	return c.seq
}

// dropSeqs clears the sequence numbers of a trace without steps: the page
// does not use them, and they would only make the file longer.
func (c *Collector) dropSeqs() {
	d := &c.d
	for i := range d.Msgs {
		d.Msgs[i].SendQ, d.Msgs[i].DeliverQ = 0, 0
	}
	for i := range d.Holds {
		d.Holds[i].Q, d.Holds[i].EQ = 0, 0
	}
	for _, ss := range [][]Span{d.Down, d.Partitions} {
		for i := range ss {
			ss[i].Q, ss[i].EQ = 0, 0
		}
	}
	for _, ms := range [][]Mark{d.Crashes, d.Restarts} {
		for i := range ms {
			ms[i].Q = 0
		}
	}
	for i := range d.Violations {
		d.Violations[i].Q, d.Violations[i].EQ = 0, 0
	}
}

// finishFaults fills in the crashes, restarts, down times and partitions,
// those still on ending at end.
func (c *Collector) finishFaults(end int64) {
	d := &c.d
	at := func(qs []int64, i int) int64 {
		if i < len(qs) {
			return qs[i]
		}
		return c.seq + 1 // still on at the end
	}
	d.Crashes, d.Restarts = []Mark{}, []Mark{}
	for i, m := range c.faults.Crashes {
		d.Crashes = append(d.Crashes, Mark{Node: node(m.Node), T: m.T, Q: at(c.crashQ, i)})
	}
	for i, m := range c.faults.Restarts {
		d.Restarts = append(d.Restarts, Mark{Node: node(m.Node), T: m.T, Note: fmt.Sprintf("restart #%d", m.Restarts), Q: at(c.restartQ, i)})
	}
	down, parts := c.faults.Until(end)
	d.Down, d.Partitions = []Span{}, []Span{}
	for _, s := range down {
		// A down time runs from its node's crash to its restart.
		q, eq := c.markQ(c.faults.Crashes, c.crashQ, s.Node, s.Start), c.markQ(c.faults.Restarts, c.restartQ, s.Node, s.End)
		d.Down = append(d.Down, Span{Node: node(s.Node), Start: s.Start, End: s.End, Q: q, EQ: eq})
	}
	for i, p := range parts {
		note := sides(p.SideA, c.nodes) // an episode still on at the end
		if i < len(c.partNotes) {
			note = c.partNotes[i]
		}
		d.Partitions = append(d.Partitions, Span{Node: -1, Start: p.Start, End: p.End, Note: note, Q: at(c.partQ, i), EQ: at(c.healQ, i)})
	}
}

// markQ is the sequence number of n's crash or restart at t among marks
// (whose numbers are qs), or one past the last record (still down).
func (c *Collector) markQ(marks []record.NodeMark, qs []int64, n algorithms.NodeID, t int64) int64 {
	for i, m := range marks {
		if m.Node == n && m.T == t && i < len(qs) {
			return qs[i]
		}
	}
	return c.seq + 1
}

// finishHolds fills in the holds: the first Limits.Holds of those that
// ended, then of those still open (lasting at least to end).
func (c *Collector) finishHolds(end int64) {
	d := &c.d
	d.Holds = []Hold{}
	for i, h := range c.holds.Done {
		var q [2]int64
		if j := i - c.holdQBase; j >= 0 && j < len(c.holdQ) {
			q = c.holdQ[j]
		}
		d.Holds = append(d.Holds, Hold{Node: node(h.Owner), Res: uint64(h.Res), Ballot: h.Ballot.String(), Start: h.Start, End: h.End, Q: q[0], EQ: q[1]})
	}
	d.TotalHolds = c.holds.Total
	used := map[holdKey]int{}
	for _, h := range c.holds.Open() {
		d.TotalHolds++
		if h.End <= h.Start || h.End > end {
			h.End = end // the hold lasted at least to the end of the trace
		}
		k := holdKey{h.Owner, h.Res, h.Ballot}
		q := int64(0)
		if qs := c.openQ[k]; used[k] < len(qs) {
			q = qs[used[k]]
		}
		used[k]++
		if len(d.Holds) < c.lim.Holds {
			d.Holds = append(d.Holds, Hold{Node: node(h.Owner), Res: uint64(h.Res), Ballot: h.Ballot.String(), Start: h.Start, End: h.End, Q: q, EQ: c.seq + 1})
		}
	}
}

// gaps are the stretches of time whose messages or holds are not all in
// the file, from the buckets counted as the records passed.
func (c *Collector) gaps() []Gap {
	d := &c.d
	out := []Gap{}
	if len(d.Msgs) < c.total {
		times := make([]int64, len(d.Msgs))
		for i, m := range d.Msgs {
			times[i] = m.Send
		}
		out = append(out, c.sendTimes.gaps("messages", times, d.Start, d.End)...)
	}
	if len(d.Holds) < d.TotalHolds {
		times := make([]int64, len(d.Holds))
		for i, h := range d.Holds {
			times[i] = h.Start
		}
		out = append(out, c.holdTimes.gaps("holds", times, d.Start, d.End)...)
	}
	return out
}

// sides names the two sides of a partition from its side-A bit mask.
func sides(mask uint64, nodes int) string {
	var a, b []string
	for i := 0; i < nodes && i < 64; i++ {
		if mask&(1<<i) != 0 {
			a = append(a, fmt.Sprintf("n%d", i))
		} else {
			b = append(b, fmt.Sprintf("n%d", i))
		}
	}
	return fmt.Sprintf("%v | %v", a, b)
}

// keepMessages returns at most limit of the collected messages in send
// order: all if they fit, else those sent nearest a violation or, without
// one, nearest the start or the end of the trace; and a note saying
// which (total: how many the trace had).
func keepMessages(msgs []Msg, total int, vs []Violation, start, end int64, limit int) ([]Msg, string) {
	if len(msgs) <= limit && len(msgs) == total {
		return msgs, ""
	}
	var times []int64
	note := fmt.Sprintf("the %d of %d messages sent nearest the start and the end of the trace", min(limit, len(msgs)), total)
	if len(vs) > 0 {
		for _, v := range vs {
			times = append(times, v.Start)
		}
		note = fmt.Sprintf("the %d of %d messages sent nearest a violation", min(limit, len(msgs)), total)
	} else {
		times = []int64{start, end}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	keep := selectNearest(len(msgs), limit, func(k int) int64 { return nearest(times, msgs[k].Send) })
	out := make([]Msg, len(keep))
	for i, k := range keep {
		out[i] = msgs[k]
	}
	return out, note
}

// selectNearest returns, in increasing order, the indices 0..n-1 of the
// (at most) limit smallest scores (ties: the lower index).
func selectNearest(n, limit int, score func(int) int64) []int {
	type entry struct {
		dist int64
		idx  int
	}
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{score(i), i}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.idx, b.idx)) })
	idx := make([]int, max(0, min(limit, n)))
	for i := range idx {
		idx[i] = es[i].idx
	}
	sort.Ints(idx)
	return idx
}

// Render writes the page for d.
func Render(w io.Writer, d Data) error {
	js, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	return page.Execute(w, struct {
		Title string
		Data  template.JS
		CSS   template.CSS
		JS    template.JS
	}{d.Title, template.JS(js), template.CSS(pageCSS), template.JS(pageJS)})
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1 id="title">{{.Title}}</h1>
<div id="summary"></div>
<div id="errors"></div>
<div id="controls">
<button id="zoom-in" title="zoom in (+)">+</button>
<button id="zoom-out" title="zoom out (-)">&minus;</button>
<button id="zoom-reset" title="show the whole run (0)">whole run</button>
axis: <button id="axis-time" title="true time">time</button><button id="axis-step" title="one step per scenario command">steps</button>
<span id="jump"></span>
<span class="hint">wheel: zoom at the pointer &middot; drag: pan &middot; hover: details<span id="stephint"> &middot; click, &larr; &rarr;: select a step</span></span>
</div>
<div id="legend"></div>
</header>
<section id="stepper" style="display:none">
<button id="step-prev" title="previous step (&larr;)">&larr;</button>
<input id="stepslider" type="range" min="0" max="0" value="0">
<button id="step-next" title="next step (&rarr;)">&rarr;</button>
<b id="stepno"></b>: <span id="stepcmd"></span> <span id="stepwhere" class="hint"></span>
<div id="stateshead" class="hint"></div>
<table id="states"></table>
<div class="hint">what this step did (the trace's records):</div>
<pre id="steprecs"></pre>
</section>
<section>
<h2>who holds the lease <span id="holdnote"></span></h2>
<svg id="timeline" class="view"></svg>
<h2>messages <span id="msgnote"></span></h2>
<svg id="sequence" class="view"></svg>
</section>
<div id="tip" role="tooltip"></div>
<footer id="meta"></footer>
<script id="data" type="application/json">{{.Data}}</script>
<script>{{.JS}}</script>
</body>
</html>
`))

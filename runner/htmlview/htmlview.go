// Package htmlview writes a run's trace as one self-contained interactive
// HTML file: a hold timeline per node (crashes, downtime, partitions and
// lease-invariant violations marked) above a message-sequence view on the
// same time axis, with zoom and pan, in which hovering a message shows its
// kind, ballot, sender, receiver, send and delivery times.
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
// Limits.Holds hold intervals (the earliest) are embedded, and the page
// says how many of how many it shows. The Collector keeps at most 8 ×
// Limits.Messages messages in memory on the way (see Collector).
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
}

// Msg is one message: sent at Send, delivered at Deliver (-1: dropped,
// with Drop the reason, or never delivered before the end).
type Msg struct {
	Kind    string `json:"k"`
	From    int    `json:"f"`
	To      int    `json:"to"`
	Res     uint64 `json:"r"`
	Ballot  string `json:"b"`
	Send    int64  `json:"s"`
	Deliver int64  `json:"d"`
	Drop    string `json:"x,omitempty"`
	Dup     bool   `json:"dup,omitempty"` // a copy the network made
}

// Hold is one hold interval of a node.
type Hold struct {
	Node   int    `json:"n"`
	Res    uint64 `json:"r"`
	Ballot string `json:"b"`
	Start  int64  `json:"s"`
	End    int64  `json:"e"`
}

// Span is a stretch of time on one node (-1: every node).
type Span struct {
	Node  int    `json:"n"`
	Start int64  `json:"s"`
	End   int64  `json:"e"`
	Note  string `json:"t,omitempty"`
}

// Mark is an instant on one node.
type Mark struct {
	Node int    `json:"n"`
	T    int64  `json:"t"`
	Note string `json:"t2,omitempty"`
}

// Violation is an overlap of two owners' holds.
type Violation struct {
	Res    uint64    `json:"r"`
	Owners [2]int    `json:"o"`
	Ballot [2]string `json:"b"`
	Start  int64     `json:"s"`
	End    int64     `json:"e"`
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
	// TotalMsgs and TotalHolds: how many the trace had; fewer are
	// embedded when it had more than the limits.
	TotalMsgs  int    `json:"total_msgs"`
	TotalHolds int    `json:"total_holds"`
	Kept       string `json:"kept,omitempty"` // which messages were kept, when not all
}

// Collector builds the page's data from a run's trace records as they
// happen (it is a runner.Observer), so a long run's trace is never held
// whole. Messages are kept in memory up to 8 times Limits.Messages; past
// that, half are let go: those farthest from the violations known
// (Input.Violations) or seen in the trace so far, the start of the trace
// and the present (messages still in flight are always kept). Finish then
// picks the Limits.Messages to embed.
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
	seenViols []int64 // violation times seen in the trace so far
}

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
		pending: map[algorithms.Message][]int{}, lastSent: map[algorithms.Message]int{},
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
	case runner.TraceViolation:
		c.seenViols = append(c.seenViols, r.T)
		if len(c.in.Violations) == 0 {
			c.d.Violations = append(c.d.Violations, Violation{Res: uint64(r.Res),
				Owners: [2]int{node(r.Owner), node(algorithms.NodeID(r.X))}, Start: r.T, End: r.T})
		}
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
	if len(c.msgs) >= 8*c.lim.Messages {
		c.compact(r.T)
	}
	c.msgs = append(c.msgs, Msg{Kind: m.Kind.String(), From: node(m.From), To: node(m.To), Res: uint64(m.Resource),
		Ballot: m.Ballot.String(), Send: r.T, Deliver: -1})
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
		m.Dup, m.Deliver, m.Drop = true, -1, ""
		c.total++
		c.msgs = append(c.msgs, m)
		q = []int{len(c.msgs) - 1}
	}
	k := q[0]
	if len(q) == 1 {
		delete(c.pending, r.Msg)
	} else {
		c.pending[r.Msg] = q[1:]
	}
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
	c.finishFaults(d.End)
	c.finishHolds(d.End)
	if len(c.in.Violations) > 0 {
		d.Violations = d.Violations[:0] // the result's, with their overlap, replace the trace's instants
	}
	for _, v := range c.in.Violations {
		d.Violations = append(d.Violations, Violation{Res: uint64(v.Resource), Owners: [2]int{int(v.Owners[0]), int(v.Owners[1])},
			Ballot: [2]string{v.Ballots[0].String(), v.Ballots[1].String()}, Start: v.StartNS, End: v.StartNS + v.OverlapNS})
	}
	for i := range c.msgs {
		if c.msgs[i].Deliver < 0 && c.msgs[i].Drop == "" {
			c.msgs[i].Drop = "in flight at the end"
		}
	}
	d.TotalMsgs = c.total
	d.Msgs, d.Kept = keepMessages(c.msgs, c.total, d.Violations, d.Start, d.End, c.lim.Messages)
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

// finishFaults fills in the crashes, restarts, down times and partitions,
// those still on ending at end.
func (c *Collector) finishFaults(end int64) {
	d := &c.d
	d.Crashes, d.Restarts = []Mark{}, []Mark{}
	for _, m := range c.faults.Crashes {
		d.Crashes = append(d.Crashes, Mark{Node: node(m.Node), T: m.T})
	}
	for _, m := range c.faults.Restarts {
		d.Restarts = append(d.Restarts, Mark{Node: node(m.Node), T: m.T, Note: fmt.Sprintf("restart #%d", m.Restarts)})
	}
	down, parts := c.faults.Until(end)
	d.Down, d.Partitions = []Span{}, []Span{}
	for _, s := range down {
		d.Down = append(d.Down, Span{Node: node(s.Node), Start: s.Start, End: s.End})
	}
	for i, p := range parts {
		note := sides(p.SideA, c.nodes) // an episode still on at the end
		if i < len(c.partNotes) {
			note = c.partNotes[i]
		}
		d.Partitions = append(d.Partitions, Span{Node: -1, Start: p.Start, End: p.End, Note: note})
	}
}

// finishHolds fills in the holds: the first Limits.Holds of those that
// ended, then of those still open (lasting at least to end).
func (c *Collector) finishHolds(end int64) {
	d := &c.d
	d.Holds = []Hold{}
	for _, h := range c.holds.Done {
		d.Holds = append(d.Holds, Hold{Node: node(h.Owner), Res: uint64(h.Res), Ballot: h.Ballot.String(), Start: h.Start, End: h.End})
	}
	d.TotalHolds = c.holds.Total
	for _, h := range c.holds.Open() {
		d.TotalHolds++
		if h.End <= h.Start || h.End > end {
			h.End = end // the hold lasted at least to the end of the trace
		}
		if len(d.Holds) < c.lim.Holds {
			d.Holds = append(d.Holds, Hold{Node: node(h.Owner), Res: uint64(h.Res), Ballot: h.Ballot.String(), Start: h.Start, End: h.End})
		}
	}
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
<div id="controls">
<button id="zoom-in" title="zoom in (+)">+</button>
<button id="zoom-out" title="zoom out (-)">&minus;</button>
<button id="zoom-reset" title="show the whole run (0)">whole run</button>
<span id="jump"></span>
<span class="hint">wheel: zoom at the pointer &middot; drag: pan &middot; hover: details</span>
</div>
</header>
<section>
<h2>who holds the lease</h2>
<svg id="timeline"></svg>
<h2>messages <span id="msgnote"></span></h2>
<svg id="sequence"></svg>
</section>
<div id="tip" role="tooltip"></div>
<footer id="meta"></footer>
<script id="data" type="application/json">{{.Data}}</script>
<script>{{.JS}}</script>
</body>
</html>
`))

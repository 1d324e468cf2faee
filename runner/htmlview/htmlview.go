// Package htmlview writes a run's trace as one self-contained interactive
// HTML file: a hold timeline per node (crashes, downtime, partitions and
// lease-invariant violations marked) above a message-sequence view on the
// same time axis, with zoom and pan, in which hovering a message shows its
// kind, ballot, sender, receiver, send and delivery times.
//
// The file needs no network: its script, style and data are inline, and it
// names no external resource. The data comes from the JSON-lines trace
// (runner.Options.Trace, Options.ViolationTrace, sim.ReplayJSON), so
// whatever produced a trace can be viewed.
//
// A long run's trace holds millions of messages; the file stays bounded:
// at most Limits.Messages messages (those sent nearest a violation, or
// nearest the start and the end of the trace when there is none) and
// Limits.Holds hold intervals (the earliest) are embedded, and the page
// says how many of how many it shows. A Collector reads the trace as it is
// written and keeps at most 8 × Limits.Messages messages in memory on the
// way (see Collector).
package htmlview

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"

	"leaselab/runner"
)

// Limits bound what one file embeds.
type Limits struct {
	Messages int // messages drawn (0: DefaultLimits.Messages)
	Holds    int // hold intervals drawn (0: DefaultLimits.Holds)
}

// DefaultLimits keep a file under a few megabytes (a message is about
// 100 bytes of JSON).
var DefaultLimits = Limits{Messages: 20000, Holds: 20000}

// Input is what the page shows.
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
	Trace      []byte // JSON lines (runner.AppendTraceJSON)
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

// line is the part of a trace record the view reads (message records are
// not decoded whole: see Collector.message).
type line struct {
	T       int64  `json:"t"`
	Node    int    `json:"node"`
	What    string `json:"what"`
	Res     uint64 `json:"res"`
	Owner   int    `json:"owner"`
	Owners  []int  `json:"owners"`
	Ballot  string `json:"ballot"`
	End     int64  `json:"end"`
	Start   int64  `json:"start"`
	SideA   uint64 `json:"side_a"`
	Restart int64  `json:"restarts"`
}

type wireMsg struct {
	Kind   string `json:"kind"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Res    uint64 `json:"res"`
	Ballot string `json:"ballot"`
}

// Collector builds the page's data from a JSON-lines trace written to it
// as the run goes (it is an io.Writer: hand it to runner.Options.Trace),
// so a long run's trace is never held whole. Messages are kept in memory
// up to 8 times Limits.Messages; past that, half are let go: those
// farthest from the violations known (Input.Violations) or seen in the
// trace so far, the start of the trace and the present (messages still in
// flight are always kept). Finish then
// picks the Limits.Messages to embed.
type Collector struct {
	in        Input
	lim       Limits
	d         Data
	partial   []byte
	n         int // lines read
	err       error
	nodes     int
	first     int64
	last      int64
	downSince map[int]int64
	partStart int64
	partSide  uint64
	openHolds map[[3]string]Hold // node, res, ballot -> hold begun
	// Messages: msgs in send order; pending maps a message's content to
	// the indices in msgs of its undelivered sends, oldest first;
	// lastSent to its latest send (for network duplicates).
	msgs      []Msg
	pending   map[string][]int
	lastSent  map[string]int
	total     int
	seenViols []int64 // violation times seen in the trace so far
}

// NewCollector starts collecting the trace of in (in.Trace is ignored;
// write the trace to the collector).
func NewCollector(in Input) *Collector {
	lim := in.Limits
	if lim.Messages <= 0 {
		lim.Messages = DefaultLimits.Messages
	}
	if lim.Holds <= 0 {
		lim.Holds = DefaultLimits.Holds
	}
	return &Collector{in: in, lim: lim, nodes: in.Nodes, first: -1, partStart: -1,
		downSince: map[int]int64{}, openHolds: map[[3]string]Hold{}, pending: map[string][]int{}, lastSent: map[string]int{},
		d: Data{Title: in.Title, Meta: in.Meta, Start: in.StartNS, End: in.EndNS,
			Holds: []Hold{}, Down: []Span{}, Crashes: []Mark{}, Restarts: []Mark{}, Partitions: []Span{},
			Violations: []Violation{}, Msgs: []Msg{}}}
}

// Write takes trace bytes; lines may be split across calls. A malformed
// line makes this and every later call fail.
func (c *Collector) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n := len(p)
	for len(p) > 0 {
		k := bytes.IndexByte(p, '\n')
		if k < 0 {
			c.partial = append(c.partial, p...)
			break
		}
		lineBytes := p[:k]
		if len(c.partial) > 0 {
			lineBytes = append(c.partial, lineBytes...)
		}
		if err := c.line(lineBytes); err != nil {
			c.err = err
			return 0, err
		}
		c.partial = c.partial[:0]
		p = p[k+1:]
	}
	return n, nil
}

// Build reads in.Trace whole and returns the page's data.
func Build(in Input) (Data, error) {
	c := NewCollector(in)
	if _, err := c.Write(in.Trace); err != nil {
		return c.d, err
	}
	return c.Finish()
}

var (
	keyWhat   = []byte(`"what":"`)
	keyMsg    = []byte(`"msg":`)
	keyT      = []byte(`{"t":`)
	keyNode   = []byte(`,"node":`)
	keyKind   = []byte(`"kind":"`)
	keyFrom   = []byte(`,"from":`)
	keyTo     = []byte(`,"to":`)
	keyRes    = []byte(`,"res":`)
	keyBallot = []byte(`,"ballot":"`)
)

// fieldInt parses the integer after key (which ends in the colon).
func fieldInt(b, key []byte) (int64, bool) {
	i := bytes.Index(b, key)
	if i < 0 {
		return 0, false
	}
	rest := b[i+len(key):]
	neg := len(rest) > 0 && rest[0] == '-'
	if neg {
		rest = rest[1:]
	}
	var v int64
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		v = v*10 + int64(rest[n]-'0')
		n++
	}
	if n == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func (c *Collector) line(b []byte) error {
	c.n++
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	what := fieldString(b, keyWhat)
	switch what {
	case "send", "deliver", "drop", "dup":
		return c.message(b, what)
	}
	var l line
	l.Owner = -1
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("trace line %d: %v", c.n, err)
	}
	c.seen(l.T, l.Node)
	d := &c.d
	switch l.What {
	case "crash":
		d.Crashes = append(d.Crashes, Mark{Node: l.Node, T: l.T})
		c.downSince[l.Node] = l.T
	case "restart":
		d.Restarts = append(d.Restarts, Mark{Node: l.Node, T: l.T, Note: fmt.Sprintf("restart #%d", l.Restart)})
		if s, ok := c.downSince[l.Node]; ok {
			d.Down = append(d.Down, Span{Node: l.Node, Start: s, End: l.T})
			delete(c.downSince, l.Node)
		}
	case "partition":
		if c.partStart < 0 {
			c.partStart, c.partSide = l.T, l.SideA
		}
	case "heal":
		if c.partStart >= 0 {
			d.Partitions = append(d.Partitions, Span{Node: -1, Start: c.partStart, End: l.T, Note: sides(c.partSide, c.nodes)})
			c.partStart = -1
		}
	case "hold_start":
		c.openHolds[holdKey(l.Owner, l.Res, l.Ballot)] = Hold{Node: l.Owner, Res: l.Res, Ballot: l.Ballot, Start: l.T, End: l.End}
	case "hold_end":
		delete(c.openHolds, holdKey(l.Owner, l.Res, l.Ballot))
		d.TotalHolds++
		if len(d.Holds) < c.lim.Holds {
			d.Holds = append(d.Holds, Hold{Node: l.Owner, Res: l.Res, Ballot: l.Ballot, Start: l.Start, End: l.T})
		}
	case "violation":
		c.seenViols = append(c.seenViols, l.T)
		if len(c.in.Violations) == 0 && len(l.Owners) == 2 {
			d.Violations = append(d.Violations, Violation{Res: l.Res, Owners: [2]int{l.Owners[0], l.Owners[1]}, Start: l.T, End: l.T})
		}
	}
	return nil
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

// fieldString returns the string value after key (which ends in the
// opening quote), or "".
func fieldString(b, key []byte) string {
	i := bytes.Index(b, key)
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// message handles a send, deliver, drop or dup record without decoding
// it whole: the message object is a flat JSON object (no nested braces),
// its bytes are the key that pairs a delivery with its send (the trace
// has no message ids), so a delivery or drop goes to the earliest
// undelivered send of the same content; a delivery with no such send left
// is a copy the network duplicated, paired with the latest send.
func (c *Collector) message(b []byte, what string) error {
	i := bytes.Index(b, keyMsg)
	if !bytes.HasPrefix(b, keyT) || i < 0 {
		return fmt.Errorf("trace line %d: a %s record without t or msg", c.n, what)
	}
	j := bytes.IndexByte(b[i:], '}')
	if j < 0 {
		return fmt.Errorf("trace line %d: unterminated msg", c.n)
	}
	obj := b[i+len(keyMsg) : i+j+1]
	// Hand-parsed (a long run has millions of these lines); the header
	// (t, node, what) precedes the message object.
	t, ok1 := fieldInt(b[:i], keyT)
	node, ok2 := fieldInt(b[:i], keyNode)
	if !ok1 || !ok2 {
		return fmt.Errorf("trace line %d: malformed t or node in %q", c.n, b)
	}
	c.seen(t, int(node))
	key := string(obj)
	switch what {
	case "send":
		from, ok1 := fieldInt(obj, keyFrom)
		to, ok2 := fieldInt(obj, keyTo)
		res, ok3 := fieldInt(obj, keyRes)
		kind, ballot := fieldString(obj, keyKind), fieldString(obj, keyBallot)
		if !ok1 || !ok2 || !ok3 || kind == "" {
			return fmt.Errorf("trace line %d: malformed message %s", c.n, obj)
		}
		w := wireMsg{Kind: kind, From: int(from), To: int(to), Res: uint64(res), Ballot: ballot}
		c.total++
		if len(c.msgs) >= 8*c.lim.Messages {
			c.compact(t)
		}
		c.msgs = append(c.msgs, Msg{Kind: w.Kind, From: w.From, To: w.To, Res: w.Res, Ballot: w.Ballot, Send: t, Deliver: -1})
		c.pending[key] = append(c.pending[key], len(c.msgs)-1)
		c.lastSent[key] = len(c.msgs) - 1
	case "deliver", "drop":
		q := c.pending[key]
		if len(q) == 0 {
			k, ok := c.lastSent[key]
			if !ok {
				return nil // sent before the trace began (a violation trace's window) or let go
			}
			m := c.msgs[k]
			m.Dup, m.Deliver, m.Drop = true, -1, ""
			c.total++
			c.msgs = append(c.msgs, m)
			q = []int{len(c.msgs) - 1}
		}
		k := q[0]
		if len(q) == 1 {
			delete(c.pending, key)
		} else {
			c.pending[key] = q[1:]
		}
		if what == "deliver" {
			c.msgs[k].Deliver = t
		} else {
			reason := fieldString(b, []byte(`"reason":"`))
			if reason == "" {
				reason = "dropped"
			}
			c.msgs[k].Drop = reason
		}
	}
	return nil
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
func (c *Collector) Finish() (Data, error) {
	c.d.Title, c.d.Meta = c.in.Title, c.in.Meta
	if c.in.EndNS > 0 {
		c.d.End = c.in.EndNS
	}
	if c.in.StartNS > 0 {
		c.d.Start = c.in.StartNS
	}
	if c.err != nil {
		return c.d, c.err
	}
	if len(bytes.TrimSpace(c.partial)) > 0 {
		if err := c.line(c.partial); err != nil {
			return c.d, err
		}
		c.partial = nil
	}
	d := &c.d
	first := c.first
	if first < 0 {
		first = 0
	}
	if d.End <= 0 {
		d.End = c.last
	}
	if d.Start <= 0 || d.Start > first {
		d.Start = min(first, d.End)
	}
	end := d.End
	// Still down, partitioned or holding at the end.
	var still []int
	for n := range c.downSince {
		still = append(still, n)
	}
	sort.Ints(still)
	for _, n := range still {
		d.Down = append(d.Down, Span{Node: n, Start: c.downSince[n], End: end})
	}
	if c.partStart >= 0 {
		d.Partitions = append(d.Partitions, Span{Node: -1, Start: c.partStart, End: end, Note: sides(c.partSide, c.nodes)})
	}
	var open []Hold
	for _, h := range c.openHolds {
		open = append(open, h)
	}
	sort.Slice(open, func(i, j int) bool {
		if open[i].Start != open[j].Start {
			return open[i].Start < open[j].Start
		}
		return open[i].Node < open[j].Node
	})
	for _, h := range open {
		d.TotalHolds++
		if h.End <= h.Start || h.End > end {
			h.End = end // the hold lasted at least to the end of the trace
		}
		if len(d.Holds) < c.lim.Holds {
			d.Holds = append(d.Holds, h)
		}
	}
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
	d.Msgs, d.Kept = keepMessages(c.msgs, c.total, d.Violations, d.Start, end, c.lim.Messages)
	d.Rows = d.Rows[:0]
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
	return *d, nil
}

func holdKey(owner int, res uint64, ballot string) [3]string {
	return [3]string{fmt.Sprint(owner), fmt.Sprint(res), ballot}
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

// Write builds the page for in and writes it to w.
func Write(w io.Writer, in Input) error {
	d, err := Build(in)
	if err != nil {
		return err
	}
	return Render(w, d)
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

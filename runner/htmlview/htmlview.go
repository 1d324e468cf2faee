// Package htmlview writes a run's trace as one self-contained interactive
// HTML file: a hold timeline per node (crashes, downtime, partitions and
// lease-invariant violations marked) above a message-sequence view on the
// same time axis, with zoom and pan, in which hovering a message shows its
// kind, ballot, sender, receiver, send and delivery times.
//
// The file needs no network: its script, style and data are inline, and it
// names no external resource. The data comes from the JSON-lines trace
// (runner.Options.Trace, Options.ViolationTrace, runner.ReplayJSON), so
// whatever produced a trace can be viewed.
//
// A long run's trace holds millions of messages; the file stays bounded:
// at most Limits.Messages messages (those nearest a violation, or the
// earliest when there is none) and Limits.Holds hold intervals (the
// earliest) are embedded, and the page says how many of how many it shows.
package htmlview

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
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

// line is the part of a trace record the view reads.
type line struct {
	T       int64           `json:"t"`
	Node    int             `json:"node"`
	What    string          `json:"what"`
	Msg     json.RawMessage `json:"msg"`
	Reason  string          `json:"reason"`
	Res     uint64          `json:"res"`
	Owner   int             `json:"owner"`
	Owners  []int           `json:"owners"`
	Ballot  string          `json:"ballot"`
	End     int64           `json:"end"`
	Start   int64           `json:"start"`
	SideA   uint64          `json:"side_a"`
	Restart int64           `json:"restarts"`
}

type wireMsg struct {
	Kind   string `json:"kind"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Res    uint64 `json:"res"`
	Ballot string `json:"ballot"`
}

// Build reads the trace into what the page shows.
func Build(in Input) (Data, error) {
	lim := in.Limits
	if lim.Messages <= 0 {
		lim.Messages = DefaultLimits.Messages
	}
	if lim.Holds <= 0 {
		lim.Holds = DefaultLimits.Holds
	}
	d := Data{Title: in.Title, Meta: in.Meta, Start: in.StartNS, End: in.EndNS,
		Holds: []Hold{}, Down: []Span{}, Crashes: []Mark{}, Restarts: []Mark{}, Partitions: []Span{},
		Violations: []Violation{}, Msgs: []Msg{}}
	nodes := in.Nodes
	var (
		lines     []line
		first     = int64(-1)
		last      int64
		downSince = map[int]int64{}
		partStart = int64(-1)
		partSide  uint64
		openHolds = map[[3]string]Hold{} // node, res, ballot -> hold begun
	)
	sc := bufio.NewScanner(bytes.NewReader(in.Trace))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l line
		l.Owner = -1
		if err := json.Unmarshal(b, &l); err != nil {
			return d, fmt.Errorf("trace line %d: %v", n, err)
		}
		if first < 0 {
			first = l.T
		}
		last = max(last, l.T)
		if l.Node >= nodes {
			nodes = l.Node + 1
		}
		switch l.What {
		case "send", "deliver", "drop", "dup":
			lines = append(lines, l) // second pass
		case "crash":
			d.Crashes = append(d.Crashes, Mark{Node: l.Node, T: l.T})
			downSince[l.Node] = l.T
		case "restart":
			d.Restarts = append(d.Restarts, Mark{Node: l.Node, T: l.T, Note: fmt.Sprintf("restart #%d", l.Restart)})
			if s, ok := downSince[l.Node]; ok {
				d.Down = append(d.Down, Span{Node: l.Node, Start: s, End: l.T})
				delete(downSince, l.Node)
			}
		case "partition":
			if partStart < 0 {
				partStart, partSide = l.T, l.SideA
			}
		case "heal":
			if partStart >= 0 {
				d.Partitions = append(d.Partitions, Span{Node: -1, Start: partStart, End: l.T, Note: sides(partSide, nodes)})
				partStart = -1
			}
		case "hold_start":
			openHolds[holdKey(l.Owner, l.Res, l.Ballot)] = Hold{Node: l.Owner, Res: l.Res, Ballot: l.Ballot, Start: l.T, End: l.End}
		case "hold_end":
			k := holdKey(l.Owner, l.Res, l.Ballot)
			delete(openHolds, k)
			d.TotalHolds++
			if len(d.Holds) < lim.Holds {
				d.Holds = append(d.Holds, Hold{Node: l.Owner, Res: l.Res, Ballot: l.Ballot, Start: l.Start, End: l.T})
			}
		case "violation":
			if len(in.Violations) == 0 && len(l.Owners) == 2 {
				d.Violations = append(d.Violations, Violation{Res: l.Res, Owners: [2]int{l.Owners[0], l.Owners[1]}, Start: l.T, End: l.T})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return d, err
	}
	if first < 0 {
		first = 0
	}
	if d.End <= 0 {
		d.End = last
	}
	if d.Start <= 0 || d.Start > first {
		d.Start = min(first, d.End)
	}
	end := d.End
	// Still down, partitioned or holding at the end.
	var still []int
	for n := range downSince {
		still = append(still, n)
	}
	sort.Ints(still)
	for _, n := range still {
		d.Down = append(d.Down, Span{Node: n, Start: downSince[n], End: end})
	}
	if partStart >= 0 {
		d.Partitions = append(d.Partitions, Span{Node: -1, Start: partStart, End: end, Note: sides(partSide, nodes)})
	}
	var open []Hold
	for _, h := range openHolds {
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
		if len(d.Holds) < lim.Holds {
			d.Holds = append(d.Holds, h)
		}
	}
	for _, v := range in.Violations {
		d.Violations = append(d.Violations, Violation{Res: uint64(v.Resource), Owners: [2]int{int(v.Owners[0]), int(v.Owners[1])},
			Ballot: [2]string{v.Ballots[0].String(), v.Ballots[1].String()}, Start: v.StartNS, End: v.StartNS + v.OverlapNS})
	}
	msgs, err := pairMessages(lines, end)
	if err != nil {
		return d, err
	}
	d.TotalMsgs = len(msgs)
	d.Msgs, d.Kept = keepMessages(msgs, d.Violations, lim.Messages)
	for i := 0; i < nodes; i++ {
		role := ""
		if i < in.Acceptors {
			role += "A"
		}
		if i < in.Proposers {
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
	return d, nil
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

// pairMessages matches every send with its delivery or drop: the trace
// has no message ids, so a delivery (or drop) is paired with the earliest
// undelivered send of a message with the same content; a delivery with no
// such send left is a copy the network duplicated, paired with the latest
// send of that content.
func pairMessages(lines []line, end int64) ([]Msg, error) {
	var msgs []Msg
	pending := map[string][]int{} // content -> indices in msgs, oldest first
	lastSent := map[string]int{}
	for _, l := range lines {
		key := string(l.Msg)
		switch l.What {
		case "send":
			var w wireMsg
			if err := json.Unmarshal(l.Msg, &w); err != nil {
				return nil, fmt.Errorf("message at t=%d: %v", l.T, err)
			}
			msgs = append(msgs, Msg{Kind: w.Kind, From: w.From, To: w.To, Res: w.Res, Ballot: w.Ballot, Send: l.T, Deliver: -1})
			pending[key] = append(pending[key], len(msgs)-1)
			lastSent[key] = len(msgs) - 1
		case "deliver", "drop":
			q := pending[key]
			if len(q) == 0 {
				i, ok := lastSent[key]
				if !ok {
					continue // sent before a violation trace's window began
				}
				m := msgs[i]
				m.Dup, m.Deliver, m.Drop = true, -1, ""
				msgs = append(msgs, m)
				q = []int{len(msgs) - 1}
			}
			i := q[0]
			if len(q) == 1 {
				delete(pending, key)
			} else {
				pending[key] = q[1:]
			}
			if l.What == "deliver" {
				msgs[i].Deliver = l.T
			} else {
				msgs[i].Drop = l.Reason
				if msgs[i].Drop == "" {
					msgs[i].Drop = "dropped"
				}
			}
		}
	}
	for i := range msgs {
		if msgs[i].Deliver < 0 && msgs[i].Drop == "" {
			msgs[i].Drop = "in flight at the end"
		}
	}
	_ = end
	return msgs, nil
}

// keepMessages returns at most limit messages in send order: all if they
// fit, else those sent nearest a violation (or the earliest, without
// one), and a note saying which.
func keepMessages(msgs []Msg, vs []Violation, limit int) ([]Msg, string) {
	if len(msgs) <= limit {
		return msgs, ""
	}
	dist := func(m Msg) int64 { return m.Send }
	note := fmt.Sprintf("the first %d of %d messages", limit, len(msgs))
	if len(vs) > 0 {
		times := make([]int64, len(vs))
		for i, v := range vs {
			times[i] = v.Start
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		dist = func(m Msg) int64 {
			k := sort.Search(len(times), func(i int) bool { return times[i] >= m.Send })
			best := int64(1<<63 - 1)
			if k < len(times) {
				best = times[k] - m.Send
			}
			if k > 0 && m.Send-times[k-1] < best {
				best = m.Send - times[k-1]
			}
			return best
		}
		note = fmt.Sprintf("the %d of %d messages sent nearest a violation", limit, len(msgs))
	}
	// A max-heap of the limit nearest (ties: the earlier message).
	h := &farHeap{}
	for i, m := range msgs {
		e := heapEntry{dist: dist(m), idx: i}
		if h.Len() < limit {
			heap.Push(h, e)
		} else if e.less((*h)[0]) {
			(*h)[0] = e
			heap.Fix(h, 0)
		}
	}
	idx := make([]int, h.Len())
	for i, e := range *h {
		idx[i] = e.idx
	}
	sort.Ints(idx)
	out := make([]Msg, len(idx))
	for i, k := range idx {
		out[i] = msgs[k]
	}
	return out, note
}

type heapEntry struct {
	dist int64
	idx  int
}

// less: nearer, or as near and earlier.
func (a heapEntry) less(b heapEntry) bool {
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return a.idx < b.idx
}

// farHeap has the farthest entry on top.
type farHeap []heapEntry

func (h farHeap) Len() int           { return len(h) }
func (h farHeap) Less(i, j int) bool { return h[j].less(h[i]) }
func (h farHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *farHeap) Push(x any)        { *h = append(*h, x.(heapEntry)) }
func (h *farHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
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

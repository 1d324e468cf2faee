package experiments

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"leaselab/algorithms"
	"leaselab/plots"
	"leaselab/runner"
)

// Hold is one hold interval of a run (runner.Options.Holds).
type Hold struct {
	Resource uint64 `json:"resource"`
	Owner    int    `json:"owner"`
	Ballot   string `json:"ballot"`
	StartNS  int64  `json:"start_ns"`
	EndNS    int64  `json:"end_ns"`
}

// NodeSpan is a stretch of true time of one node (down after a crash).
type NodeSpan struct {
	Node    int   `json:"node"`
	StartNS int64 `json:"start_ns"`
	EndNS   int64 `json:"end_ns"`
}

// NodeMark is an instant on one node.
type NodeMark struct {
	Node int   `json:"node"`
	TNS  int64 `json:"t_ns"`
}

// TimelineRun is what the timeline chart shows of one run.
type TimelineRun struct {
	Variant    string             `json:"variant"`
	Algo       string             `json:"algo"`
	Seed       uint64             `json:"seed"`
	Nodes      int                `json:"nodes"`
	Acceptors  int                `json:"acceptors"`
	Proposers  int                `json:"proposers"`
	EndNS      int64              `json:"end_ns"`
	Holds      []Hold             `json:"holds"`
	Down       []NodeSpan         `json:"down"`
	Crashes    []NodeMark         `json:"crashes"`
	Restarts   []NodeMark         `json:"restarts"`
	Partitions [][2]int64         `json:"partitions_ns"` // [start, end] of each
	Violations []runner.Violation `json:"violations"`
}

// ParseHolds reads the hold-interval CSV of runner.Options.Holds:
// resource,owner,ballot,start_ns,end_ns (a header line and lines starting
// with '#', such as the "# meta" provenance line, are allowed).
func ParseHolds(data []byte) ([]Hold, error) {
	var out []Hold
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue // blank, or a comment such as the "# meta" line
		}
		f := strings.Split(text, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("holds line %d: want 5 fields, got %d", line, len(f))
		}
		res, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			if line == 1 {
				continue // header
			}
			return nil, fmt.Errorf("holds line %d: resource %q: %v", line, f[0], err)
		}
		owner, err1 := strconv.Atoi(f[1])
		start, err2 := strconv.ParseInt(f[3], 10, 64)
		end, err3 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("holds line %d: malformed %q", line, text)
		}
		out = append(out, Hold{Resource: res, Owner: owner, Ballot: f[2], StartNS: start, EndNS: end})
	}
	return out, sc.Err()
}

// traceLine is the part of a trace record (runner.AppendTraceJSON) the
// timeline needs.
type traceLine struct {
	T     int64  `json:"t"`
	Node  int    `json:"node"`
	What  string `json:"what"`
	SideA uint64 `json:"side_a"`
}

// ParseTraceFaults reads crashes, restarts and partitions from a JSON-lines
// trace (partitions shade every row: which side a node was on is in the
// trace's side_a mask, but the chart does not need it). Only the few lines that matter are decoded; the rest (every
// message) are skipped by a substring test.
func ParseTraceFaults(data []byte, end int64) (down []NodeSpan, crashes, restarts []NodeMark, parts [][2]int64, err error) {
	downSince := map[int]int64{}
	partStart := int64(-1)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		b := sc.Bytes()
		if !bytes.Contains(b, []byte(`"what":"crash"`)) && !bytes.Contains(b, []byte(`"what":"restart"`)) &&
			!bytes.Contains(b, []byte(`"what":"partition"`)) && !bytes.Contains(b, []byte(`"what":"heal"`)) {
			continue
		}
		var tl traceLine
		if e := json.Unmarshal(b, &tl); e != nil {
			return nil, nil, nil, nil, fmt.Errorf("trace: %v in %q", e, b)
		}
		switch tl.What {
		case "crash":
			crashes = append(crashes, NodeMark{tl.Node, tl.T})
			downSince[tl.Node] = tl.T
		case "restart":
			restarts = append(restarts, NodeMark{tl.Node, tl.T})
			if s, ok := downSince[tl.Node]; ok {
				down = append(down, NodeSpan{tl.Node, s, tl.T})
				delete(downSince, tl.Node)
			}
		case "partition":
			if partStart < 0 {
				partStart = tl.T
			}
		case "heal":
			if partStart >= 0 {
				parts = append(parts, [2]int64{partStart, tl.T})
				partStart = -1
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	// Still down or partitioned at the end of the run.
	var still []int
	for n := range downSince {
		still = append(still, n)
	}
	sort.Ints(still)
	for _, n := range still {
		down = append(down, NodeSpan{n, downSince[n], end})
	}
	if partStart >= 0 {
		parts = append(parts, [2]int64{partStart, end})
	}
	return down, crashes, restarts, parts, nil
}

func (r *Report) buildTimelines() error {
	if r.Exp.Kind != Timelines {
		return nil
	}
	for _, rec := range r.Runs {
		if rec.Err != "" {
			continue
		}
		t, err := TimelineOf(rec.Result, rec.holds, rec.trace, rec.Variant)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", r.Exp.Name, rec.Variant, err)
		}
		r.Timelines = append(r.Timelines, t)
	}
	return nil
}

// TimelineOf gathers what the timeline chart shows of one run from its
// result, its hold-interval CSV (runner.Options.Holds) and its JSON-lines
// trace (runner.Options.Trace); series names the run in the chart (and
// picks its colour), e.g. the algorithm.
func TimelineOf(res runner.Result, holdsCSV, trace []byte, series string) (TimelineRun, error) {
	s := res.Params
	c := algorithms.NewCluster(s.Acceptors, s.Proposers)
	end := res.SimulatedNS
	if end <= 0 {
		end = int64(s.Duration)
	}
	holds, err := ParseHolds(holdsCSV)
	if err != nil {
		return TimelineRun{}, err
	}
	down, crashes, restarts, parts, err := ParseTraceFaults(trace, end)
	if err != nil {
		return TimelineRun{}, err
	}
	if holds == nil {
		holds = []Hold{}
	}
	if down == nil {
		down = []NodeSpan{}
	}
	if crashes == nil {
		crashes = []NodeMark{}
	}
	if restarts == nil {
		restarts = []NodeMark{}
	}
	if parts == nil {
		parts = [][2]int64{}
	}
	vs := res.ViolationList
	if vs == nil {
		vs = []runner.Violation{}
	}
	return TimelineRun{
		Variant: series, Algo: res.Algo, Seed: res.Seed, Nodes: c.Nodes, Acceptors: c.Acceptors,
		Proposers: c.Proposers, EndNS: end, Holds: holds, Down: down, Crashes: crashes, Restarts: restarts,
		Partitions: parts, Violations: vs,
	}, nil
}

// Figure is the one-panel chart of a single run (leaselab run --timeline).
func (t TimelineRun) Figure() plots.Figure {
	title := fmt.Sprintf("%s, seed %d: %d holds, %d violations", t.Variant, t.Seed, len(t.Holds), len(t.Violations))
	return plots.Figure{
		Title:       "who holds the lease",
		Panels:      []plots.Panel{t.Chart(title)},
		PanelWidth:  9 * vg.Inch,
		PanelHeight: vg.Length(1.1+0.32*float64(t.Nodes)) * vg.Inch,
		Notes:       []string{"Bars: hold intervals in true time, one row per node (A = acceptor, P = proposer)."},
	}
}

// Chart turns the run into a timeline panel: seconds of true time, one row
// per node (labelled with its roles).
func (t TimelineRun) Chart(title string) plots.Timeline {
	sec := func(ns int64) float64 { return float64(ns) / 1e9 }
	tl := plots.Timeline{Title: title, Series: t.Variant, End: sec(t.EndNS)}
	for n := 0; n < t.Nodes; n++ {
		var roles []string
		if n < t.Acceptors {
			roles = append(roles, "A")
		}
		if n < t.Proposers {
			roles = append(roles, "P")
		}
		tl.Rows = append(tl.Rows, fmt.Sprintf("n%d %s", n, strings.Join(roles, "+")))
	}
	row := func(n int) (int, bool) { return n, n >= 0 && n < t.Nodes }
	for _, h := range t.Holds {
		if r, ok := row(h.Owner); ok {
			tl.Holds = append(tl.Holds, plots.Interval{Row: r, Start: sec(h.StartNS), End: sec(h.EndNS)})
		}
	}
	for _, d := range t.Down {
		if r, ok := row(d.Node); ok {
			tl.Down = append(tl.Down, plots.Interval{Row: r, Start: sec(d.StartNS), End: sec(d.EndNS)})
		}
	}
	for _, m := range t.Crashes {
		if r, ok := row(m.Node); ok {
			tl.Crashes = append(tl.Crashes, plots.Mark{Row: r, T: sec(m.TNS)})
		}
	}
	for _, m := range t.Restarts {
		if r, ok := row(m.Node); ok {
			tl.Restarts = append(tl.Restarts, plots.Mark{Row: r, T: sec(m.TNS)})
		}
	}
	for _, p := range t.Partitions {
		tl.Partitions = append(tl.Partitions, plots.Span{Start: sec(p[0]), End: sec(p[1])})
	}
	for _, v := range t.Violations {
		var rows []int
		for _, o := range v.Owners {
			if r, ok := row(int(o)); ok {
				rows = append(rows, r)
			}
		}
		tl.Violations = append(tl.Violations, plots.Span{Start: sec(v.StartNS), End: sec(v.StartNS + v.OverlapNS), Rows: rows})
	}
	return tl
}

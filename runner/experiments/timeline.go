package experiments

import (
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"leaselab/algorithms"
	"leaselab/plots"
	"leaselab/runner"
	"leaselab/runner/record"
)

// Hold is one hold interval of a run, as the holds CSV writes it
// (runner.Options.Holds: the ballot as its uint64 value).
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

// TimelineTrace collects what the timeline chart shows of a run from its
// trace records as they happen (hand it to runner.Options.Observers): the
// hold intervals, and the crashes, restarts and partitions.
type TimelineTrace struct {
	holds  record.Holds
	faults record.Faults
}

// Observe implements runner.Observer.
func (t *TimelineTrace) Observe(r *runner.TraceRec) {
	t.holds.Observe(r)
	t.faults.Observe(r)
}

func (r *Report) buildTimelines() {
	if r.Exp.Kind != Timelines {
		return
	}
	for _, rec := range r.Runs {
		if rec.Err != "" {
			continue
		}
		r.Timelines = append(r.Timelines, TimelineOf(rec.Result, rec.timeline, rec.Variant))
	}
}

// TimelineOf gathers what the timeline chart shows of one run from its
// result and what tr observed of its trace (nil: nothing); series names
// the run in the chart (and picks its colour), e.g. the algorithm.
func TimelineOf(res runner.Result, tr *TimelineTrace, series string) TimelineRun {
	s := res.Params
	c := algorithms.NewCluster(s.Acceptors, s.Proposers)
	end := res.SimulatedNS
	if end <= 0 {
		end = int64(s.Duration)
	}
	if tr == nil {
		tr = &TimelineTrace{}
	}
	t := TimelineRun{
		Variant: series, Algo: res.Algo, Seed: res.Seed, Nodes: c.Nodes, Acceptors: c.Acceptors,
		Proposers: c.Proposers, EndNS: end, Holds: []Hold{}, Down: []NodeSpan{}, Crashes: []NodeMark{},
		Restarts: []NodeMark{}, Partitions: [][2]int64{}, Violations: res.ViolationList,
	}
	if t.Violations == nil {
		t.Violations = []runner.Violation{}
	}
	for _, h := range tr.holds.Done {
		t.Holds = append(t.Holds, Hold{Resource: uint64(h.Res), Owner: int(h.Owner),
			Ballot: strconv.FormatUint(uint64(h.Ballot), 10), StartNS: h.Start, EndNS: h.End})
	}
	for _, m := range tr.faults.Crashes {
		t.Crashes = append(t.Crashes, NodeMark{int(m.Node), m.T})
	}
	for _, m := range tr.faults.Restarts {
		t.Restarts = append(t.Restarts, NodeMark{int(m.Node), m.T})
	}
	down, parts := tr.faults.Until(end)
	for _, d := range down {
		t.Down = append(t.Down, NodeSpan{int(d.Node), d.Start, d.End})
	}
	for _, p := range parts {
		t.Partitions = append(t.Partitions, [2]int64{p.Start, p.End})
	}
	return t
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

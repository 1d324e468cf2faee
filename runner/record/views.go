package record

import (
	"cmp"
	"slices"

	"leaselab/algorithms"
	"leaselab/runner"
)

// The state machines that the in-process views of a run (the timeline
// chart, runner/experiments; the HTML page, runner/htmlview) share. Each
// is a runner.Observer: hand it to runner.Options.Observers, or to another
// view that observes the records itself.

// Hold is one hold interval in true time.
type Hold struct {
	Res    algorithms.ResourceID
	Owner  algorithms.NodeID
	Ballot algorithms.Ballot
	Start  int64
	End    int64 // for a hold still open: the true end known at its start
}

// Holds collects a run's hold intervals from its hold_start and hold_end
// records.
type Holds struct {
	// Limit, if positive, bounds Done: later holds are counted in Total
	// but not kept.
	Limit int
	// Done: the finished holds, in the order they ended; Total: how many
	// finished.
	Done  []Hold
	Total int
	open  map[holdKey]Hold
}

type holdKey struct {
	owner  algorithms.NodeID
	res    algorithms.ResourceID
	ballot algorithms.Ballot
}

// Observe implements runner.Observer.
func (h *Holds) Observe(r *runner.TraceRec) {
	switch r.Kind {
	case runner.TraceHoldStart:
		if h.open == nil {
			h.open = map[holdKey]Hold{}
		}
		h.open[holdKey{r.Owner, r.Res, r.Ballot}] = Hold{Res: r.Res, Owner: r.Owner, Ballot: r.Ballot, Start: r.T, End: r.X}
	case runner.TraceHoldEnd:
		delete(h.open, holdKey{r.Owner, r.Res, r.Ballot})
		h.Total++
		if h.Limit <= 0 || len(h.Done) < h.Limit {
			h.Done = append(h.Done, Hold{Res: r.Res, Owner: r.Owner, Ballot: r.Ballot, Start: r.X, End: r.T})
		}
	}
}

// Open returns the holds begun and not ended (a trace that stops before
// the run's end, such as a violation window), by start, then owner,
// resource and ballot.
func (h *Holds) Open() []Hold {
	open := make([]Hold, 0, len(h.open))
	for _, x := range h.open {
		open = append(open, x)
	}
	slices.SortFunc(open, func(a, b Hold) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Res, b.Res), cmp.Compare(a.Ballot, b.Ballot))
	})
	return open
}

// NodeMark is an instant on one node: a crash, or a restart (Restarts:
// the node's restart count).
type NodeMark struct {
	Node     algorithms.NodeID
	T        int64
	Restarts int64
}

// NodeSpan is a stretch of true time of one node (down after a crash).
type NodeSpan struct {
	Node       algorithms.NodeID
	Start, End int64
}

// PartitionSpan is one partition episode; SideA is the bit mask of the
// nodes (0..63) on one side.
type PartitionSpan struct {
	Start, End int64
	SideA      uint64
}

// Faults follows a run's crashes, restarts and partitions (the one state
// machine that draws them on a timeline): a crash starts a node's down
// time, its restart ends it; a partition record starts an episode (while
// none is on), a heal ends it.
type Faults struct {
	Crashes, Restarts []NodeMark
	// Down: the down times ended by a restart, in the order they ended.
	Down []NodeSpan
	// Partitions: the episodes that healed, in order.
	Partitions []PartitionSpan
	downSince  map[algorithms.NodeID]int64
	part       PartitionSpan
	parted     bool
}

// Observe implements runner.Observer.
func (f *Faults) Observe(r *runner.TraceRec) {
	switch r.Kind {
	case runner.TraceCrash:
		f.Crashes = append(f.Crashes, NodeMark{Node: r.Node, T: r.T})
		if f.downSince == nil {
			f.downSince = map[algorithms.NodeID]int64{}
		}
		f.downSince[r.Node] = r.T
	case runner.TraceRestart:
		f.Restarts = append(f.Restarts, NodeMark{Node: r.Node, T: r.T, Restarts: r.X})
		if s, ok := f.downSince[r.Node]; ok {
			f.Down = append(f.Down, NodeSpan{Node: r.Node, Start: s, End: r.T})
			delete(f.downSince, r.Node)
		}
	case runner.TracePartition:
		if !f.parted {
			f.parted, f.part = true, PartitionSpan{Start: r.T, SideA: uint64(r.X)}
		}
	case runner.TraceHeal:
		if f.parted {
			f.part.End = r.T
			f.Partitions = append(f.Partitions, f.part)
			f.parted = false
		}
	}
}

// Until returns the down times and the partitions as of true time end:
// Down and Partitions, then the nodes still down (by node) and the
// episode still on, each ending at end.
func (f *Faults) Until(end int64) ([]NodeSpan, []PartitionSpan) {
	down := slices.Clone(f.Down)
	still := make([]algorithms.NodeID, 0, len(f.downSince))
	for n := range f.downSince {
		still = append(still, n)
	}
	slices.Sort(still)
	for _, n := range still {
		down = append(down, NodeSpan{Node: n, Start: f.downSince[n], End: end})
	}
	parts := slices.Clone(f.Partitions)
	if f.parted {
		p := f.part
		p.End = end
		parts = append(parts, p)
	}
	return down, parts
}

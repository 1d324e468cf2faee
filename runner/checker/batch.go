package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"leaselab/algorithms"
)

// Interval is one hold observed from outside: Holder believed it held
// Resource during [Start, End) of true time (ns on any one clock that all
// intervals share). Ballot is optional; it is copied into the violations
// the interval is part of.
type Interval struct {
	Resource algorithms.ResourceID
	Holder   algorithms.NodeID
	Ballot   algorithms.Ballot
	Start    int64
	End      int64
}

// Check returns every overlap of two different holders' intervals on one
// resource, sorted by (StartNS, Resource, Owners), with StartNS the
// instant the later interval began and OverlapNS how long both lasted; a
// violation's Owners and Ballots are in the order the two intervals began
// (equal starts: by holder). Seed is 0.
//
// Intervals are half open: one that ends at t and one that starts at t do
// not overlap, and an empty one (End == Start) holds nothing. Intervals of
// one holder on one resource that overlap each other are merged first
// (the holder cannot conflict with itself; the merged interval keeps the
// latest-starting ballot). An interval that ends before it starts is an
// error.
//
// Check runs the streaming Checker over the intervals in start order, so
// the two judge overlaps by one implementation.
func Check(intervals []Interval) ([]Violation, error) {
	hs := make([]Interval, 0, len(intervals))
	for i, iv := range intervals {
		if iv.End < iv.Start {
			return nil, fmt.Errorf("checker: interval %d (resource %d, holder %d) ends at %d, before it starts at %d",
				i, iv.Resource, iv.Holder, iv.End, iv.Start)
		}
		if iv.End > iv.Start {
			hs = append(hs, iv)
		}
	}
	hs = mergeOwn(hs)
	slices.SortFunc(hs, func(a, b Interval) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Holder, b.Holder))
	})
	c := NewChecker(trueClocks{}, 0, nil)
	c.maxKept = math.MaxInt
	last := int64(math.MinInt64)
	for _, iv := range hs {
		c.Acquired(iv.Start, iv.Holder, iv.Resource, iv.Ballot, algorithms.Local(iv.End))
		last = max(last, iv.End)
	}
	c.Finish(last)
	vs, _ := c.Violations()
	SortViolations(vs)
	return vs, nil
}

// SortViolations sorts vs by (StartNS, Resource, Owners): the order Check
// returns them in.
func SortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.StartNS, b.StartNS), cmp.Compare(a.Resource, b.Resource),
			cmp.Compare(a.Owners[0], b.Owners[0]), cmp.Compare(a.Owners[1], b.Owners[1]))
	})
}

// mergeOwn merges the overlapping intervals of each (resource, holder).
func mergeOwn(hs []Interval) []Interval {
	slices.SortFunc(hs, func(a, b Interval) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Holder, b.Holder), cmp.Compare(a.Start, b.Start))
	})
	out := hs[:0]
	for _, iv := range hs {
		if k := len(out) - 1; k >= 0 && out[k].Resource == iv.Resource && out[k].Holder == iv.Holder && iv.Start < out[k].End {
			out[k].End = max(out[k].End, iv.End)
			out[k].Ballot = iv.Ballot
			continue
		}
		out = append(out, iv)
	}
	return out
}

// trueClocks reads every holder's "until" as a true time: the intervals
// Check gets are already in true time.
type trueClocks struct{}

func (trueClocks) TrueAt(_ algorithms.NodeID, l algorithms.Local) int64 { return int64(l) }

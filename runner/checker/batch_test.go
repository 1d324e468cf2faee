package checker

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"leaselab/algorithms"
)

func TestCheckIntervals(t *testing.T) {
	b := func(n algorithms.NodeID) algorithms.Ballot { return algorithms.MakeBallot(1, 0, n) }
	tests := []struct {
		name string
		in   []Interval
		want []Violation
	}{
		{name: "none"},
		{
			name: "planted overlap",
			in: []Interval{
				{Resource: 3, Holder: 0, Ballot: b(0), Start: 0, End: 100},
				{Resource: 3, Holder: 1, Ballot: b(1), Start: 60, End: 200},
			},
			want: []Violation{{Resource: 3, Owners: [2]algorithms.NodeID{0, 1}, Ballots: [2]algorithms.Ballot{b(0), b(1)}, StartNS: 60, OverlapNS: 40}},
		},
		{
			name: "back to back, unsorted, other resources",
			in: []Interval{
				{Resource: 1, Holder: 1, Start: 100, End: 200},
				{Resource: 1, Holder: 0, Start: 0, End: 100},
				{Resource: 2, Holder: 2, Start: 50, End: 150},
				{Resource: 1, Holder: 2, Start: 70, End: 70}, // empty
			},
		},
		{
			name: "one holder's overlapping intervals merge",
			in: []Interval{
				{Resource: 1, Holder: 0, Start: 0, End: 100},
				{Resource: 1, Holder: 0, Start: 50, End: 80},
				{Resource: 1, Holder: 1, Start: 90, End: 120},
			},
			want: []Violation{{Resource: 1, Owners: [2]algorithms.NodeID{0, 1}, StartNS: 90, OverlapNS: 10}},
		},
		{
			name: "equal starts: by holder",
			in: []Interval{
				{Resource: 1, Holder: 5, Start: 10, End: 20},
				{Resource: 1, Holder: 4, Start: 10, End: 30},
			},
			want: []Violation{{Resource: 1, Owners: [2]algorithms.NodeID{4, 5}, StartNS: 10, OverlapNS: 10}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Check(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestCheckRejectsBackwardInterval(t *testing.T) {
	_, err := Check([]Interval{{Resource: 1, Holder: 2, Start: 10, End: 9}})
	if err == nil || !strings.Contains(err.Error(), "before it starts") {
		t.Fatalf("want an error naming the bad interval, got %v", err)
	}
}

// intervalLog is a HoldObserver that keeps the intervals the streaming
// checker saw.
type intervalLog struct{ ivs []Interval }

func (l *intervalLog) HoldStart(int64, algorithms.ResourceID, algorithms.NodeID, algorithms.Ballot, algorithms.NodeID, int64) {
}
func (l *intervalLog) ViolationBegins(int64, Violation) {}
func (l *intervalLog) HoldEnd(t int64, res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, start int64) {
	l.ivs = append(l.ivs, Interval{Resource: res, Holder: owner, Ballot: ballot, Start: start, End: t})
}

// bruteForce compares every pair of intervals: the definition, without
// the checker's machinery.
func bruteForce(ivs []Interval) []Violation {
	var out []Violation
	for i, a := range ivs {
		for _, b := range ivs[i+1:] {
			if a.Resource != b.Resource || a.Holder == b.Holder {
				continue
			}
			lo, hi := max(a.Start, b.Start), min(a.End, b.End)
			if hi <= lo {
				continue
			}
			first, second := a, b
			if b.Start < a.Start || b.Start == a.Start && b.Holder < a.Holder {
				first, second = b, a
			}
			out = append(out, Violation{Resource: a.Resource, Owners: [2]algorithms.NodeID{first.Holder, second.Holder},
				Ballots: [2]algorithms.Ballot{first.Ballot, second.Ballot}, StartNS: lo, OverlapNS: hi - lo})
		}
	}
	SortViolations(out)
	return out
}

// The streaming checker (events in time order), the batch Check on the
// intervals the streaming one saw, and a pairwise comparison all find the
// same violations on random histories.
func TestStreamingAndBatchAgree(t *testing.T) {
	found := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		log := &intervalLog{}
		c := NewChecker(trueClocks{}, 0, log)
		c.maxKept = 1 << 30
		var now int64
		for range 40 {
			// Strictly later each time: two holds that begin at one
			// instant are listed in an arbitrary order (the streaming
			// checker's: event order; Check's: by holder). Ends still
			// meet starts.
			now += 1 + r.Int64N(30)
			n := algorithms.NodeID(r.IntN(4))
			res := algorithms.ResourceID(r.IntN(3))
			switch k := r.IntN(10); {
			case k < 7:
				c.Acquired(now, n, res, algorithms.MakeBallot(1, 0, n), algorithms.Local(now+r.Int64N(100)))
			case k < 9:
				c.Lost(now, n, res)
			default:
				c.Crash(now, n)
			}
		}
		c.Finish(now + 200)
		stream, _ := c.Violations()
		SortViolations(stream)
		batch, err := Check(log.ivs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(stream, batch) {
			t.Fatalf("seed %d: streaming %+v\nbatch %+v", seed, stream, batch)
		}
		if pairs := bruteForce(log.ivs); !slices.Equal(pairs, batch) {
			t.Fatalf("seed %d: pairwise %+v\nbatch %+v", seed, pairs, batch)
		}
		found += len(batch)
	}
	if found == 0 {
		t.Fatal("no random history had an overlap: the test compares nothing")
	}
}

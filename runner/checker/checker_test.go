package checker

import (
	"testing"

	"leaselab/algorithms"
)

// testClock reads Offset + t + floor(t * RatePPB / 1e9), as the
// simulator's clock model (runner/faults.Clock, which imports the runner
// and so cannot be imported here) does, for the small times of the tests.
type testClock struct{ Offset, RatePPB int64 }

func (c testClock) local(t int64) int64 {
	x := t * c.RatePPB
	q := x / 1_000_000_000
	if x%1_000_000_000 != 0 && x < 0 {
		q--
	}
	return c.Offset + t + q
}

// trueAt is the first t at which the clock reads l or more.
func (c testClock) trueAt(l int64) int64 {
	lo, hi := int64(-1<<40), int64(1<<40)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if c.local(mid) >= l {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// testClocks gives each node its own clock.
type testClocks []testClock

func (c testClocks) TrueAt(n algorithms.NodeID, l algorithms.Local) int64 {
	return c[n].trueAt(int64(l))
}

// step is one call into the checker in a table test.
type step struct {
	t     int64
	op    string // "acq", "lost", "crash"
	node  algorithms.NodeID
	res   algorithms.ResourceID
	until algorithms.Local
}

func TestChecker(t *testing.T) {
	ident := testClocks{{}, {}, {}}
	tests := []struct {
		name   string
		clocks testClocks
		steps  []step
		end    int64
		want   []Violation // Seed 7 is filled in
	}{
		{
			name: "disjoint holds",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 100, op: "acq", node: 1, until: 200},
			},
			end: 300,
		},
		{
			name: "overlap of two owners",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 60, op: "acq", node: 1, until: 200},
			},
			end:  300,
			want: []Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 60, OverlapNS: 40}},
		},
		{
			name: "extension by the same owner is no violation",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 90, op: "acq", node: 0, until: 200},
				{t: 150, op: "acq", node: 0, until: 300},
				{t: 300, op: "acq", node: 1, until: 400},
			},
			end: 500,
		},
		{
			name: "extension makes a later acquisition overlap",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 90, op: "acq", node: 0, until: 200},
				{t: 150, op: "acq", node: 1, until: 400},
			},
			end:  500,
			want: []Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 150, OverlapNS: 50}},
		},
		{
			name: "Lost ends the interval early",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 1000},
				{t: 50, op: "lost", node: 0},
				{t: 50, op: "acq", node: 1, until: 200},
			},
			end: 300,
		},
		{
			name: "crash ends the interval",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 1000},
				{t: 10, op: "crash", node: 0},
				{t: 20, op: "acq", node: 1, until: 200},
			},
			end: 300,
		},
		{
			name: "overlap cut by Lost",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 1000},
				{t: 10, op: "acq", node: 1, until: 500},
				{t: 25, op: "lost", node: 1},
			},
			end:  2000,
			want: []Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 10, OverlapNS: 15}},
		},
		{
			name: "other resources do not interfere",
			steps: []step{
				{t: 0, op: "acq", node: 0, res: 1, until: 100},
				{t: 10, op: "acq", node: 1, res: 2, until: 100},
			},
			end: 300,
		},
		{
			name: "three owners at once",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 10, op: "acq", node: 1, until: 100},
				{t: 20, op: "acq", node: 2, until: 50},
			},
			end: 300,
			want: []Violation{
				{Owners: [2]algorithms.NodeID{1, 2}, StartNS: 20, OverlapNS: 30},
				{Owners: [2]algorithms.NodeID{0, 2}, StartNS: 20, OverlapNS: 30},
				{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 10, OverlapNS: 90},
			},
		},
		{
			name:   "a fast clock ends its holder early: no overlap",
			clocks: testClocks{{RatePPB: 1_000_000_000 / 2}, {}}, // node 0 runs 1.5x
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 150}, // reached at true 100
				{t: 100, op: "acq", node: 1, until: 300},
			},
			end: 400,
		},
		{
			name:   "a slow clock keeps its holder too long",
			clocks: testClocks{{RatePPB: -1_000_000_000 / 4}, {}}, // node 0 runs 0.75x
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 150}, // reached at true 200
				{t: 100, op: "acq", node: 1, until: 300},
			},
			end:  400,
			want: []Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 100, OverlapNS: 100}},
		},
		{
			name:   "offset clock",
			clocks: testClocks{{Offset: -50}, {}}, // node 0 is 50 behind
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100}, // reached at true 150
				{t: 120, op: "acq", node: 1, until: 300},
			},
			end:  400,
			want: []Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: 120, OverlapNS: 30}},
		},
		{
			name: "an Acquired already expired is no hold",
			steps: []step{
				{t: 100, op: "acq", node: 0, until: 100},
				{t: 100, op: "acq", node: 1, until: 200},
			},
			end: 400,
		},
		{
			name: "back to back on the same instant",
			steps: []step{
				{t: 0, op: "acq", node: 0, until: 100},
				{t: 100, op: "acq", node: 1, until: 200},
				{t: 200, op: "acq", node: 0, until: 300},
			},
			end: 400,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clocks := tc.clocks
			if clocks == nil {
				clocks = ident
			}
			c := NewChecker(clocks, 7, nil)
			for _, s := range tc.steps {
				switch s.op {
				case "acq":
					c.Acquired(s.t, s.node, s.res, algorithms.MakeBallot(1, 0, s.node), s.until)
				case "lost":
					c.Lost(s.t, s.node, s.res)
				case "crash":
					c.Crash(s.t, s.node)
				default:
					t.Fatalf("bad op %q", s.op)
				}
			}
			c.Finish(tc.end)
			got, n := c.Violations()
			if n != len(got) {
				t.Fatalf("count %d but %d listed", n, len(got))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d violations %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				w.Seed = 7
				w.Ballots = [2]algorithms.Ballot{algorithms.MakeBallot(1, 0, w.Owners[0]), algorithms.MakeBallot(1, 0, w.Owners[1])}
				if got[i] != w {
					t.Errorf("violation %d: got %+v, want %+v", i, got[i], w)
				}
			}
			if c.HoldCount() != 0 {
				t.Errorf("%d holds open after Finish", c.HoldCount())
			}
		})
	}
}

func TestCheckerHolders(t *testing.T) {
	c := NewChecker(testClocks{{}, {}}, 1, nil)
	c.Acquired(0, 0, 5, 1, 100)
	c.Advance(50)
	if h := c.Holders(5); len(h) != 1 || h[0] != 0 {
		t.Fatalf("holders at 50: %v", h)
	}
	c.Advance(100)
	if h := c.Holders(5); len(h) != 0 {
		t.Fatalf("holders at 100: %v", h)
	}
}

// A paused node holds nothing the invariant counts: another owner's hold
// while it is paused is no violation, but one it resumes into is, from
// the resume on.
func TestCheckerPause(t *testing.T) {
	tests := []struct {
		name   string
		resume int64
		want   int   // violations
		start  int64 // of the violation
	}{
		{"resumes after its end", 150, 0, 0},
		{"resumes before its end", 80, 1, 80},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChecker(testClocks{{}, {}}, 1, nil)
			c.Acquired(0, 0, 0, 1, 100)
			c.Pause(20, 0)
			c.Acquired(50, 1, 0, 2, 200)
			c.Resume(tc.resume, 0)
			c.Finish(300)
			vs, n := c.Violations()
			if n != tc.want || n > 0 && vs[0].StartNS != tc.start {
				t.Fatalf("violations %v, want %d from %d", vs, tc.want, tc.start)
			}
		})
	}
}

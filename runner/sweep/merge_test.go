package sweep

import (
	"errors"
	"reflect"
	"testing"

	"leaselab/runner"
	"leaselab/runner/shard"
)

// The parts of a sweep, each run alone on its cells and merged, give the
// whole sweep's result (failures included), for every split from one
// part to a cell a part; the cells keep their global index.
func TestMergeEqualsWhole(t *testing.T) {
	g := grid(Axis{"proposers", []string{"2", "3", "4"}}, Axis{"algo", []string{"naive", "paxoslease"}})
	run := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if s.Proposers == 3 && s.Seed == 8 && s.Algo == "naive" {
			return runner.Result{}, errors.New("boom")
		}
		return fake(s, o)
	}
	whole, err := Run(g, Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	whole.WallMS = 0
	if len(whole.Cells) != 6 || whole.Failed != 1 {
		t.Fatalf("whole: %d cells, %d failed", len(whole.Cells), whole.Failed)
	}
	for _, n := range []int{1, 2, 4, 6} {
		parts := make([]Result, n)
		for i := range parts {
			lo, hi := shard.Spec{Index: i, Count: n}.Range(len(whole.Cells))
			p, err := Run(g, Options{Run: run, From: lo, To: hi})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Cells) != hi-lo || p.Cells[0].Index != lo {
				t.Fatalf("part %d/%d: %d cells from %d, want [%d, %d)", i, n, len(p.Cells), p.Cells[0].Index, lo, hi)
			}
			parts[i] = p
		}
		merged, err := Merge(g, parts)
		if err != nil {
			t.Fatal(err)
		}
		merged.WallMS = 0
		if !reflect.DeepEqual(merged, whole) {
			t.Errorf("%d parts merged:\n%+v\nwhole:\n%+v", n, merged, whole)
		}
		if n > 1 {
			parts[0], parts[1] = parts[1], parts[0]
			if _, err := Merge(g, parts); err == nil {
				t.Errorf("%d parts out of order merged", n)
			}
			parts[0], parts[1] = parts[1], parts[0]
			parts[n-1].Interrupted = true
			if _, err := Merge(g, parts); err == nil {
				t.Errorf("%d parts, the last interrupted, merged", n)
			}
		}
	}
	for _, r := range [][2]int{{-1, 2}, {2, 2}, {3, 7}} {
		if _, err := Run(g, Options{Run: run, From: r[0], To: r[1]}); err == nil {
			t.Errorf("cells [%d, %d) of 6 ran", r[0], r[1])
		}
	}
}

package sweep

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	"leaselab/runner"
	_ "leaselab/runner/sim"
)

func grid(axes ...Axis) Grid {
	g := Grid{Base: runner.DefaultSpec(), Axes: axes, Seeds: 3, FirstSeed: 7, Meters: []string{"leases_acquired", "time_to_first_lease_ms"}}
	g.Base.Duration = 5e9
	return g
}

func TestCellsEnumerateTheProductFirstAxisSlowest(t *testing.T) {
	g := grid(Axis{"algo", []string{"naive", "paxoslease"}}, Axis{"proposers", []string{"2", "4", "8"}})
	cells, err := g.Cells()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for i, c := range cells {
		if c.Index != i || c.Spec.Seed != 7 {
			t.Errorf("cell %d: index %d seed %d", i, c.Index, c.Spec.Seed)
		}
		if c.Spec.Algo != c.Values[0] || c.Spec.Proposers != map[string]int{"2": 2, "4": 4, "8": 8}[c.Values[1]] {
			t.Errorf("cell %d: values %v but spec %s/%d", i, c.Values, c.Spec.Algo, c.Spec.Proposers)
		}
		got = append(got, c.Values)
	}
	want := [][]string{{"naive", "2"}, {"naive", "4"}, {"naive", "8"}, {"paxoslease", "2"}, {"paxoslease", "4"}, {"paxoslease", "8"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	if jobs := g.Jobs(cells); len(jobs) != 18 || jobs[4] != (Job{Cell: 1, Rep: 1}) {
		t.Errorf("jobs %v", jobs)
	}
}

func TestGridRejectsBadInputBeforeRunning(t *testing.T) {
	for _, tc := range []struct {
		g    Grid
		want string
	}{
		{grid(Axis{"algo", []string{"naive", "nosuch"}}), `cell algo=nosuch: unknown algorithm "nosuch"`},
		{grid(Axis{"proposers", []string{"2", "x"}}), `proposers: "x" is not a valid int`},
		{grid(Axis{"nosuch", []string{"1", "2"}}), `unknown parameter "nosuch"`},
		{grid(Axis{"seed", []string{"1", "2"}}), "seeds are the repetitions"},
		{grid(Axis{"loss", []string{"0", "0"}}), `value "0" is given twice`},
		{grid(Axis{"loss", []string{"0"}}, Axis{"loss", []string{"1"}}), "given twice"},
		{grid(Axis{"loss", []string{"0", "1.5"}}), "cell loss=1.5: loss must be a probability"},
		{func() Grid { g := grid(); g.Seeds = 0; return g }(), "seeds must be at least 1"},
		{func() Grid { g := grid(); g.Meters = []string{"nosuch"}; return g }(), `unknown meter "nosuch"`},
		{func() Grid { g := grid(); g.Meters = nil; return g }(), "no meters"},
	} {
		ran := false
		_, err := Run(tc.g, Options{Run: func(runner.Spec, runner.Options) (runner.Result, error) { ran = true; return runner.Result{}, nil }})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.g.Axes, err, tc.want)
		}
		if ran {
			t.Errorf("%v: ran before refusing", tc.g.Axes)
		}
	}
}

// fake gives every run leases = proposers*100 + seed, and no first lease
// for seed 8, so the statistics can be checked by hand.
func fake(s runner.Spec, _ runner.Options) (runner.Result, error) {
	r := runner.Result{Algo: s.Algo, Seed: s.Seed, LeasesAcquired: s.Proposers*100 + int(s.Seed), TimeToFirstLeaseMS: 3, TraceHash: "h"}
	if s.Seed == 8 {
		r.TimeToFirstLeaseMS = runner.None
	}
	return r, nil
}

func TestRunSummarisesEachCellOverItsSeeds(t *testing.T) {
	g := grid(Axis{"proposers", []string{"2", "4"}})
	for _, workers := range []int{1, 3} {
		res, err := Run(g, Options{Run: fake, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Cells) != 2 || res.Runs != 6 || res.Failed != 0 || res.Interrupted {
			t.Fatalf("workers %d: %+v", workers, res)
		}
		c := res.Cells[1]
		if c.Values["proposers"] != "4" || !reflect.DeepEqual(c.SeedsRun, []uint64{7, 8, 9}) || len(c.TraceHashes) != 3 {
			t.Errorf("cell 1: %+v", c)
		}
		st, _ := c.Stat("leases_acquired") // 407, 408, 409
		if st.N != 3 || st.Mean != 408 || st.Min != 407 || st.Max != 409 || st.Std != 1 {
			t.Errorf("leases: %+v", st)
		}
		// t(0.975, 2) = 4.303; std 1, n 3.
		if half := float64(st.Hi-st.Lo) / 2; math.Abs(half-4.303/math.Sqrt(3)) > 1e-9 {
			t.Errorf("interval half-width %g", half)
		}
		ttf, _ := c.Stat("time_to_first_lease_ms")
		if ttf.N != 2 || ttf.Missing != 1 || ttf.Mean != 3 {
			t.Errorf("a meter that does not apply must count as missing: %+v", ttf)
		}
	}
}

func TestRunKeepsFailuresInTheirCell(t *testing.T) {
	g := grid(Axis{"proposers", []string{"2", "4"}})
	res, err := Run(g, Options{Run: func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if s.Proposers == 2 && s.Seed == 9 {
			return runner.Result{}, errors.New("boom")
		}
		if s.Proposers == 4 && s.Seed == 7 {
			panic("bang")
		}
		return fake(s, o)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 2 || !reflect.DeepEqual(res.Cells[0].Errors, []string{"seed 9: boom"}) ||
		len(res.Cells[1].Errors) != 1 || !strings.Contains(res.Cells[1].Errors[0], "panicked: bang") {
		t.Errorf("failures: %d, %v, %v", res.Failed, res.Cells[0].Errors, res.Cells[1].Errors)
	}
	if st, _ := res.Cells[0].Stat("leases_acquired"); st.N != 2 || st.Missing != 1 {
		t.Errorf("a failed run is a missing value: %+v", st)
	}
}

func TestStopEndsTheSweepWithWhatRan(t *testing.T) {
	stop := make(chan struct{})
	var once sync.Once
	g := grid(Axis{"proposers", []string{"2", "4", "8"}})
	res, err := Run(g, Options{Workers: 1, Stop: stop, Run: func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if o.Stop == nil {
			t.Error("the runs must get the stop channel")
		}
		r, err := fake(s, o)
		if s.Proposers == 4 && s.Seed == 7 {
			once.Do(func() { close(stop) })
			r.Interrupted = true // cut short: not a sample
		}
		return r, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Runs != 3 {
		t.Fatalf("interrupted %v after %d runs", res.Interrupted, res.Runs)
	}
	if len(res.Cells[0].SeedsRun) != 3 || len(res.Cells[1].SeedsRun) != 0 || len(res.Cells[2].SeedsRun) != 0 {
		t.Errorf("seeds run: %v %v %v", res.Cells[0].SeedsRun, res.Cells[1].SeedsRun, res.Cells[2].SeedsRun)
	}
	if st, _ := res.Cells[2].Stat("leases_acquired"); st.N != 0 || !math.IsNaN(float64(st.Mean)) {
		t.Errorf("an empty cell has no mean: %+v", st)
	}
}

// A cell's run with seed S is `leaselab run` with the cell's values and
// seed S.
func TestCellRunIsTheSingleRun(t *testing.T) {
	g := grid(Axis{"algo", []string{"naive", "paxoslease"}})
	g.Seeds = 2
	res, err := Run(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := g.Base
	s.Algo, s.Seed = "paxoslease", 8
	one, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Cells[1].TraceHashes[1]; got != one.TraceHash || got == "" {
		t.Errorf("cell paxoslease seed 8: hash %q, single run %q", got, one.TraceHash)
	}
}

func TestFigureDrawsEveryMeter(t *testing.T) {
	for _, axes := range [][]Axis{
		{{"algo", []string{"naive", "paxoslease"}}, {"proposers", []string{"4", "2"}}},
		{{"algo", []string{"naive", "paxoslease"}}},
	} {
		res, err := Run(grid(axes...), Options{Run: fake})
		if err != nil {
			t.Fatal(err)
		}
		fig, err := res.Figure("t")
		if err != nil {
			t.Fatal(err)
		}
		if len(fig.Panels) != len(res.Meters) {
			t.Errorf("%d panels for %d meters", len(fig.Panels), len(res.Meters))
		}
		if err := fig.Save(t.TempDir() + "/s.svg"); err != nil {
			t.Error(err)
		}
	}
}

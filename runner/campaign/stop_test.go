package campaign

import (
	"reflect"
	"runtime"
	"testing"
	"time"

	"leaselab/runner"
	"leaselab/runner/internal/toy"
)

// StopAtFirst ends at the lowest violating seed, runs every seed before
// it, and gives the same summary whatever the number of workers.
func TestCheckStopAtFirst(t *testing.T) {
	base := toy.Spec("test-double-grant")
	base.Duration = 30 * time.Second
	full, err := Check(CheckSpec{Base: base, Faults: []string{"all"}, Seeds: 40, FirstSeed: 1}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.ViolatingSeeds) == 0 {
		t.Fatal("the planted fault was not found")
	}
	cs := CheckSpec{Base: base, Faults: []string{"all"}, Seeds: 40, FirstSeed: 1, StopAtFirst: true}
	var got []CheckResult
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		r, err := Check(cs, runner.Options{})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		r.WallMS = 0
		got = append(got, r)
	}
	first := full.ViolatingSeeds[0]
	r := got[0]
	if r.Seeds != int(first) || !reflect.DeepEqual(r.ViolatingSeeds, []uint64{first}) {
		t.Fatalf("stopped after %d seeds with violating %v; want %d seeds ending at seed %d", r.Seeds, r.ViolatingSeeds, first, first)
	}
	for i := 1; i < len(got); i++ {
		if !reflect.DeepEqual(got[i], r) {
			t.Fatalf("summary depends on the number of workers:\n%+v\n%+v", r, got[i])
		}
	}
}

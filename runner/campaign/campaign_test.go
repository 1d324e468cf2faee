package campaign

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"leaselab/runner"
	"leaselab/runner/internal/toy"
)

func TestCheckCampaign(t *testing.T) {
	base := toy.Spec("test-lock")
	base.Duration = 30 * time.Second
	cs := CheckSpec{Base: base, Faults: []string{"all"}, Seeds: 40, FirstSeed: 1}
	cr, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Violations != 0 || cr.LeasesAcquired == 0 || cr.Seeds != 40 {
		t.Fatalf("correct toy: %+v", cr)
	}
	cs.Base.Algo = "test-double-grant"
	bad, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Violations == 0 || len(bad.ViolatingSeeds) == 0 || len(bad.First) == 0 {
		t.Fatalf("planted fault not caught: %+v", bad)
	}
	// The summary does not depend on scheduling.
	prev := runtime.GOMAXPROCS(1)
	again, err := Check(cs, runner.Options{})
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	bad.WallMS, again.WallMS = 0, 0
	if fmt.Sprint(bad) != fmt.Sprint(again) {
		t.Fatalf("campaign differs with GOMAXPROCS 1:\n%+v\n%+v", bad, again)
	}
	// Each violating seed reproduces with Run.
	spec, err := CheckSpecFor(cs, bad.ViolatingSeeds[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(spec, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 || res.ViolationList[0] != bad.First[0] {
		t.Fatalf("seed %d does not reproduce: %+v vs %+v", spec.Seed, res.ViolationList, bad.First[0])
	}
}

func TestCheckBadInput(t *testing.T) {
	base := toy.Spec("test-lock")
	for _, cs := range []CheckSpec{
		{Base: base, Faults: []string{"all"}, Seeds: 0},
		{Base: base, Faults: []string{"weather"}, Seeds: 1},
		{Base: base, Faults: nil, Seeds: 1},
	} {
		if _, err := Check(cs, runner.Options{}); err == nil {
			t.Errorf("%+v: no error", cs)
		}
	}
}

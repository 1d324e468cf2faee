package campaign

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
	"leaselab/runner"
)

// centralSpec is a small contention spec of the example lease server,
// "central" (node 0 serves, three clients, leases of 2 s), with the
// ablations given: example.AblateGrantOnce is its planted double grant.
func centralSpec(ablate ...string) runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = example.Name
	s.Ablate = algorithms.Ablations(ablate)
	s.Acceptors, s.Proposers = 1, 3
	s.Duration = 60 * time.Second
	s.Params.LeaseSpan, s.Params.MaxLease = 2*time.Second, 3*time.Second
	s.Hold, s.Pause = 500*time.Millisecond, 300*time.Millisecond
	return s
}

// centralCampaign is the tests' campaign: 40 seeds of 30 s of central
// (with the ablations given) under every fault kind.
func centralCampaign(ablate ...string) CheckSpec {
	base := centralSpec(ablate...)
	base.Duration = 30 * time.Second
	return CheckSpec{Base: base, Faults: []string{"all"}, Seeds: 40, FirstSeed: 1}
}

// checkOn runs cs with GOMAXPROCS set to procs, so that tests can show a
// summary does not depend on scheduling.
func checkOn(procs int, cs CheckSpec) (CheckResult, error) {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	return Check(cs, runner.Options{})
}

func TestCheckCampaign(t *testing.T) {
	cs := centralCampaign()
	cr, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Violations != 0 || cr.LeasesAcquired == 0 || cr.Seeds != 40 {
		t.Fatalf("central: %+v", cr)
	}
	cs.Base.Ablate = algorithms.Ablations{example.AblateGrantOnce}
	bad, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Violations == 0 || len(bad.ViolatingSeeds) == 0 || len(bad.First) == 0 {
		t.Fatalf("planted fault not caught: %+v", bad)
	}
	// The summary does not depend on scheduling.
	again, err := checkOn(1, cs)
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
	base := centralSpec()
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

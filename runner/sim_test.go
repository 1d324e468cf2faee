package runner

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

func toySpec(algo string) Spec {
	s := DefaultSpec()
	s.Algo = algo
	s.Acceptors = 1
	s.Proposers = 3
	s.Duration = 60 * time.Second
	s.Params.LeaseSpan = 2 * time.Second
	s.Params.MaxLease = 3 * time.Second
	s.Hold = 500 * time.Millisecond
	s.Pause = 300 * time.Millisecond
	return s
}

func TestRunToy(t *testing.T) {
	res, err := Run(toySpec("test-lock"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.LeasesAcquired == 0 || res.Violations != 0 {
		t.Fatalf("acquired %d, violations %d", res.LeasesAcquired, res.Violations)
	}
}

func TestPlantedFaultsCaught(t *testing.T) {
	tests := []struct {
		algo   string
		mutate func(*Spec)
	}{
		{"test-double-grant", nil},
		{"test-no-deadline", func(s *Spec) { s.Release = false }},
	}
	for _, tc := range tests {
		t.Run(tc.algo, func(t *testing.T) {
			total := 0
			for seed := uint64(1); seed <= 5; seed++ {
				s := toySpec(tc.algo)
				s.Seed = seed
				if tc.mutate != nil {
					tc.mutate(&s)
				}
				res, err := Run(s, Options{})
				if err != nil {
					t.Fatal(err)
				}
				total += res.Violations
				for _, v := range res.ViolationList {
					if v.Owners[0] == v.Owners[1] || v.OverlapNS <= 0 || v.Seed != seed {
						t.Errorf("malformed violation %+v", v)
					}
				}
			}
			if total == 0 {
				t.Fatalf("%s: the checker found no violation in 5 seeds", tc.algo)
			}
		})
	}
}

func TestCorrectToyUnderDriftHasNoViolation(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		s := toySpec("test-lock")
		s.Seed = seed
		s.Clocks.Drift = 0.001
		s.Clocks.Skew = time.Second
		s.Pause = 0
		s.Release = false
		res, err := Run(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations != 0 || res.LeasesAcquired == 0 {
			t.Fatalf("seed %d: %d violations, %d leases", seed, res.Violations, res.LeasesAcquired)
		}
	}
}

func TestDeterminism(t *testing.T) {
	s := toySpec("test-lock")
	s.Net.Loss = 0.05
	s.Net.Dup = 0.05
	s.Net.Reorder = 0.1
	s.Faults.CrashRate = 3
	s.Faults.Partitions = 2
	s.Clocks.Drift = 0.0005
	s.Clocks.Skew = 100 * time.Millisecond
	a, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.TraceHash != b.TraceHash {
		t.Fatalf("same seed, different hashes %s %s", a.TraceHash, b.TraceHash)
	}
	a.WallMS, b.WallMS = 0, 0
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed, different results:\n%+v\n%+v", a, b)
	}
	s.Seed++
	c, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.TraceHash == a.TraceHash {
		t.Fatalf("different seeds, same hash %s", a.TraceHash)
	}
	if a.Crashes == 0 || a.PartitionCount == 0 {
		t.Fatalf("faults were not drawn: %d crashes, %d partitions", a.Crashes, a.PartitionCount)
	}
}

func TestCheckCampaign(t *testing.T) {
	base := toySpec("test-lock")
	base.Duration = 30 * time.Second
	cs := CheckSpec{Base: base, Faults: []string{"all"}, Seeds: 40, FirstSeed: 1}
	cr, err := Check(cs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Violations != 0 || cr.LeasesAcquired == 0 || cr.Seeds != 40 {
		t.Fatalf("correct toy: %+v", cr)
	}
	cs.Base.Algo = "test-double-grant"
	bad, err := Check(cs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Violations == 0 || len(bad.ViolatingSeeds) == 0 || len(bad.First) == 0 {
		t.Fatalf("planted fault not caught: %+v", bad)
	}
	// The summary does not depend on scheduling.
	prev := runtime.GOMAXPROCS(1)
	again, err := Check(cs, Options{})
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
	res, err := Run(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 || res.ViolationList[0] != bad.First[0] {
		t.Fatalf("seed %d does not reproduce: %+v vs %+v", spec.Seed, res.ViolationList, bad.First[0])
	}
}

func TestCheckBadInput(t *testing.T) {
	base := toySpec("test-lock")
	for _, cs := range []CheckSpec{
		{Base: base, Faults: []string{"all"}, Seeds: 0},
		{Base: base, Faults: []string{"weather"}, Seeds: 1},
		{Base: base, Faults: nil, Seeds: 1},
	} {
		if _, err := Check(cs, Options{}); err == nil {
			t.Errorf("%+v: no error", cs)
		}
	}
}

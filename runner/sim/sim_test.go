package sim

import (
	"fmt"
	"testing"
	"time"

	"leaselab/algorithms/example"
	"leaselab/runner"
)

func TestRunCentral(t *testing.T) {
	res, err := runner.Run(centralSpec(), runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.LeasesAcquired == 0 || res.Violations != 0 {
		t.Fatalf("acquired %d, violations %d", res.LeasesAcquired, res.Violations)
	}
}

// The planted faults of central (a server that grants every ask, a holder
// that ignores its deadline) are caught by the checker within 5 seeds.
func TestPlantedFaultsCaught(t *testing.T) {
	tests := []struct {
		ablate string
		mutate func(*runner.Spec)
	}{
		{example.AblateGrantOnce, nil},
		{example.AblateDeadline, func(s *runner.Spec) { s.Release = false }},
	}
	for _, tc := range tests {
		t.Run(tc.ablate, func(t *testing.T) {
			total := 0
			for seed := uint64(1); seed <= 5; seed++ {
				s := centralSpec(tc.ablate)
				s.Seed = seed
				if tc.mutate != nil {
					tc.mutate(&s)
				}
				res, err := runner.Run(s, runner.Options{})
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
				t.Fatalf("%s ablated: the checker found no violation in 5 seeds", tc.ablate)
			}
		})
	}
}

func TestCentralUnderDriftHasNoViolation(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		s := centralSpec()
		s.Seed = seed
		s.Clocks.Drift = 0.001
		s.Clocks.Skew = time.Second
		s.Pause = 0
		s.Release = false
		res, err := runner.Run(s, runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations != 0 || res.LeasesAcquired == 0 {
			t.Fatalf("seed %d: %d violations, %d leases", seed, res.Violations, res.LeasesAcquired)
		}
	}
}

func TestDeterminism(t *testing.T) {
	s := centralSpec()
	s.Net.Loss = 0.05
	s.Net.Dup = 0.05
	s.Net.Reorder = 0.1
	s.Faults.CrashRate = 3
	s.Faults.Partitions = 2
	s.Clocks.Drift = 0.0005
	s.Clocks.Skew = 100 * time.Millisecond
	a, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runner.Run(s, runner.Options{})
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
	c, err := runner.Run(s, runner.Options{})
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

// A run on tables left by earlier runs in the process (tablePool) traces
// the same as one on new tables: each spec gives one hash whatever ran
// before it, including a larger run or a run that stopped with events
// still queued.
func TestReusedTablesSameTrace(t *testing.T) {
	batch := runner.DefaultSpec()
	batch.Algo, batch.Workload = "naive", "batch"
	batch.Leases = 3000
	batch.Duration = time.Minute
	small := batch
	small.Leases, small.Seed = 200, 7
	faulty := centralSpec()
	faulty.Net.Loss, faulty.Net.Dup, faulty.Net.Reorder = 0.05, 0.05, 0.1
	faulty.Net.Stale, faulty.Net.StaleSpans = 2, 0.5
	faulty.Faults.CrashRate, faulty.Faults.Partitions = 3, 2
	faulty.Clocks.Drift, faulty.Clocks.Skew = 0.0005, 100*time.Millisecond
	contention := runner.DefaultSpec()
	contention.Algo, contention.Proposers = "naive", 5
	contention.Duration = 10 * time.Second
	specs := map[string]runner.Spec{"batch": batch, "small": small, "faulty": faulty, "contention": contention}
	hashes := map[string]string{}
	for _, order := range [][]string{
		{"small", "batch", "faulty", "contention"},
		{"batch", "small", "contention", "faulty", "faulty"},
		{"contention", "batch", "batch", "faulty", "small", "contention"},
	} {
		prev := "nothing"
		for _, name := range order {
			res, err := runner.Run(specs[name], runner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if h, ok := hashes[name]; ok && h != res.TraceHash {
				t.Errorf("%s after %s: hash %s, want %s", name, prev, res.TraceHash, h)
			}
			hashes[name] = res.TraceHash
			prev = name
		}
	}
}

// A closed Options.Stop ends the run early, with the meters so far.
func TestStopInterruptsTheRun(t *testing.T) {
	s := centralSpec()
	s.Duration = time.Hour
	stop := make(chan struct{})
	close(stop)
	res, err := Run(s, runner.Options{Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.SimulatedNS >= int64(s.Duration) {
		t.Errorf("interrupted %v at %d ns of %d", res.Interrupted, res.SimulatedNS, s.Duration)
	}
	s.Duration = time.Second
	if res, err := Run(s, runner.Options{Stop: make(chan struct{})}); err != nil || res.Interrupted {
		t.Errorf("an open Stop must not interrupt: %v %v", res.Interrupted, err)
	}
}

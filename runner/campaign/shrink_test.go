package campaign

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"leaselab/runner"
	"leaselab/runner/sim"
)

// restartCampaign is a quick campaign on a real ablation: PaxosLease
// without its restart quarantine, nodes crashing every few seconds for a
// tenth of a second; nearly every seed breaks the lease invariant within
// 30 s. With the rule on (ablate nil) none does.
func restartCampaign(ablate ...string) CheckSpec {
	base := runner.DefaultSpec()
	base.Algo = "paxoslease"
	base.Ablate = ablate
	base.Duration = 30 * time.Second
	base.Faults.CrashRate = 10
	base.Faults.Downtime = 100 * time.Millisecond
	return CheckSpec{Base: base, Faults: []string{"crash"}, Seeds: 4, FirstSeed: 1, Vary: Vary{Workload: true}}
}

// A violating run, recorded and played whole as a scenario, violates
// the same way (resource, owners, ballots, start), and so does the
// scenario's text under sim.Replay; a clean run's recording plays clean,
// with the same acquisitions.
func TestRecordingReplays(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cs      CheckSpec
		violate bool
	}{
		{"restart-wait ablated", restartCampaign("restart-wait"), true},
		{"every rule on", restartCampaign(), false},
	} {
		violating := 0
		for seed := tc.cs.FirstSeed; seed < tc.cs.FirstSeed+uint64(tc.cs.Seeds); seed++ {
			spec, err := CheckSpecFor(tc.cs, seed)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := runner.Resolve(spec)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := recordRun(plan)
			if err != nil {
				t.Fatalf("%s seed %d: %v", tc.name, seed, err)
			}
			p, err := rc.play(rc.whole(), true)
			if err != nil {
				t.Fatalf("%s seed %d: %v", tc.name, seed, err)
			}
			if p.violated != rc.violated || (rc.violated && !sameViolation(rc.first, p.first)) {
				t.Errorf("%s seed %d: run violated %v (%+v), its recording %v (%+v)", tc.name, seed, rc.violated, rc.first, p.violated, p.first)
			}
			if !rc.violated && p.acquired != rc.acquired {
				t.Errorf("%s seed %d: run acquired %d leases, its recording %d", tc.name, seed, rc.acquired, p.acquired)
			}
			if p.commands < 100 {
				t.Errorf("%s seed %d: a recording of %d commands", tc.name, seed, p.commands)
			}
			rr, err := sim.Replay(strings.NewReader(p.text), io.Discard)
			if err != nil {
				t.Fatalf("%s seed %d: the scenario text: %v", tc.name, seed, err)
			}
			if got := len(rr.Violations) > 0; got != rc.violated || len(rr.Failed) > 0 ||
				(got && !sameViolation(earliest(rr.Violations), rc.first)) {
				t.Errorf("%s seed %d: the scenario text replays to %v (failed %v)", tc.name, seed, rr.Violations, rr.Failed)
			}
			if rc.violated {
				violating++
			}
		}
		t.Logf("%s: %d of %d seeds violate", tc.name, violating, tc.cs.Seeds)
		if tc.violate && violating == 0 {
			t.Errorf("%s: no seed violated; the test shows nothing", tc.name)
		}
		if !tc.violate && violating > 0 {
			t.Errorf("%s: %d seeds violated", tc.name, violating)
		}
	}
}

// Shrinking keeps a violation and leaves most of the run out; the file
// replays to a violation without expecting one (so `leaselab replay`
// exits 1), and the same seed shrinks to the same file.
func TestShrink(t *testing.T) {
	cs := restartCampaign("restart-wait")
	cr, err := Check(cs, runner.Options{})
	if err != nil || len(cr.ViolatingSeeds) == 0 {
		t.Fatalf("no violating seed: %v %+v", err, cr)
	}
	spec, err := CheckSpecFor(cs, cr.ViolatingSeeds[0])
	if err != nil {
		t.Fatal(err)
	}
	sr, err := Shrink(spec, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %d -> %d commands in %d tests", sr.Seed, sr.Recorded, sr.Commands, sr.Tests)
	if !sr.Faithful || !sr.Minimal || sr.Commands*5 > sr.Recorded || sr.Commands == 0 {
		t.Errorf("shrunk %d -> %d commands, faithful %v, minimal %v", sr.Recorded, sr.Commands, sr.Faithful, sr.Minimal)
	}
	rr, err := sim.Replay(strings.NewReader(sr.Scenario), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Violations) == 0 || rr.ExpectsViolations || len(rr.Failed) > 0 {
		t.Fatalf("shrunk scenario: violations %v, expects %v, failed %v\n%s", rr.Violations, rr.ExpectsViolations, rr.Failed, sr.Scenario)
	}
	if !sameViolation(earliest(rr.Violations), sr.Violation) {
		t.Errorf("the file's violation %+v, the shrinker's %+v", earliest(rr.Violations), sr.Violation)
	}
	again, err := Shrink(spec, time.Minute)
	if err != nil || again.Scenario != sr.Scenario {
		t.Errorf("shrinking again: %v, same file %v", err, again.Scenario == sr.Scenario)
	}

	clean, err := CheckSpecFor(restartCampaign(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Shrink(clean, time.Minute); err == nil || errors.Is(err, ErrNotReproduced) {
		t.Errorf("shrinking a clean seed: %v", err)
	}
}

// ShrinkCampaign shrinks a violation of a campaign's result.
func TestShrinkCampaign(t *testing.T) {
	cs := restartCampaign("restart-wait")
	cr, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := ShrinkCampaign(cs, cr, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if sr.Scenario == "" || sr.Commands >= sr.Recorded {
		t.Errorf("seed %d: %d -> %d commands", sr.Seed, sr.Recorded, sr.Commands)
	}
	if _, err := ShrinkCampaign(restartCampaign(), CheckResult{}, time.Minute); err == nil {
		t.Error("a campaign without violations: no error")
	}
}

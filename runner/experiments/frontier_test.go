package experiments

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leaselab/runner"
)

// thresholdRun is a stand-in whose outcomes appear above known
// magnitudes of the longest pause (plus the lock-delay): two believers
// above 100 ms, a stale write with a plain store above 200 ms (on seed 3
// only), never one with a fenced store; and the lock-delay blocks.
func thresholdRun(s runner.Spec, _ runner.Options) (runner.Result, error) {
	var r runner.Result
	x := s.Faults.PauseMax - s.LockDelay
	if s.Faults.PauseRate > 0 && x > 100*time.Millisecond {
		r.DoubleBeliefMS = 1
	}
	if s.Faults.PauseRate > 0 && x > 200*time.Millisecond && s.Store == "plain" && s.Seed == 3 {
		r.StaleWrites = 1
	}
	r.BlockedFraction = float64(s.LockDelay) / float64(time.Second)
	return r, nil
}

// The search finds each outcome within its bisection bracket, writes a
// counterexample per point that names the run, and states the findings
// and the lock-delay's cost.
func TestFrontier(t *testing.T) {
	fakeAlgos()
	e := frontierExp()
	var pause Assumption
	for _, a := range e.FrontierDef.Assumptions {
		if a.Name == "pause" {
			pause = a
		}
	}
	e.FrontierDef = &FrontierDef{Algos: []string{"paxoslease"}, Assumptions: []Assumption{pause},
		Seeds: 4, QuickSeeds: 4, Steps: 8, QuickSteps: 8, LockDelay: 250 * time.Millisecond}
	dir := t.TempDir()
	reports, err := Reproduce([]Experiment{e}, Config{Options: Options{Quick: true}, Out: dir, Workers: 2, Run: thresholdRun})
	if err != nil {
		t.Fatal(err)
	}
	r := reports[0]
	want := map[string]float64{"paxoslease/two": 0.1, "paxoslease/stale-plain": 0.2,
		"paxoslease (lock-delay 250ms)/two": 0.35, "paxoslease (lock-delay 250ms)/stale-plain": 0.45}
	for _, p := range r.FrontierPoints {
		key := p.Series + "/" + p.Outcome
		w, ok := want[key]
		if !ok {
			if p.Found {
				t.Errorf("%s found at %g s, want none", key, float64(p.X))
			}
			continue
		}
		if !p.Found || float64(p.X) <= w || p.NoAt > w || float64(p.X)/p.NoAt > 1.5 {
			t.Errorf("%s: found %v at %g s (none at %g), want the bracket around %g", key, p.Found, float64(p.X), p.NoAt, w)
		}
		if p.Outcome == "stale-plain" && p.Seed != 3 {
			t.Errorf("%s: counterexample seed %d, want 3 (the only one)", key, p.Seed)
		}
		b, err := os.ReadFile(filepath.Join(dir, p.File))
		if err != nil || !strings.Contains(string(b), "leaselab run --algo=paxoslease") || !strings.Contains(string(b), "--pause-max=") {
			t.Errorf("%s: counterexample %s: %v\n%s", key, p.File, err, b)
		}
		delete(want, key)
	}
	if len(want) > 0 {
		t.Errorf("points not searched: %v", want)
	}
	if len(r.LockDelay) != 1 || math.Abs(r.LockDelay[0].BlockedWith-0.25) > 1e-9 {
		t.Errorf("lock-delay cost %+v", r.LockDelay)
	}
	var js struct {
		Points   []FrontierPoint `json:"points"`
		Findings []string        `json:"findings"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "frontier.json"))
	if err != nil || json.Unmarshal(b, &js) != nil || len(js.Points) != len(r.FrontierPoints) {
		t.Fatalf("frontier.json: %v\n%s", err, b)
	}
	findings := strings.Join(js.Findings, "\n")
	for _, s := range []string{"paxoslease at 0.1", "with a fenced store none", "lock-delay 250ms moves paxoslease's pause frontier"} {
		if !strings.Contains(findings, s) {
			t.Errorf("findings lack %q:\n%s", s, findings)
		}
	}
	for _, f := range []string{"frontier.csv", "frontier.png", "frontier.svg", "report.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 100 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// runCommand names every parameter that differs from the default, so the
// command runs the same spec.
func TestRunCommand(t *testing.T) {
	s := frontierBase()
	s.Algo, s.Seed, s.Faults.PauseRate = "paxoslease", 7, 30
	c := runCommand(s)
	for _, want := range []string{"--algo=paxoslease", "--seed=7", "--pause-rate=30", "--lease-span=1s", "--writes=50ms", "--release=false", "--format json"} {
		if !strings.Contains(c, want) {
			t.Errorf("command lacks %s: %s", want, c)
		}
	}
	if strings.Contains(c, "--rtt=") {
		t.Errorf("command names a default: %s", c)
	}
}

package verify

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/runner/campaign"
)

// A part runs its range of the selected configurations, each with at
// least the quick share the whole battery with the same budget gives it;
// a range outside the selection is bad input.
func TestRunPart(t *testing.T) {
	c := Config{Algo: "central", Only: []string{"E1", "E2", "E3", "E4"}, Budget: 20 * time.Second, Workers: 1}
	whole, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	c.From, c.To = 1, 3
	part, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, cr := range part.Configurations {
		ids = append(ids, cr.ID)
		if !cr.Exhausted {
			t.Errorf("%s did not exhaust: %+v", cr.ID, cr)
		}
	}
	if !slices.Equal(ids, []string{"E2", "E3"}) || part.Ran != 2 || part.Exhausted != 2 {
		t.Fatalf("part [1, 3): configurations %v, %d ran, %d exhausted", ids, part.Ran, part.Exhausted)
	}
	for i, cr := range part.Configurations {
		if w := whole.Configurations[i+1]; cr.States != w.States || cr.Depth != w.Depth {
			t.Errorf("%s: %d states to depth %d in the part, %d to %d in the whole battery", cr.ID, cr.States, cr.Depth, w.States, w.Depth)
		}
	}
	// The first configuration's cap is the quick pass's share before any
	// time is spent: its weight over the part's weights.
	if p, w := part.Configurations[0].CapSeconds, whole.Configurations[0].CapSeconds; p < w || p <= 0 {
		t.Errorf("the part's first share %.2f s, the whole battery's %.2f s", p, w)
	}
	for _, r := range [][2]int{{3, 2}, {0, 5}, {-1, 2}} {
		c.From, c.To = r[0], r[1]
		if _, err := Run(c); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "not a range of the 4 selected") {
			t.Errorf("[%d, %d): %v", r[0], r[1], err)
		}
	}
}

func TestSpecOf(t *testing.T) {
	es, err := Select(Config{Algo: "central", Only: []string{"e3", "E1"}})
	if err != nil {
		t.Fatal(err)
	}
	s := SpecOf(Config{Algo: "central"}, es)
	if s.Budget != DefaultBudget.String() || s.MemoryCap != DefaultMemoryCap || s.ShrinkTime != "" || !slices.Equal(s.Configurations, []string{"E3", "E1"}) {
		t.Errorf("defaults: %+v", s)
	}
	s = SpecOf(Config{Algo: "central", Scenario: true, Budget: time.Minute}, es)
	if s.Budget != "1m0s" || s.ShrinkTime != campaign.DefaultShrinkBudget.String() {
		t.Errorf("with a budget and --out: %+v", s)
	}
}

// part builds a part's result from its configurations (id, passes,
// stopped; a violation is the part's finding).
func part(workers int, shrink *campaign.ShrinkResult, cx string, crs ...ConfigResult) Result {
	r := Result{Algo: "central", Budget: "1m0s", BudgetSeconds: 60, Workers: workers, Configurations: crs, Seconds: 1.5}
	for _, c := range crs {
		if c.Stopped == StopViolation && r.FoundBy == "" {
			r.Violations, r.FoundBy, r.FoundByCommand = c.Violations, c.ID, "cmd "+c.ID
			r.Counterexample, r.Shrink = cx, shrink
			if cx != "" {
				r.ScenarioBy = c.ID
			}
		}
	}
	r.tally()
	r.Findings = FindingsOf(r)
	return r
}

func cr(id string, passes int, stopped string) ConfigResult {
	c := ConfigResult{ID: id, Kind: KindExplore, Flags: "--flags " + id, Passes: passes, Stopped: stopped, States: 10, Seconds: 0.5}
	switch stopped {
	case StopViolation:
		c.Violations = 2
	case StopExhausted:
		c.Exhausted = true
	}
	return c
}

// Merge keeps every part's finding, reports the one a single process
// meets first (the quick pass's before the deep pass's, then by
// position), skips the configurations after a quick-pass finding, and
// takes the first counterexample there is.
func TestMerge(t *testing.T) {
	s := Spec{Algo: "central", Ablate: []string{}, Budget: "1m0s", Configurations: []string{"E1", "E2", "E3", "E4", "E5", "E6"}}
	shrink := &campaign.ShrinkResult{Seed: 7}
	p0 := part(2, nil, "cx0", cr("E1", 2, StopTime), cr("E2", 2, StopViolation))      // found in the deep pass
	p1 := part(2, nil, "", cr("E3", 1, StopExhausted), cr("E4", 1, StopViolation))    // a campaign's: no scenario
	p2 := part(2, shrink, "cx2", cr("E5", 1, StopViolation), cr("E6", 0, StopBudget)) // E6 skipped in its part
	m, err := Merge(s, []Result{p0, p1, p2})
	if err != nil {
		t.Fatal(err)
	}
	var found, stopped []string
	for _, f := range m.Findings {
		found = append(found, f.FoundBy)
	}
	for _, c := range m.Configurations {
		stopped = append(stopped, c.ID+":"+c.Stopped)
	}
	if !slices.Equal(found, []string{"E4", "E5", "E2"}) {
		t.Errorf("findings %v, want E4, E5 (quick pass, by position), E2 (deep pass)", found)
	}
	if m.FoundBy != "E4" || m.FoundByCommand != "cmd E4" || m.Violations != 2 || m.Counterexample != "cx2" || m.ScenarioBy != "E5" || m.Shrink != shrink {
		t.Errorf("reported %s (%s, %d violations), counterexample %s by %s, shrink %v", m.FoundBy, m.FoundByCommand, m.Violations, m.Counterexample, m.ScenarioBy, m.Shrink)
	}
	want := []string{"E1:time", "E2:violation", "E3:exhausted", "E4:violation", "E5:skipped", "E6:skipped"}
	if !slices.Equal(stopped, want) || m.Ran != 4 || m.Exhausted != 1 || m.Configurations[4].States != 0 {
		t.Errorf("configurations %v (%d ran, %d exhausted), want %v (4, 1)", stopped, m.Ran, m.Exhausted, want)
	}
	if m.Seconds != 4.5 || m.Workers != 2 || m.Budget != "1m0s" || len(m.Shards) != 0 || m.Shards == nil {
		t.Errorf("seconds %v, workers %d, budget %s, shards %v", m.Seconds, m.Workers, m.Budget, m.Shards)
	}

	// Found only in the deep pass: nothing after it is skipped, since one
	// process gives every configuration the quick pass first.
	clean := part(1, nil, "", cr("E3", 1, StopExhausted), cr("E4", 2, StopTime))
	m, err = Merge(s, []Result{p0, clean, part(2, nil, "", cr("E5", 2, StopTime), cr("E6", 1, StopStates))})
	if err != nil {
		t.Fatal(err)
	}
	if m.FoundBy != "E2" || m.Configurations[5].Stopped != StopStates || m.Ran != 6 || m.Workers != 0 || m.Counterexample != "cx0" {
		t.Errorf("deep-pass finding: found by %s, E6 %s, %d ran, workers %d, counterexample %q", m.FoundBy, m.Configurations[5].Stopped, m.Ran, m.Workers, m.Counterexample)
	}

	for _, tc := range []struct {
		parts []Result
		err   string
	}{
		{nil, "no parts"},
		{[]Result{p0, p1}, "the parts hold 4 of the battery's 6 configurations"},
		{[]Result{p0, part(2, nil, "", cr("E4", 1, StopTime), cr("E3", 1, StopTime)), p2}, "part 1: it holds the configurations [E4 E3], not the battery's [E3 E4] (positions 2 to 3)"},
		{[]Result{p0, p1, p2, p2}, "part 3: configurations [6, 8) are not a range of the battery's 6"},
	} {
		if _, err := Merge(s, tc.parts); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%d parts: %v, want %q", len(tc.parts), err, tc.err)
		}
	}
}

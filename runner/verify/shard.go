package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"leaselab/runner/campaign"
	"leaselab/runner/shard"
)

// A sharded battery (verify --shard i/n) splits the configurations Select
// gives, T of them in the battery's order, as runner/shard splits any run:
// part i runs [i·T/n, (i+1)·T/n), contiguous (Config.From, To), as a
// battery of its own with the whole Budget (see Run: each configuration's
// share is then at least the unsharded battery's). Merge puts the parts
// back together.

// Spec is what makes two batteries the same run: a part records it as
// the whole battery's spec (shard.Info.Spec), and merge refuses parts
// whose specs differ in any byte. It holds every Config field that changes
// what a configuration does, and the configurations split (their IDs in
// order: the matrix, or --only's). Workers is not in it: either search
// strategy visits states in the same order whatever the number of workers,
// and parts run on machines of any size.
type Spec struct {
	Algo   string   `json:"algo"`
	Ablate []string `json:"ablate"`
	// Budget is each part's (Run).
	Budget    string `json:"budget"`
	Seed      uint64 `json:"seed"`
	MemoryCap uint64 `json:"memory_cap_bytes"`
	// Scenario: --out was given, so a campaign's violation is shrunk and
	// the rest of the budget may hunt for a scenario; ShrinkTime is then
	// its limit ("" without Scenario).
	Scenario       bool     `json:"scenario"`
	ShrinkTime     string   `json:"shrink_time"`
	Configurations []string `json:"configurations"`
}

// SpecOf is the Spec of a battery of c over es (Select(c)), with the
// defaults Run fills in.
func SpecOf(c Config, es []Entry) Spec {
	s := Spec{Algo: c.Algo, Ablate: append([]string{}, c.Ablate...), Budget: cmp.Or(c.Budget, DefaultBudget).String(),
		Seed: c.Seed, MemoryCap: cmp.Or(c.MemoryCap, DefaultMemoryCap), Scenario: c.Scenario, Configurations: []string{}}
	if c.Scenario {
		s.ShrinkTime = cmp.Or(c.ShrinkTime, campaign.DefaultShrinkBudget).String()
	}
	for _, e := range es {
		s.Configurations = append(s.Configurations, e.ID)
	}
	return s
}

// Finding is the violation a battery, or a part of a sharded one, stopped
// at: the configuration that found it, and its counterexample.
type Finding struct {
	FoundBy    string `json:"found_by"`
	Command    string `json:"command"`
	Violations int    `json:"violations"`
	// Pass: 1 if found in the quick pass, 2 in the deep pass.
	Pass int `json:"pass"`
	// Counterexample, CounterexampleBy and Reproduce are the result's.
	Counterexample   string `json:"counterexample"`
	CounterexampleBy string `json:"counterexample_by"`
	Reproduce        string `json:"reproduce"`
}

// FindingsOf is r's finding as a list: [] if it found no violation.
// Call it again after setting r's Counterexample or Reproduce.
func FindingsOf(r Result) []Finding {
	i := slices.IndexFunc(r.Configurations, func(c ConfigResult) bool { return c.ID == r.FoundBy && c.Violations > 0 })
	if r.FoundBy == "" || i < 0 {
		return []Finding{}
	}
	return []Finding{{FoundBy: r.FoundBy, Command: r.FoundByCommand, Violations: r.Violations, Pass: r.Configurations[i].Passes,
		Counterexample: r.Counterexample, CounterexampleBy: r.ScenarioBy, Reproduce: r.Reproduce}}
}

// CheckPart says how p is not the part [from, to) of the battery s, or
// returns nil: it must hold the configurations s lists there, in order.
func CheckPart(s Spec, from, to int, p Result) error {
	if from < 0 || from > to || to > len(s.Configurations) {
		return fmt.Errorf("configurations [%d, %d) are not a range of the battery's %d", from, to, len(s.Configurations))
	}
	if p.Interrupted {
		return fmt.Errorf("it was interrupted: run it again")
	}
	ids := make([]string, len(p.Configurations))
	for i, c := range p.Configurations {
		ids[i] = c.ID
	}
	if want := s.Configurations[from:to]; !slices.Equal(ids, want) {
		return fmt.Errorf("it holds the configurations [%s], not the battery's [%s] (positions %d to %d)",
			strings.Join(ids, " "), strings.Join(want, " "), from, to-1)
	}
	return nil
}

// Merge combines the parts of the sharded battery s (parts[i] is part i,
// in index order) into the result one process gives for the whole
// battery, as far as that does not depend on the machine's speed:
//
//   - Configurations: the parts', in the battery's order (CheckPart), each
//     as its part ran it; Ran and Exhausted counted again.
//   - The verdict: each part stops at its own first violation, and
//     Findings lists every part's, in the order one process would have
//     met them: quick-pass findings first (the quick pass runs every
//     configuration before the deep pass begins), then by position. The
//     first is the reported one (Violations, FoundBy, FoundByCommand,
//     Reproduce). If it was found in the quick pass, the configurations
//     after it are skipped, as one process leaves them, whatever their
//     parts ran (their own findings stay in Findings).
//   - Counterexample (and CounterexampleBy, Shrink): the first finding's
//     that has one, as one process hunts for a scenario when its finder
//     leaves none.
//   - Unanswered (UnansweredBy, UnansweredRun): the first part's that
//     found a liveness failure; TokenFailures (TokensBy, TokensRun) the
//     first part's that found a fencing token that did not grow.
//   - Seconds: the parts' sum; Workers: the parts' when they agree, 0 when
//     they differ (each part's meta names its machine).
//
// A configuration's figures within a time share (states, depth, seeds,
// stopped: time) depend on the machine; an exhausted search's, a search
// or campaign stopped at its state or seed cap, and where a violation is
// found first in the quick pass do not. Meta and Shards are left to the
// caller.
func Merge(s Spec, parts []Result) (Result, error) {
	if len(parts) == 0 {
		return Result{}, fmt.Errorf("no parts to merge")
	}
	p0 := parts[0]
	res := Result{Shards: []shard.Part{}, Algo: s.Algo, Ablate: append([]string{}, s.Ablate...), Budget: p0.Budget, BudgetSeconds: p0.BudgetSeconds,
		Seed: s.Seed, Workers: p0.Workers, MemoryCap: s.MemoryCap, Configurations: []ConfigResult{}, Findings: []Finding{}}
	for i, p := range parts {
		from := len(res.Configurations)
		if err := CheckPart(s, from, from+len(p.Configurations), p); err != nil {
			return Result{}, fmt.Errorf("part %d: %w", i, err)
		}
		res.Configurations = append(res.Configurations, p.Configurations...)
		res.Findings = append(res.Findings, p.Findings...)
		if res.UnansweredBy == "" && p.UnansweredBy != "" {
			// The liveness failure of the first part that has one: the
			// one a single process meets first, in the battery's order.
			res.Unanswered, res.UnansweredBy, res.UnansweredRun = p.Unanswered, p.UnansweredBy, p.UnansweredRun
		}
		if res.TokensBy == "" && p.TokensBy != "" {
			res.TokenFailures, res.TokensBy, res.TokensRun = p.TokenFailures, p.TokensBy, p.TokensRun
		}
		res.Seconds += p.Seconds
		if p.Workers != res.Workers {
			res.Workers = 0
		}
	}
	if n := len(res.Configurations); n != len(s.Configurations) {
		return Result{}, fmt.Errorf("the parts hold %d of the battery's %d configurations", n, len(s.Configurations))
	}
	pos := func(f Finding) int { return slices.Index(s.Configurations, f.FoundBy) }
	slices.SortStableFunc(res.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pass, b.Pass), cmp.Compare(pos(a), pos(b)))
	})
	if len(res.Findings) > 0 {
		res.report(parts, pos(res.Findings[0]))
	}
	res.tally()
	return res, nil
}

// report sets r's verdict from its first finding, found by the
// configuration at position k (see Merge).
func (r *Result) report(parts []Result, k int) {
	f := r.Findings[0]
	r.Violations, r.FoundBy, r.FoundByCommand, r.Reproduce = f.Violations, f.FoundBy, f.Command, f.Reproduce
	for _, g := range r.Findings {
		if g.Counterexample == "" {
			continue
		}
		r.Counterexample, r.ScenarioBy = g.Counterexample, g.CounterexampleBy
		for _, p := range parts {
			if len(p.Findings) > 0 && p.Findings[0] == g {
				r.Shrink = p.Shrink
			}
		}
		break
	}
	if f.Pass != 1 {
		return
	}
	for j := k + 1; j < len(r.Configurations); j++ {
		c := r.Configurations[j]
		r.Configurations[j] = ConfigResult{ID: c.ID, Kind: c.Kind, Flags: c.Flags, Why: c.Why, Stopped: StopBudget}
	}
}

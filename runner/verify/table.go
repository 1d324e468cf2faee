package verify

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/experiments"
)

// SafetyAblations lists the ablations of algo that guard safety: every
// one but those whose exposure (experiments.Exposes) or whose Breaks text
// starts with "liveness".
func SafetyAblations(algo string) ([]string, error) {
	a, err := algorithms.Lookup(algo)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ab := range a.Ablations {
		if strings.HasPrefix(experiments.Exposes(algo, ab.Name), "liveness") || strings.HasPrefix(ab.Breaks, "liveness") {
			continue
		}
		out = append(out, ab.Name)
	}
	return out, nil
}

// Companions are the safety ablations that cannot cause a violation
// alone, with the ablation that must be off too: "algo/ablation" to
// companion. PaxosLease's late-timer and stale-owner-open rules are each
// a second line of defence behind keep-others (abandon-release): both
// counterexamples need a stale Propose to overwrite another owner's live
// lease at an acceptor, which keep-others refuses. The package doc gives
// the argument and the battery's evidence (every configuration, each
// alone: 0 violations). Table runs each alone and with its companion.
var Companions = map[string]string{
	"paxoslease/late-timer":       "abandon-release",
	"paxoslease/stale-owner-open": "abandon-release",
}

// Row is one line of the ablation table: a battery run with one safety
// ablation (Ablation "" for every rule on).
type Row struct {
	Algo     string `json:"algo"`
	Ablation string `json:"ablation"`
	// FoundBy: the configuration that found the violation ("" if none);
	// Command reproduces it.
	FoundBy string `json:"found_by"`
	Command string `json:"command"`
	Kind    string `json:"kind"`
	States  int64  `json:"states"`
	Seeds   int    `json:"seeds"`
	Depth   int    `json:"depth"`
	// Seconds: the battery's wall time until it stopped (at the violation
	// or at the end of the matrix); ConfigSeconds: the finding
	// configuration's own.
	Seconds       float64 `json:"seconds"`
	ConfigSeconds float64 `json:"config_seconds"`
	Violations    int     `json:"violations"`
	// Ran and Exhausted count configurations (every-rule-on rows).
	Ran       int `json:"ran"`
	Total     int `json:"total"`
	Exhausted int `json:"exhausted"`
}

// RowOf summarises a battery's result as a table row.
func RowOf(r Result) Row {
	row := Row{Algo: r.Algo, Ablation: strings.Join(r.Ablate, ","), FoundBy: r.FoundBy, Command: r.FoundByCommand,
		Seconds: r.Seconds, Violations: r.Violations, Ran: r.Ran, Total: len(r.Configurations), Exhausted: r.Exhausted}
	for _, c := range r.Configurations {
		if c.ID == r.FoundBy {
			row.Kind, row.States, row.Seeds, row.Depth, row.ConfigSeconds = c.Kind, c.States, c.Seeds, c.Depth, c.Seconds
		}
	}
	return row
}

// Table runs the battery for every safety ablation of each algorithm in
// algos (budget each), then with every rule on (rulesOn each, 0 to leave
// those rows out), and returns the rows in that order; base supplies the
// other settings (seed, workers, memory cap, progress).
func Table(base Config, algos []string, budget, rulesOn time.Duration, progress func(Row)) ([]Row, error) {
	var rows []Row
	for _, algo := range algos {
		abls, err := SafetyAblations(algo)
		if err != nil {
			return nil, badf("%v", err)
		}
		runs := make([]algorithms.Ablations, 0, len(abls)+1)
		for _, x := range abls {
			runs = append(runs, algorithms.Ablations{x})
			if y := Companions[algo+"/"+x]; y != "" {
				runs = append(runs, algorithms.Ablations{x, y})
			}
		}
		if rulesOn > 0 {
			runs = append(runs, nil)
		}
		for _, ab := range runs {
			c := base
			c.Algo, c.Ablate, c.Budget = algo, ab, budget
			if ab == nil {
				c.Budget = rulesOn
			}
			r, err := Run(c)
			if err != nil {
				return rows, err
			}
			row := RowOf(r)
			rows = append(rows, row)
			if progress != nil {
				progress(row)
			}
		}
	}
	return rows, nil
}

// WriteMarkdown writes rows as two markdown tables: the ablations (each
// with the configuration that found it) and the every-rule-on verdicts.
func WriteMarkdown(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| algorithm | ablation | found by | configuration | states / seeds | depth | s (battery) | s (configuration) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.Ablation == "" {
			continue
		}
		if r.FoundBy == "" {
			note := fmt.Sprintf("%d of %d configurations ran, %d exhausted", r.Ran, r.Total, r.Exhausted)
			if y := Companions[r.Algo+"/"+r.Ablation]; y != "" {
				note += "; needs `" + y + "` off too (next row)"
			}
			fmt.Fprintf(&b, "| %s | `%s` | **not found** | %s | | | %.1f | |\n", r.Algo, r.Ablation, note, r.Seconds)
			continue
		}
		size := strconv.FormatInt(r.States, 10) + " states"
		if r.Kind == KindCheck {
			size = strconv.Itoa(r.Seeds) + " seeds"
		}
		depth := ""
		if r.Kind == KindExplore {
			depth = strconv.Itoa(r.Depth)
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | `%s` | %s | %s | %.1f | %.1f |\n", r.Algo, r.Ablation, r.FoundBy, r.Command, size, depth, r.Seconds, r.ConfigSeconds)
	}
	on := false
	for _, r := range rows {
		if r.Ablation != "" {
			continue
		}
		if !on {
			b.WriteString("\n| algorithm (every rule on) | configurations run | exhausted | violations | found by | s |\n")
			b.WriteString("|---|---|---|---|---|---|\n")
			on = true
		}
		found := "-"
		if r.FoundBy != "" {
			found = fmt.Sprintf("%s: `%s`", r.FoundBy, r.Command)
		}
		fmt.Fprintf(&b, "| %s | %d of %d | %d | %d | %s | %.0f |\n", r.Algo, r.Ran, r.Total, r.Exhausted, r.Violations, found, r.Seconds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

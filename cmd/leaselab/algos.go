package main

import (
	"strconv"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner/experiments"
)

func init() {
	register(command{
		name:    "algos",
		summary: "list the registered algorithms and the ablations (rules that can be switched off) of each",
		usage:   "[--format table|markdown|json|csv]",
		long: `For every algorithm, in a fixed order: its one-line summary, whether its
acceptors keep state on disk, and each ablation: the name to give to
--ablate and the rule it switches off. --format markdown, json and csv add,
for each ablation, what goes wrong without the rule and the faults or the
scenario that expose it (for 'leaselab check' or 'leaselab replay'), and each
algorithm's fencing token (what a holder's writes to a --store fenced carry,
why a later holder's is higher, what breaks that); the default table leaves
those out to stay narrow.`,
		setup: func(fs *pflag.FlagSet) action {
			format := addFormatFlag(fs, "table", "markdown", "json", "csv")
			return func(c *ctx, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				return writeAlgos(c, *format)
			}
		},
	})
}

// algoInfo is the JSON shape of `leaselab algos --format json`.
type algoInfo struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Durable bool   `json:"durable"`
	Fencing string `json:"fencing"`
	// TokenBreaks: the conditions under which Fencing does not claim its
	// tokens grow (algorithms.TokenBreaks, "none" for the empty set); the
	// battery's token campaign runs every fault kind that causes none.
	TokenBreaks string         `json:"token_breaks"`
	Ablations   []ablationInfo `json:"ablations"`
}

type ablationInfo struct {
	Name    string `json:"name"`
	Rule    string `json:"rule"`
	Breaks  string `json:"breaks"`
	Exposes string `json:"exposes"`
}

func algoInfos() []algoInfo {
	var out []algoInfo
	for _, n := range algorithms.Names() {
		a, err := algorithms.Lookup(n)
		if err != nil {
			continue // cannot happen: n came from the registry
		}
		info := algoInfo{Name: a.Name, Summary: a.Summary, Durable: a.Durable, Fencing: a.Fencing, TokenBreaks: a.TokenBreaks.String(), Ablations: []ablationInfo{}}
		for _, ab := range a.Ablations {
			info.Ablations = append(info.Ablations, ablationInfo{ab.Name, ab.Rule, ab.Breaks, experiments.Exposes(a.Name, ab.Name)})
		}
		out = append(out, info)
	}
	return out
}

func writeAlgos(c *ctx, format string) error {
	infos := algoInfos()
	switch format {
	case "json":
		return writeJSON(c.stdout, infos)
	case "csv":
		var rows [][]string
		for _, a := range infos {
			if len(a.Ablations) == 0 {
				rows = append(rows, []string{a.Name, a.Summary, strconv.FormatBool(a.Durable), "", "", "", ""})
			}
			for _, ab := range a.Ablations {
				rows = append(rows, []string{a.Name, a.Summary, strconv.FormatBool(a.Durable), ab.Name, ab.Rule, ab.Breaks, experiments.Exposes(a.Name, ab.Name)})
			}
		}
		return writeCSV(c.stdout, []string{"algorithm", "summary", "durable", "ablation", "rule", "breaks", "exposed_by"}, rows)
	}
	wide := format == "markdown"
	var algos, abls [][]string
	for _, a := range infos {
		disk := "no"
		if a.Durable {
			disk = "yes"
		}
		algos = append(algos, []string{a.Name, disk, a.Summary})
		for _, ab := range a.Ablations {
			row := []string{a.Name, ab.Name, ab.Rule}
			if wide {
				row = append(row, ab.Breaks, experiments.Exposes(a.Name, ab.Name))
			}
			abls = append(abls, row)
		}
	}
	table := func(header []string, rows [][]string) error {
		if wide {
			return writeMarkdownTable(c.stdout, header, rows)
		}
		return writeTableWidth(c.stdout, header, rows, 60)
	}
	if err := table([]string{"algorithm", "disk", "summary"}, algos); err != nil {
		return err
	}
	if wide {
		var fences [][]string
		for _, a := range infos {
			fences = append(fences, []string{a.Name, a.Fencing, a.TokenBreaks})
		}
		if _, err := c.stdout.Write([]byte("\nfencing tokens (what a holder's writes carry, --store fenced):\n")); err != nil {
			return err
		}
		if err := table([]string{"algorithm", "token, why it grows, what breaks it", "breaks on (judged under every other fault)"}, fences); err != nil {
			return err
		}
	}
	if len(abls) == 0 {
		return nil
	}
	if _, err := c.stdout.Write([]byte("\nablations (--ablate NAME switches the rule off):\n")); err != nil {
		return err
	}
	header := []string{"algorithm", "ablation", "rule"}
	if wide {
		return table(append(header, "without it", "exposed by"), abls)
	}
	if err := table(header, abls); err != nil {
		return err
	}
	_, err := c.stdout.Write([]byte("(--format markdown, json or csv add what breaks without each and how to expose it)\n"))
	return err
}

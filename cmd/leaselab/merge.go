package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/shard"
	"leaselab/runner/sweep"
	"leaselab/runner/verify"
)

func init() {
	register(command{
		name:    "merge",
		summary: "combine the JSON results of a sharded run's parts into one result",
		usage:   "FILE... [--format table|json|csv (not for verify)]",
		long: `Reads the JSON results of the parts of one sharded run (leaselab check,
verify or sweep --shard i/n --format json, for i = 0..n-1, in any order)
and prints the result the whole run gives in one process. For check: the same
seeds, leases acquired, violations, violating seeds, first violations and
violating specs, swarm counts, exercised counters and the protected
store's meters (runner/campaign MergeCheck). For sweep: every cell, in
cell order, with its statistics as its part computed them (a cell's seeds
all run in one part), and the runs and failures summed (runner/sweep
Merge). For verify: every configuration, in the battery's order, as its
part ran it, and the verdict one process reaches (runner/verify Merge):
each part stops at its own first violation; findings lists them all,
those found in the quick pass first, then by configuration, and the first
is the one reported (violations, found_by, found_by_command, reproduce;
counterexample is the first finding's that has one). When it was found
in the quick pass, the configurations after it are skipped, as one
process leaves them. A battery's figures within a time share depend on
the machine, so only the rest equals the unsharded run: the
configurations, the figures of those that exhausted or stopped at a
state or seed cap, and a violation found in the quick pass. seconds is
the parts' sum; workers theirs when they agree, else 0.

The merged JSON is the same, byte for byte, whatever the order of the
files, but for its meta (the merge's own provenance). Compared with the
JSON of the unsharded run, a merged check or sweep differs in exactly
three keys: meta, wall_ms
(the sum of the parts' wall times: the work, not the time it took) and
shards (each part's range, wall time and meta, in index order; [] in an
unsharded run). With check --out, every part that found a violation
shrank one of its own: counterexample is the one whose run's violation
began earliest (ties: the lower seed), as one process would have
preferred it, and counterexamples lists them all.

Refuses (exit 2), naming the files: a file that is not a part's JSON
result; parts of different commands, split counts, specs (the first key
that differs is named) or revisions (meta.revision; a warning when the
revision is unknown or has local changes, which cannot tell builds apart);
parts given more than once and parts missing (all of them listed); a part
that was interrupted; a battery's part whose configurations are not its
range's; keys this build does not know (merge with the build
that ran the parts).

Exit status as the command's: 1 when the merged run found a violation (or
a sweep's run failed), 2 for bad input.`,
		setup: func(fs *pflag.FlagSet) action {
			format := addFormatFlag(fs)
			return func(c *ctx, args []string) error {
				if len(args) == 0 {
					return usagef("no files: give the JSON results of every part (leaselab check --shard i/n --format json)")
				}
				return runMerge(c, *format, args)
			}
		},
	})
}

// mergers combine the parts of a sharded run of each command that splits,
// by Info.Command. Each decodes its parts, sums them in index order
// (order[i] is the position of part i), fills the meta and writes the
// result.
var mergers = map[string]func(c *ctx, format string, docs [][]byte, in []shard.Input, order []int) error{
	"check":  mergeCheck,
	"sweep":  mergeSweep,
	"verify": mergeVerify,
}

// runMerge reads the files, checks they are one whole run and merges it.
func runMerge(c *ctx, format string, files []string) error {
	docs := make([][]byte, len(files))
	in := make([]shard.Input, len(files))
	for k, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return badInput(err)
		}
		var head struct {
			Meta   *runner.Meta `json:"meta"`
			Shard  *shard.Info  `json:"shard"`
			WallMS float64      `json:"wall_ms"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return usagef("%s is not a JSON result (run the parts with --format json): %v", f, err)
		}
		docs[k] = b
		in[k] = shard.Input{Name: f, Info: head.Shard, Meta: head.Meta, WallMS: head.WallMS}
	}
	order, warnings, err := shard.Order(in)
	if err != nil {
		return badInput(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(c.stderr, "merge: warning: %s\n", w)
	}
	merge, ok := mergers[in[0].Info.Command]
	if !ok {
		names := make([]string, 0, len(mergers))
		for n := range mergers {
			names = append(names, n)
		}
		sort.Strings(names)
		return usagef("%s is a part of %s, which this build cannot merge (it merges %s)", files[0], in[0].Info.Command, strings.Join(names, ", "))
	}
	return merge(c, format, docs, in, order)
}

// decodeStrict decodes a result, refusing keys the type does not have: a
// part written by a newer build would otherwise lose them in the merge.
func decodeStrict(name string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return usagef("%s: %v (was it written by another build of leaselab? merge with the build that ran the parts)", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return usagef("%s: more than one JSON value", name)
	}
	return nil
}

// decodeParts decodes the whole run's spec (the first part's shard.spec)
// and every part's result, in index order (order[i] is part i).
func decodeParts[S, R any](docs [][]byte, in []shard.Input, order []int) (S, []R, error) {
	var spec S
	if err := decodeStrict(in[0].Name+": shard.spec", in[0].Info.Spec, &spec); err != nil {
		return spec, nil, err
	}
	parts := make([]R, len(order))
	for i, k := range order {
		if err := decodeStrict(in[k].Name, docs[k], &parts[i]); err != nil {
			return spec, nil, err
		}
	}
	return spec, parts, nil
}

// mergeCheck merges the parts of check --shard.
func mergeCheck(c *ctx, format string, docs [][]byte, in []shard.Input, order []int) error {
	cs, parts, err := decodeParts[campaign.CheckSpec, campaign.CheckResult](docs, in, order)
	if err != nil {
		return err
	}
	for i, k := range order {
		want := in[k].Info.To - in[k].Info.From
		if parts[i].Interrupted {
			return usagef("%s: part %d/%d was interrupted after %d of its %d seeds: run it again", in[k].Name, i, len(order), parts[i].Seeds, want)
		}
		if parts[i].Seeds != want && !(cs.StopAtFirst && parts[i].Seeds < want && parts[i].Violations > 0) {
			return usagef("%s: part %d/%d ran %d seeds, not %d", in[k].Name, i, len(order), parts[i].Seeds, want)
		}
	}
	res, err := campaign.MergeCheck(cs, parts)
	if err != nil {
		return badInput(err)
	}
	res.Meta = c.meta()
	res.Shards = shard.Parts(in, order)
	if err := writeCheck(c, format, res); err != nil {
		return err
	}
	if res.Violations > 0 || res.Unanswered > 0 {
		return exitStatus(1)
	}
	return nil
}

// mergeSweep merges the parts of sweep --shard.
func mergeSweep(c *ctx, format string, docs [][]byte, in []shard.Input, order []int) error {
	g, parts, err := decodeParts[sweep.Grid, sweep.Result](docs, in, order)
	if err != nil {
		return err
	}
	for i, k := range order {
		p, x := parts[i], in[k].Info
		if p.Interrupted {
			return usagef("%s: part %d/%d was interrupted: run it again", in[k].Name, i, len(order))
		}
		if len(p.Cells) != x.To-x.From || len(p.Cells) > 0 && p.Cells[0].Index != x.From {
			return usagef("%s: part %d/%d holds %d cells, not the cells %d..%d", in[k].Name, i, len(order), len(p.Cells), x.From, x.To-1)
		}
	}
	res, err := sweep.Merge(g, parts)
	if err != nil {
		return badInput(err)
	}
	res.Meta = c.meta()
	res.Shards = shard.Parts(in, order)
	if err := writeSweep(c.stdout, format, res); err != nil {
		return err
	}
	return sweepStatus(res)
}

// mergeVerify merges the parts of verify --shard.
func mergeVerify(c *ctx, format string, docs [][]byte, in []shard.Input, order []int) error {
	if format == "csv" {
		return usagef("a battery merges to --format table or json")
	}
	s, parts, err := decodeParts[verify.Spec, verify.Result](docs, in, order)
	if err != nil {
		return err
	}
	for i, k := range order {
		if err := verify.CheckPart(s, in[k].Info.From, in[k].Info.To, parts[i]); err != nil {
			return usagef("%s: part %d/%d: %v", in[k].Name, i, len(order), err)
		}
		in[k].WallMS = parts[i].Seconds * 1000 // a battery's wall time is its seconds
	}
	res, err := verify.Merge(s, parts)
	if err != nil {
		return badInput(err)
	}
	res.Meta = c.meta()
	res.Shards = shard.Parts(in, order)
	return writeVerify(c, format, res)
}

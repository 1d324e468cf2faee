package main

// --shard i/n for the commands that split (check, verify, sweep), and the
// rows a part or a merged result adds to check's and verify's tables.
// Merging is merge.go; the split itself is runner/shard.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/runner/campaign"
	"leaselab/runner/shard"
	"leaselab/runner/sweep"
	"leaselab/runner/verify"
)

// addShardFlag declares --shard; what names the items split ("seeds").
func addShardFlag(fs *pflag.FlagSet, what string) *string {
	return fs.String("shard", "", "run part i of n of the "+what+" (i/n, 0 <= i < n, contiguous ranges); auto/n takes i from "+
		shard.EnvKubernetes+" (Kubernetes Indexed Job) or "+shard.EnvSlurm+" (Slurm job array); 'leaselab merge' combines the parts' JSON")
}

// parseShard reads --shard (nil when not given; a usage error when bad).
func parseShard(value string, total int, what string) (*shard.Spec, error) {
	if value == "" {
		return nil, nil
	}
	s, err := shard.Parse(value, os.Getenv)
	if err != nil {
		return nil, badInput(err)
	}
	if err := s.Fits(total, what); err != nil {
		return nil, badInput(err)
	}
	return &s, nil
}

// shardCheck is the campaign part --shard asks check to run: cs's seeds in
// the part's range, and the Info its result carries (cs itself, and nil,
// without --shard).
func shardCheck(value string, cs campaign.CheckSpec) (campaign.CheckSpec, *shard.Info, error) {
	s, err := parseShard(value, cs.Seeds, "seeds")
	if err != nil || s == nil {
		return cs, nil, err
	}
	info, err := shard.NewInfo("check", *s, cs.Seeds, cs)
	if err != nil {
		return cs, nil, err
	}
	part := cs
	part.FirstSeed = cs.FirstSeed + uint64(info.From)
	part.Seeds = info.To - info.From
	return part, info, nil
}

// shardSweep is the Info of the part of a sweep of g over cells cells
// that --shard asks for (nil without --shard).
func shardSweep(value string, g sweep.Grid, cells int) (*shard.Info, error) {
	s, err := parseShard(value, cells, "cells")
	if err != nil || s == nil {
		return nil, err
	}
	return shard.NewInfo("sweep", *s, cells, g)
}

// shardRows are the table rows of a part's or a merged result: which
// seeds, and every part's counterexample.
func shardRows(res campaign.CheckResult) [][]string {
	var span string
	if s := res.Shard; s != nil {
		var cs campaign.CheckSpec
		_ = json.Unmarshal(s.Spec, &cs) // written by shardCheck
		first := cs.FirstSeed
		span = fmt.Sprintf("seeds %d..%d of %d..%d", first+uint64(s.From), first+uint64(s.To)-1, first, first+uint64(s.Total)-1)
	}
	var cx []string
	for _, c := range res.Counterexamples[min(1, len(res.Counterexamples)):] {
		cx = append(cx, fmt.Sprintf("%s (seed %d, %d commands)", c.File, c.Seed, c.Commands))
	}
	return partRows(res.Shard, span, res.Shards, "wall time below is their sum", "other counterexamples", cx)
}

// partRows are the rows a part's or a merged result adds to its table:
// the part's items (span, with s), the parts merged (summed: what their
// times add up to), and the finds beside the one reported (others,
// under label).
func partRows(s *shard.Info, span string, merged []shard.Part, summed, label string, others []string) [][]string {
	var rows [][]string
	if s != nil {
		rows = append(rows, []string{"shard", fmt.Sprintf("%d/%d: %s (leaselab merge combines the parts' JSON)", s.Index, s.Count, span)})
	}
	if len(merged) > 0 {
		rows = append(rows, []string{"merged", fmt.Sprintf("%d parts from %s; %s", len(merged), hostCount(merged), summed)})
	}
	if len(others) > 0 {
		rows = append(rows, []string{label, strings.Join(others, ", ")})
	}
	return rows
}

// shardVerify narrows c to the part of its battery that --shard asks for
// and returns the Info its result carries (nil, c unchanged, without
// --shard).
func shardVerify(value string, c *verify.Config) (*shard.Info, error) {
	if value == "" {
		return nil, nil
	}
	es, err := verify.Select(*c)
	if err != nil {
		return nil, badInput(err)
	}
	s, err := parseShard(value, len(es), "configurations")
	if err != nil {
		return nil, err
	}
	info, err := shard.NewInfo("verify", *s, len(es), verify.SpecOf(*c, es))
	if err != nil {
		return nil, err
	}
	c.From, c.To = info.From, info.To
	return info, nil
}

// verifyShardRows are the table rows of a battery's part or merged
// result: which configurations, and the findings beside the reported one.
func verifyShardRows(r verify.Result) [][]string {
	var span string
	if s := r.Shard; s != nil {
		var spec verify.Spec
		_ = json.Unmarshal(s.Spec, &spec) // written by shardVerify
		span = fmt.Sprintf("configurations %s of %d", strings.Join(spec.Configurations[s.From:s.To], " "), s.Total)
	}
	var fs []string
	for _, f := range r.Findings[min(1, len(r.Findings)):] {
		fs = append(fs, fmt.Sprintf("%s (pass %d, %d violations)", f.FoundBy, f.Pass, f.Violations))
	}
	return partRows(r.Shard, span, r.Shards, "the seconds used are their sum", "other findings", fs)
}

// hostCount says how many hosts the parts ran on ("1 host", "3 hosts").
func hostCount(parts []shard.Part) string {
	hosts := map[string]bool{}
	for _, p := range parts {
		if p.Meta != nil {
			hosts[p.Meta.Hostname] = true
		}
	}
	if len(hosts) == 1 {
		return "1 host"
	}
	return fmt.Sprintf("%d hosts", len(hosts))
}

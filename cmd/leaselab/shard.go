package main

// --shard i/n for the commands that split (check, sweep), and the rows a part or
// a merged result adds to check's table. Merging is merge.go; the split
// itself is runner/shard.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/runner/campaign"
	"leaselab/runner/shard"
	"leaselab/runner/sweep"
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
	var rows [][]string
	if s := res.Shard; s != nil {
		var cs campaign.CheckSpec
		_ = json.Unmarshal(s.Spec, &cs) // written by shardCheck
		first := cs.FirstSeed
		rows = append(rows, []string{"shard", fmt.Sprintf("%d/%d: seeds %d..%d of %d..%d (leaselab merge combines the parts' JSON)",
			s.Index, s.Count, first+uint64(s.From), first+uint64(s.To)-1, first, first+uint64(s.Total)-1)})
	}
	if len(res.Shards) > 0 {
		hosts := map[string]bool{}
		for _, p := range res.Shards {
			if p.Meta != nil {
				hosts[p.Meta.Hostname] = true
			}
		}
		from := "1 host"
		if len(hosts) != 1 {
			from = fmt.Sprintf("%d hosts", len(hosts))
		}
		rows = append(rows, []string{"merged", fmt.Sprintf("%d parts from %s; wall time below is their sum", len(res.Shards), from)})
	}
	if len(res.Counterexamples) > 1 {
		var cx []string
		for _, c := range res.Counterexamples[1:] {
			cx = append(cx, fmt.Sprintf("%s (seed %d, %d commands)", c.File, c.Seed, c.Commands))
		}
		rows = append(rows, []string{"other counterexamples", strings.Join(cx, ", ")})
	}
	return rows
}

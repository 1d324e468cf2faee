package sweep

import (
	"fmt"

	"leaselab/runner/shard"
)

// Merge sums the parts of a sharded sweep of g (sweep --shard i/n, each a
// Result of its cells, in index order: parts[i] is part i) into the
// result the whole sweep gives in one process. A cell's statistics are
// its own seeds', so a part's cells are whole and the merge only puts
// them side by side, in cell order, and adds the runs and failures;
// WallMS is the sum of the parts'. The parts must each hold the cells
// [From, To) their Shard names, none interrupted. Meta and Shards are
// left to the caller.
func Merge(g Grid, parts []Result) (Result, error) {
	if len(parts) == 0 {
		return Result{}, fmt.Errorf("no parts to merge")
	}
	res := Result{Shards: []shard.Part{}, Params: g.Base, Axes: g.Axes, Seeds: g.Seeds, FirstSeed: g.FirstSeed, Meters: g.Meters}
	res.Params.Seed = g.FirstSeed
	next := 0
	for i, p := range parts {
		if p.Interrupted {
			return Result{}, fmt.Errorf("part %d was interrupted: run it again", i)
		}
		for _, c := range p.Cells {
			if c.Index != next {
				return Result{}, fmt.Errorf("part %d: cell %d where cell %d was due: parts not in index order, or not whole", i, c.Index, next)
			}
			next++
			res.Cells = append(res.Cells, c)
		}
		res.Runs += p.Runs
		res.Failed += p.Failed
		res.WallMS += p.WallMS
	}
	return res, nil
}

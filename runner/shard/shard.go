// Package shard splits one run of leaselab (a campaign's seeds, a
// battery's configurations, a sweep's cells) into n parts that run
// anywhere, one process each: Kubernetes Indexed Job pods, Slurm job array
// tasks, shells on several machines. Each part's result names the part
// (Info, the "shard" key of its JSON); Order checks that a set of part
// results is exactly the parts 0..n-1 of one run, by one revision, before
// the command that owns the result type sums them (campaign.MergeCheck,
// sweep.Merge).
//
// Part i of n runs the items [i·T/n, (i+1)·T/n) of the run's T items (Range),
// contiguous and in order, so a part is itself a smaller run of the same
// command (a campaign's part is the campaign --first-seed F+lo --seeds
// hi-lo) and a merge that takes the parts in index order takes the items
// in the order one process would have.
//
// A part's index comes from the command line (--shard i/n) or, with
// --shard auto/n, from the scheduler (Parse): JOB_COMPLETION_INDEX in a
// Kubernetes Indexed Job (completionMode: Indexed; a pod that fails is
// replaced by one with the same index), SLURM_ARRAY_TASK_ID in a Slurm job
// array (--array=0-(n-1), %K caps how many run at once).
package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"leaselab/runner"
)

// The environment variables --shard auto/n reads.
const (
	// EnvKubernetes is set by Kubernetes in every pod of an Indexed Job.
	EnvKubernetes = "JOB_COMPLETION_INDEX"
	// EnvSlurm is set by Slurm in every task of a job array.
	EnvSlurm = "SLURM_ARRAY_TASK_ID"
)

// Spec is part Index of Count (--shard Index/Count).
type Spec struct {
	Index, Count int
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// maxCount bounds n, so that Range's products stay far from overflow and a
// typo (--shard 0/30000000) is caught.
const maxCount = 1 << 20

// Parse reads a --shard value: "i/n" with 0 <= i < n, or "auto/n", which
// takes i from EnvKubernetes or EnvSlurm as getenv reports them (one of
// them set, or both to the same value). Its errors name the value and say
// what is wrong with it.
func Parse(value string, getenv func(string) string) (Spec, error) {
	idx, cnt, ok := strings.Cut(value, "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %q: want i/n (part i of n, 0 <= i < n, e.g. 0/3) or auto/n", value)
	}
	n, err := strconv.Atoi(cnt)
	if err != nil || n < 1 || n > maxCount {
		return Spec{}, fmt.Errorf("--shard %q: the count n must be a whole number from 1 to %d, got %q", value, maxCount, cnt)
	}
	if idx != "auto" {
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			return Spec{}, fmt.Errorf("--shard %q: the index i must be auto or a whole number from 0 to %d, got %q", value, n-1, idx)
		}
		if i >= n {
			return Spec{}, fmt.Errorf("--shard %q: index %d is not below the count %d (the parts are 0/%d to %d/%d)", value, i, n, n, n-1, n)
		}
		return Spec{Index: i, Count: n}, nil
	}
	i, err := autoIndex(n, getenv)
	if err != nil {
		return Spec{}, fmt.Errorf("--shard %q: %w", value, err)
	}
	return Spec{Index: i, Count: n}, nil
}

// autoIndex is the index the scheduler gives this process.
func autoIndex(n int, getenv func(string) string) (int, error) {
	type source struct{ name, value, fix string }
	var set []source
	for _, s := range []source{
		{EnvKubernetes, getenv(EnvKubernetes), fmt.Sprintf("the Indexed Job's completions must be %d", n)},
		{EnvSlurm, getenv(EnvSlurm), fmt.Sprintf("the job array must be --array=0-%d", n-1)},
	} {
		if s.value != "" {
			set = append(set, s)
		}
	}
	switch {
	case len(set) == 0:
		return 0, fmt.Errorf("neither %s (a Kubernetes Indexed Job's pod) nor %s (a Slurm job array's task) is set; give the index as --shard i/%d", EnvKubernetes, EnvSlurm, n)
	case len(set) == 2 && set[0].value != set[1].value:
		return 0, fmt.Errorf("%s=%s and %s=%s disagree", set[0].name, set[0].value, set[1].name, set[1].value)
	}
	s := set[0]
	i, err := strconv.Atoi(s.value)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s=%q is not a shard index (a whole number from 0)", s.name, s.value)
	}
	if i >= n {
		return 0, fmt.Errorf("%s=%d is not below the count %d (%s)", s.name, i, n, s.fix)
	}
	return i, nil
}

// Range is the items [lo, hi) of total that part s runs: contiguous, in
// index order, sizes differing by at most one.
func (s Spec) Range(total int) (lo, hi int) {
	return int(int64(s.Index) * int64(total) / int64(s.Count)), int(int64(s.Index+1) * int64(total) / int64(s.Count))
}

// Fits says why a run of total items (what: "seeds", "configurations")
// cannot be split as s, or returns nil: every part needs an item.
func (s Spec) Fits(total int, what string) error {
	if s.Count > total {
		return fmt.Errorf("--shard %v: %d parts of %d %s; every part needs at least one (use at most %d parts)", s, s.Count, total, what, total)
	}
	return nil
}

// Info is what a part's result says about itself: its JSON key "shard".
// Spec is the whole run's spec as the command encodes it, the same bytes
// in every part of one run (merge compares them).
type Info struct {
	Command string `json:"command"` // the leaselab subcommand: check, verify, sweep
	Index   int    `json:"index"`
	Count   int    `json:"count"`
	// From, To: the items [From, To) of Total this part ran (Range).
	From  int             `json:"from"`
	To    int             `json:"to"`
	Total int             `json:"total"`
	Spec  json.RawMessage `json:"spec"`
}

// NewInfo describes part s of a run of command over total items, whose
// spec is v (encoded as JSON).
func NewInfo(command string, s Spec, total int, v any) (*Info, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	lo, hi := s.Range(total)
	return &Info{Command: command, Index: s.Index, Count: s.Count, From: lo, To: hi, Total: total, Spec: b}, nil
}

// Part is one part of a merged result (its JSON key "shards", in index
// order): which items it ran, how long it took and where (the part's own
// meta).
type Part struct {
	Index  int          `json:"index"`
	From   int          `json:"from"`
	To     int          `json:"to"`
	WallMS float64      `json:"wall_ms"`
	Meta   *runner.Meta `json:"meta,omitempty"`
}

// Input is one result given to a merge.
type Input struct {
	Name   string       // the file, for messages
	Info   *Info        // its "shard" key (nil: not a part's result)
	Meta   *runner.Meta // its "meta" key
	WallMS float64      // its "wall_ms" key
}

// Order checks that in holds exactly the parts 0..n-1 of one run of one
// command by one revision, and returns their positions in in by index
// (order[i] is part i). Every mismatch is an error naming the files:
// results that are no parts, parts of different commands, counts, specs or
// revisions, parts given twice (listed with every file) and parts missing
// (all listed). The revision is the meta's; warnings says when it cannot
// tell two builds apart (unknown, or a checkout with local changes).
func Order(in []Input) (order []int, warnings []string, err error) {
	if len(in) == 0 {
		return nil, nil, fmt.Errorf("no results given")
	}
	for _, x := range in {
		if x.Info == nil {
			return nil, nil, fmt.Errorf("%s is not a part's result (it has no \"shard\" key: run the command with --shard i/n and --format json)", x.Name)
		}
	}
	first := in[0]
	for _, x := range in[1:] {
		a, b := first.Info, x.Info
		switch {
		case a.Command != b.Command:
			return nil, nil, fmt.Errorf("%s is a part of %s, %s of %s", first.Name, a.Command, x.Name, b.Command)
		case a.Count != b.Count:
			return nil, nil, fmt.Errorf("%s is part %d/%d, %s part %d/%d: not one split", first.Name, a.Index, a.Count, x.Name, b.Index, b.Count)
		case a.Total != b.Total:
			return nil, nil, fmt.Errorf("%s splits %d items, %s %d: not one run", first.Name, a.Total, x.Name, b.Total)
		case !bytes.Equal(a.Spec, b.Spec):
			return nil, nil, fmt.Errorf("%s and %s are parts of different runs: their specs differ at %s", first.Name, x.Name, Diff(a.Spec, b.Spec))
		}
		if ra, rb := revision(first.Meta), revision(x.Meta); ra != rb {
			return nil, nil, fmt.Errorf("%s was made by revision %s, %s by %s: merge parts of one build", first.Name, ra, x.Name, rb)
		}
	}
	n := first.Info.Count
	byIndex := make([][]string, n)
	order = make([]int, n)
	for k, x := range in {
		s := Spec{x.Info.Index, n}
		if x.Info.Index < 0 || x.Info.Index >= n {
			return nil, nil, fmt.Errorf("%s: part index %d is not in 0..%d", x.Name, x.Info.Index, n-1)
		}
		if lo, hi := s.Range(x.Info.Total); x.Info.From != lo || x.Info.To != hi {
			return nil, nil, fmt.Errorf("%s: part %v ran items [%d, %d), not [%d, %d) of %d", x.Name, s, x.Info.From, x.Info.To, lo, hi, x.Info.Total)
		}
		byIndex[x.Info.Index] = append(byIndex[x.Info.Index], x.Name)
		order[x.Info.Index] = k
	}
	var missing, twice []string
	for i, names := range byIndex {
		switch {
		case len(names) == 0:
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		case len(names) > 1:
			twice = append(twice, fmt.Sprintf("%d/%d (%s)", i, n, strings.Join(names, ", ")))
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		var msg []string
		if len(twice) > 0 {
			msg = append(msg, "parts given more than once: "+strings.Join(twice, "; "))
		}
		if len(missing) > 0 {
			msg = append(msg, "parts missing: "+strings.Join(missing, ", "))
		}
		return nil, nil, fmt.Errorf("%s is not one whole %s run: %s", plural(len(in), "result"), first.Info.Command, strings.Join(msg, "; "))
	}
	switch r := revision(first.Meta); {
	case r == "unknown" || r == "":
		warnings = append(warnings, "the parts' revision is unknown, so whether they ran one build cannot be checked (stamp the build: see cmd/leaselab/deploy/Dockerfile)")
	case strings.HasSuffix(r, "+dirty"):
		warnings = append(warnings, fmt.Sprintf("the parts ran %s, a checkout with local changes: whether they ran one build cannot be checked", r))
	}
	return order, warnings, nil
}

// Parts lists in's parts by index, with their items, wall times and metas
// (order from Order).
func Parts(in []Input, order []int) []Part {
	out := make([]Part, len(order))
	for i, k := range order {
		x := in[k]
		out[i] = Part{Index: x.Info.Index, From: x.Info.From, To: x.Info.To, WallMS: x.WallMS, Meta: x.Meta}
	}
	return out
}

func revision(m *runner.Meta) string {
	if m == nil {
		return "unknown"
	}
	return m.Revision
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Diff names the first place two JSON documents differ, as a path of keys
// and indexes with both values ("base.seed: 1 vs 2"), for an error
// message. Objects are compared key by key in sorted order.
func Diff(a, b []byte) string {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "(not JSON)"
	}
	if p := diff("", x, y); p != "" {
		return p
	}
	return "(their encodings)"
}

func diff(path string, x, y any) string {
	at := func() string {
		if path == "" {
			return "the top"
		}
		return path
	}
	show := func(v any) string {
		b, _ := json.Marshal(v)
		if len(b) > 60 {
			return string(b[:57]) + "..."
		}
		return string(b)
	}
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(xv)+len(yv))
		for k := range xv {
			keys = append(keys, k)
		}
		for k := range yv {
			if _, in := xv[k]; !in {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			a, inA := xv[k]
			b, inB := yv[k]
			switch {
			case !inA:
				return fmt.Sprintf("%s: absent vs %s", p, show(b))
			case !inB:
				return fmt.Sprintf("%s: %s vs absent", p, show(a))
			}
			if d := diff(p, a, b); d != "" {
				return d
			}
		}
		return ""
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			break
		}
		for i := range xv {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
		return ""
	default:
		if x == y {
			return ""
		}
	}
	return fmt.Sprintf("%s: %s vs %s", at(), show(x), show(y))
}

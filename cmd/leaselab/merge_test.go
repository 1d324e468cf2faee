package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"leaselab/runner/campaign"
)

// asMainEnv makes the test binary run as the leaselab command (TestMain),
// so that the deploy scripts' tests start real part processes without a
// separate build.
const asMainEnv = "LEASELAB_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// member is one top-level key of a JSON object with its value's bytes as
// written.
type member struct {
	key string
	raw []byte
}

// members lists the top-level keys of a JSON object in order, each value's
// bytes exactly as written, and the offset where each value ends.
func members(t *testing.T, b []byte) ([]member, []int64) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v %v\n%s", tok, err, b)
	}
	var out []member
	var ends []int64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), raw})
		ends = append(ends, dec.InputOffset())
	}
	return out, ends
}

// afterMeta is the output from the end of its first key's value, which
// must be meta, to the end: merged results must agree on it byte for
// byte.
func afterMeta(t *testing.T, b []byte) []byte {
	t.Helper()
	ms, ends := members(t, b)
	if len(ms) == 0 || ms[0].key != "meta" {
		t.Fatalf("the first key is not meta:\n%s", b)
	}
	return b[ends[0]:]
}

// without drops the named keys.
func without(ms []member, keys ...string) []member {
	return slices.DeleteFunc(slices.Clone(ms), func(m member) bool { return slices.Contains(keys, m.key) })
}

// sameMembers reports the first difference of two key lists, "" if none.
func sameMembers(a, b []member) string {
	for i := range max(len(a), len(b)) {
		switch {
		case i >= len(a):
			return "only the second has " + b[i].key
		case i >= len(b):
			return "only the first has " + a[i].key
		case a[i].key != b[i].key:
			return fmt.Sprintf("key %d: %s vs %s", i, a[i].key, b[i].key)
		case !bytes.Equal(a[i].raw, b[i].raw):
			return fmt.Sprintf("%s: %s\nvs\n%s", a[i].key, a[i].raw, b[i].raw)
		}
	}
	return ""
}

// permutations of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// runParts runs `leaselab check ARGS --shard i/n --format json` for every
// i in-process, with extra(i) added if extra is not nil, each result in
// dir/part-i.json, and returns the files.
func runParts(t *testing.T, dir string, n int, extra func(i int) []string, args ...string) []string {
	t.Helper()
	var files []string
	for i := range n {
		a := append(append([]string{"check"}, args...), "--shard", fmt.Sprintf("%d/%d", i, n), "--format", "json", "--quiet")
		if extra != nil {
			a = append(a, extra(i)...)
		}
		code, stdout, stderr := leaselab(a...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d: %s", a, code, stderr)
		}
		f := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if err := os.WriteFile(f, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// checkMerged merges files in every order (up to 4 files; more: in index
// order, reversed and interleaved) and checks that the outputs agree byte
// for byte but for their meta, and that they equal whole, the unsharded
// campaign's JSON, in every key but meta, wall_ms, shards and the keys
// named in also. It returns the merge's exit status and output in index
// order.
func checkMerged(t *testing.T, files []string, whole []byte, also ...string) (int, []byte) {
	t.Helper()
	orders := permutations(len(files))
	if len(files) > 4 {
		var in, rev []int
		for i := range files {
			in, rev = append(in, i), append(rev, len(files)-1-i)
		}
		halves := append(slices.Clone(in[len(in)/2:]), in[:len(in)/2]...)
		orders = [][]int{in, rev, halves}
	}
	slices.SortFunc(orders, slices.Compare) // index order first
	var first []byte
	code := -1
	for _, p := range orders {
		args := []string{"merge", "--format", "json"}
		for _, k := range p {
			args = append(args, files[k])
		}
		c, stdout, stderr := leaselab(args...)
		if c != 0 && c != 1 {
			t.Fatalf("%v: exit %d: %s", args, c, stderr)
		}
		if first == nil {
			first, code = []byte(stdout), c
			continue
		}
		if c != code {
			t.Errorf("merge in order %v: exit %d, in the first order %d", p, c, code)
		}
		if !bytes.Equal(afterMeta(t, first), afterMeta(t, []byte(stdout))) {
			t.Errorf("merge in order %v differs from the first order after meta:\n%s\nvs\n%s", p, first, stdout)
		}
	}
	m, _ := members(t, first)
	w, _ := members(t, whole)
	skip := append([]string{"meta", "wall_ms", "shards"}, also...)
	if d := sameMembers(without(m, skip...), without(w, skip...)); d != "" {
		t.Errorf("merged and unsharded results differ: %s", d)
	}
	if !slices.ContainsFunc(m, func(x member) bool { return x.key == "shards" }) {
		t.Error("the merged result has no shards key")
	}
	return code, first
}

// The acceptance: check --algo paxoslease --seeds 300 --faults all
// split in 3 parts and merged gives the unsharded leases_acquired,
// violations and violating_seeds (and every other key but meta, wall_ms
// and shards), and the same JSON in any order of the inputs.
func TestShardedCheckMerge(t *testing.T) {
	args := []string{"--algo", "paxoslease", "--seeds", "300", "--faults", "all"}
	if testing.Short() {
		args[3] = "30"
	}
	code, whole, stderr := leaselab(append(append([]string{"check"}, args...), "--format", "json", "--quiet")...)
	if code != 0 {
		t.Fatalf("unsharded check: exit %d: %s", code, stderr)
	}
	files := runParts(t, t.TempDir(), 3, nil, args...)
	code, merged := checkMerged(t, files, []byte(whole))
	var m, w campaign.CheckResult
	if err := json.Unmarshal(merged, &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if code != 0 || m.LeasesAcquired != w.LeasesAcquired || m.LeasesAcquired == 0 || m.Violations != w.Violations ||
		!slices.Equal(m.ViolatingSeeds, w.ViolatingSeeds) || m.Seeds != w.Seeds {
		t.Errorf("merged: exit %d, %d seeds, %d leases, %d violations in %v; unsharded: %d seeds, %d leases, %d violations in %v",
			code, m.Seeds, m.LeasesAcquired, m.Violations, m.ViolatingSeeds, w.Seeds, w.LeasesAcquired, w.Violations, w.ViolatingSeeds)
	}
	if len(m.Shards) != 3 || m.Shards[1].From != m.Seeds/3 || m.Shards[2].To != m.Seeds || m.Shards[0].Meta == nil {
		t.Errorf("shards %+v", m.Shards)
	}
	var sum float64
	for _, p := range m.Shards {
		sum += p.WallMS
	}
	if m.WallMS != sum {
		t.Errorf("merged wall_ms %v, the parts' sum %v", m.WallMS, sum)
	}
}

// Paused holders that write late: the merge has the unsharded writes,
// stale writes, their seeds and double_belief_ms (a sum of fractions of a
// millisecond, equal to the last digit).
func TestShardedCheckMergeWrites(t *testing.T) {
	args := []string{"--algo", "paxoslease", "--faults", "pause,crash", "--writes", "200ms", "--seeds", "40"}
	code, whole, stderr := leaselab(append(append([]string{"check"}, args...), "--format", "json", "--quiet")...)
	if code != 0 {
		t.Fatalf("unsharded check: exit %d: %s", code, stderr)
	}
	var w campaign.CheckResult
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if w.StaleWrites == 0 || len(w.StaleWriteSeeds) < 3 || w.DoubleBeliefMS == float64(int64(w.DoubleBeliefMS)) {
		t.Fatalf("%d stale writes in seeds %v, %v ms of double belief: the test needs them in every part, the sum not whole",
			w.StaleWrites, w.StaleWriteSeeds, w.DoubleBeliefMS)
	}
	checkMerged(t, runParts(t, t.TempDir(), 3, nil, args...), []byte(whole))
}

// A sweep split by cells (4 cells in 3 parts: 1, 1 and 2) and merged
// gives the unsharded sweep in every key but meta, wall_ms and shards,
// the same JSON in any order of the parts; the cells' trace hashes show
// each run is the one the whole sweep made.
func TestShardedSweepMerge(t *testing.T) {
	args := []string{"sweep", "--algo", "naive,paxoslease", "--proposers", "2,3", "--seeds", "2", "--duration", "5s", "--format", "json", "--quiet"}
	code, whole, stderr := leaselab(args...)
	if code != 0 {
		t.Fatalf("unsharded sweep: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		code, out, stderr := leaselab(append(slices.Clone(args), "--shard", fmt.Sprintf("%d/3", i))...)
		if code != 0 {
			t.Fatalf("part %d: exit %d: %s", i, code, stderr)
		}
		f := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	code, merged := checkMerged(t, files, []byte(whole))
	var m struct {
		Cells []struct {
			Index       int      `json:"index"`
			TraceHashes []string `json:"trace_hashes"`
		} `json:"cells"`
		Runs int `json:"runs"`
	}
	if err := json.Unmarshal(merged, &m); err != nil {
		t.Fatal(err)
	}
	if code != 0 || len(m.Cells) != 4 || m.Runs != 8 || m.Cells[3].Index != 3 || len(m.Cells[3].TraceHashes) != 2 || m.Cells[3].TraceHashes[0] == "" {
		t.Errorf("merged sweep: exit %d, %+v", code, m)
	}
	// A part of a sweep and a part of a check are not one run; a sweep
	// of 4 cells has no fifth part.
	_, checkPart, _ := leaselab("check", "--algo", "naive", "--seeds", "3", "--duration", "5s", "--shard", "1/3", "--format", "json", "--quiet")
	other := filepath.Join(dir, "check-1.json")
	if err := os.WriteFile(other, []byte(checkPart), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", files[0], other, files[2]}, "is a part of sweep, " + other + " of check"},
		{append(slices.Clone(args), "--shard", "0/5"), "5 parts of 4 cells"},
	} {
		if code, _, stderr := leaselab(tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("leaselab %s: exit %d, %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// A campaign that violates: the merge has the unsharded violating seeds,
// first violations and violating specs, exits 1, and keeps every part's
// shrunk counterexample, the earliest violation first; with
// --stop-at-first the parts after the first violating one are left out as
// one process leaves out the seeds after it.
func TestShardedCheckViolations(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--algo", "paxoslease", "--ablate", "restart-wait", "--faults", "crash", "--crash-rate", "10", "--downtime", "100ms", "--duration", "30s"}
	args := append(slices.Clone(base), "--seeds", "12")
	_, whole, _ := leaselab(append(append([]string{"check"}, args...), "--format", "json", "--quiet")...)
	files := runParts(t, dir, 3, func(i int) []string {
		return []string{"--out", filepath.Join(dir, fmt.Sprintf("cx-%d.txt", i)), "--shrink-time", "20s"}
	}, args...)
	// The unsharded run shrinks nothing (no --out).
	code, merged := checkMerged(t, files, []byte(whole), "counterexample", "counterexamples")
	var m campaign.CheckResult
	if err := json.Unmarshal(merged, &m); err != nil {
		t.Fatal(err)
	}
	if code != 1 || m.Violations == 0 || m.Counterexample == nil || len(m.Counterexamples) != 3 {
		t.Fatalf("merged: exit %d, %d violations, counterexample %v, %d in all", code, m.Violations, m.Counterexample, len(m.Counterexamples))
	}
	for i, c := range m.Counterexamples {
		if _, err := os.Stat(c.File); err != nil {
			t.Errorf("counterexample %s: %v", c.File, err)
		}
		if i > 0 && c.RunViolation.StartNS < m.Counterexamples[i-1].RunViolation.StartNS {
			t.Errorf("counterexamples not earliest first: %+v", m.Counterexamples)
		}
	}
	if *m.Counterexample != m.Counterexamples[0] {
		t.Errorf("counterexample %+v is not the earliest, %+v", m.Counterexample, m.Counterexamples[0])
	}

	// Seeds 20 and 21 are clean, 22 violates: in 6 parts of two seeds
	// from 20, the first violation is in part 1.
	stop := append(slices.Clone(base), "--seeds", "12", "--first-seed", "20", "--stop-at-first")
	_, whole, _ = leaselab(append(append([]string{"check"}, stop...), "--format", "json", "--quiet")...)
	var w campaign.CheckResult
	if err := json.Unmarshal([]byte(whole), &w); err != nil || w.Seeds != 3 {
		t.Fatalf("stop-at-first from seed 20 ran %d seeds (%v); the test needs 3", w.Seeds, err)
	}
	code, merged = checkMerged(t, runParts(t, t.TempDir(), 6, nil, stop...), []byte(whole))
	if err := json.Unmarshal(merged, &m); err != nil || code != 1 || m.Seeds != 3 || len(m.Shards) != 6 {
		t.Errorf("stop-at-first merged: exit %d, %d seeds, %d parts (%v)", code, m.Seeds, len(m.Shards), err)
	}
}

// Bad input to merge and --shard: exit 2 and a message that names what is
// wrong (and the files).
func TestShardBadInput(t *testing.T) {
	dir := t.TempDir()
	small := []string{"--algo", "naive", "--seeds", "6", "--duration", "10s", "--faults", "loss"}
	files := runParts(t, dir, 3, nil, small...)
	other := runParts(t, t.TempDir(), 3, nil, "--algo", "naive", "--seeds", "6", "--duration", "10s", "--faults", "dup")
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	part1, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Meta struct {
			Revision string `json:"revision"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(part1, &meta); err != nil {
		t.Fatal(err)
	}
	otherRev := write("rev.json", strings.Replace(string(part1), `"revision": "`+meta.Meta.Revision+`"`, `"revision": "0000000"`, 1))
	cut := write("cut.json", strings.Replace(string(part1), `"interrupted": false`, `"interrupted": true`, 1))
	newKey := write("key.json", strings.Replace(string(part1), `"leases_acquired":`, `"from_the_future": 1, "leases_acquired":`, 1))
	_, unsharded, _ := leaselab(append(append([]string{"check"}, small...), "--format", "json", "--quiet")...)
	whole := write("whole.json", unsharded)
	notJSON := write("table.txt", "┌──┐\n")
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "no files"},
		{[]string{"merge", filepath.Join(dir, "nope.json")}, "nope.json: no such file"},
		{[]string{"merge", notJSON}, "table.txt is not a JSON result (run the parts with --format json)"},
		{[]string{"merge", files[0], whole}, "whole.json is not a part's result"},
		{[]string{"merge", files[0], files[2]}, "2 results is not one whole check run: parts missing: 1/3"},
		{[]string{"merge", files[0], files[1], files[1], files[2]}, "parts given more than once: 1/3 (" + files[1] + ", " + files[1] + ")"},
		{[]string{"merge", files[0], other[1], files[2]}, "are parts of different runs: their specs differ at faults[0]: \"loss\" vs \"dup\""},
		{[]string{"merge", files[0], otherRev, files[2]}, "rev.json by 0000000: merge parts of one build"},
		{[]string{"merge", files[0], cut, files[2]}, "cut.json: part 1/3 was interrupted after 2 of its 2 seeds: run it again"},
		{[]string{"merge", files[0], newKey, files[2]}, `key.json: json: unknown field "from_the_future"`},
		{append(append([]string{"check"}, small...), "--shard", "3/3"), `--shard "3/3": index 3 is not below the count 3`},
		{append(append([]string{"check"}, small...), "--shard", "auto/3"), "neither JOB_COMPLETION_INDEX"},
		{append(append([]string{"check"}, small...), "--shard", "0/7"), "7 parts of 6 seeds"},
	} {
		code, stdout, stderr := leaselab(tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("leaselab %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	// --shard auto/n takes the index from the scheduler.
	t.Setenv("SLURM_ARRAY_TASK_ID", "2")
	code, stdout, stderr := leaselab(append(append([]string{"check"}, small...), "--shard", "auto/3", "--format", "json", "--quiet")...)
	want, _ := os.ReadFile(files[2])
	got, _ := members(t, []byte(stdout))
	w, _ := members(t, want)
	if d := sameMembers(without(got, "meta", "wall_ms"), without(w, "meta", "wall_ms")); code != 0 || d != "" {
		t.Errorf("--shard auto/3 with SLURM_ARRAY_TASK_ID=2: exit %d (%s), not part 2/3: %s", code, stderr, d)
	}
}

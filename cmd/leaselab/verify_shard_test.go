package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// partProcesses runs `leaselab ARGS(i)` for i = 0..n-1 as n processes at
// once (this test binary as the command: asLeaselab), each one's stdout
// in dir/part-i.json, and returns the files; a part may exit 1 (it found
// a violation).
func partProcesses(t *testing.T, dir string, n int, args func(i int) []string) []string {
	t.Helper()
	_, env := asLeaselab(t)
	files := make([]string, n)
	runPartsConcurrently(t, n, func(i int) (int, string) {
		files[i] = filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		code, out := runShell(env, "sh", append([]string{"-c", `out=$1; shift; exec leaselab "$@" >"$out"`, "sh", files[i]}, args(i)...)...)
		if code == 1 {
			code = 0
		}
		return code, out
	})
	return files
}

// timeless is a battery's configurations without what a time budget
// makes depend on the machine: each one's seconds and cap_seconds.
func timeless(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var r struct {
		Configurations []map[string]any `json:"configurations"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Configurations {
		delete(c, "seconds")
		delete(c, "cap_seconds")
	}
	return r.Configurations
}

// The battery in 3 part processes, merged in every order of the files:
// the same JSON but for meta, and the unsharded battery's in every key
// but meta, shards, seconds (the parts' sum), the configurations' seconds
// and cap_seconds, and the counterexample's file. Central's small searches
// exhaust with every rule on; with grant-once ablated E1, E3 and E7 each
// find a violation in the quick pass, in three parts: the merge reports
// E1's and skips E2 to E14, as one process does.
func TestShardedVerifyMerge(t *testing.T) {
	base := []string{"verify", "--algo", "central", "--only", "E1,E2,E3,E4,E7,E14", "--budget", "1m", "--workers", "1", "--quiet", "--format", "json"}
	for _, tc := range []struct {
		name   string
		ablate []string
		code   int
	}{
		{"every rule on", nil, 0},
		{"grant-once", []string{"--ablate", "grant-once"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(slices.Clone(base), tc.ablate...)
			code, whole, stderr := leaselab(args...)
			if code != tc.code {
				t.Fatalf("unsharded: exit %d, want %d: %s", code, tc.code, stderr)
			}
			dir := t.TempDir()
			files := partProcesses(t, dir, 3, func(i int) []string {
				return append(slices.Clone(args), "--shard", fmt.Sprintf("%d/3", i), "--out", filepath.Join(dir, fmt.Sprintf("cx-%d.txt", i)))
			})
			code, merged := checkMerged(t, files, []byte(whole), "seconds", "configurations", "findings", "counterexample")
			if code != tc.code {
				t.Errorf("merge: exit %d, want %d", code, tc.code)
			}
			if m, w := timeless(t, merged), timeless(t, []byte(whole)); !reflect.DeepEqual(m, w) || len(m) != 6 {
				t.Errorf("configurations: merged\n%v\nunsharded\n%v", m, w)
			}
			var m, w struct {
				Counterexample string `json:"counterexample"`
				Findings       []map[string]any
				Shards         []struct{ From, To int }
			}
			_ = json.Unmarshal(merged, &m)
			_ = json.Unmarshal([]byte(whole), &w)
			if len(m.Shards) != 3 || m.Shards[1].From != 2 || m.Shards[2].To != 6 {
				t.Errorf("shards %+v", m.Shards)
			}
			if tc.code == 0 {
				if len(m.Findings) != 0 || len(w.Findings) != 0 || m.Counterexample != "" {
					t.Errorf("findings %v and %v, counterexample %q", m.Findings, w.Findings, m.Counterexample)
				}
				return
			}
			// Every part found one; the reported one is the unsharded
			// battery's, with part 0's counterexample, which replays.
			cx := filepath.Join(dir, "cx-0.txt")
			if len(m.Findings) != 3 || m.Counterexample != cx || m.Findings[0]["counterexample"] != cx {
				t.Fatalf("findings %v, counterexample %q", m.Findings, m.Counterexample)
			}
			delete(m.Findings[0], "counterexample")
			delete(w.Findings[0], "counterexample")
			if !reflect.DeepEqual(m.Findings[0], w.Findings[0]) {
				t.Errorf("finding %v, unsharded %v", m.Findings[0], w.Findings[0])
			}
			if code, out, _ := leaselab("replay", cx); code != 1 {
				t.Errorf("replay %s: exit %d, want 1: %s", cx, code, out)
			}
			shardedVerifyBadInput(t, files, args)
		})
	}
}

// shardedVerifyBadInput: parts of another battery or holding other
// configurations are refused, as are splits and formats that do not fit.
func shardedVerifyBadInput(t *testing.T, files, args []string) {
	part1, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		f := filepath.Join(filepath.Dir(files[1]), name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The shard's spec comes before the result's own keys.
	budget := write("budget.json", strings.Replace(string(part1), `"budget": "1m0s"`, `"budget": "2m0s"`, 1))
	ids := write("ids.json", strings.Replace(string(part1), `"id": "E3"`, `"id": "E2"`, 1))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", files[0], budget, files[2]}, `their specs differ at budget: "1m0s" vs "2m0s"`},
		{[]string{"merge", files[0], ids, files[2]}, "ids.json: part 1/3: it holds the configurations [E2 E4], not the battery's [E3 E4]"},
		{[]string{"merge", "--format", "csv", files[0], files[1], files[2]}, "a battery merges to --format table or json"},
		{[]string{"merge", files[2], files[0]}, "parts missing: 1/3"},
		{append(slices.Clone(args), "--shard", "0/7"), "7 parts of 6 configurations"},
		{[]string{"verify", "--all-ablations", "--algo", "central", "--shard", "0/2"}, "--shard does not apply"},
	} {
		if code, stdout, stderr := leaselab(tc.args...); code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("leaselab %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	code, out, _ := leaselab("verify", "--algo", "central", "--only", "E1,E2,E3,E4,E7,E14", "--shard", "1/3", "--list", "--format", "json")
	var es []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &es); code != 0 || err != nil || len(es) != 2 || es[0].ID != "E3" || es[1].ID != "E4" {
		t.Errorf("--list --shard 1/3: exit %d, %+v (%v)", code, es, err)
	}
}

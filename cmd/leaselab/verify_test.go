package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestVerifyBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--algo", "nosuch"}, `unknown algorithm "nosuch"`},
		{[]string{"verify", "--ablate", "nope"}, `has no ablation "nope"`},
		{[]string{"verify", "--only", "E999"}, `no configuration "E999"`},
		{[]string{"verify", "--budget", "-1s"}, "budget must not be negative"},
		{[]string{"verify", "--memory-cap", "0"}, "--memory-cap must be at least 1 MiB"},
		{[]string{"verify", "--format", "markdown"}, "--format markdown is for --all-ablations"},
		{[]string{"verify", "--format", "csv"}, "format must be one of table, json, markdown"},
		{[]string{"verify", "--all-ablations", "--ablate", "late-timer"}, "--ablate does not apply"},
		{[]string{"verify", "--all-ablations", "--algo", "nosuch"}, `unknown algorithm "nosuch"`},
		{[]string{"verify", "extra"}, "verify takes no arguments"},
		{[]string{"verify", "--table-from", "/nonexistent.json", "--format", "markdown"}, "no such file"},
		{[]string{"verify", "--table-from", "verify_test.go", "--format", "markdown"}, "not the JSON of a verify run"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := leaselab(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// verify finds an ablation's violation with one configuration, writes the
// counterexample, and replay exits 1 on it; the JSON has the keys the
// help promises.
func TestVerifyFindsAndReplays(t *testing.T) {
	f := t.TempDir() + "/ce.txt"
	code, stdout, stderr := leaselab("verify", "--algo", "fatlease", "--ablate", "reused-ballots", "--only", "E1", "--budget", "30s",
		"--out", f, "--format", "json", "--workers", "2", "--quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a violation); stdout %s stderr %q", code, stdout, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"meta", "algo", "ablate", "budget", "configurations", "violations", "found_by", "counterexample"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, stdout)
		}
	}
	if r["counterexample"] != f || r["found_by"] != "E1" || r["violations"].(float64) < 1 {
		t.Fatalf("%s", stdout)
	}
	cs := r["configurations"].([]any)
	c0 := cs[0].(map[string]any)
	for _, k := range []string{"id", "kind", "flags", "command", "states", "depth", "exhausted", "violations", "seconds", "stopped"} {
		if _, ok := c0[k]; !ok {
			t.Errorf("a configuration lacks %q: %v", k, c0)
		}
	}
	if code, out, _ := leaselab("replay", f); code != 1 {
		t.Fatalf("replay of the counterexample: exit %d, want 1\n%s", code, out)
	}
	// The saved JSON gives the ablation table's row.
	j := t.TempDir() + "/r.json"
	if err := os.WriteFile(j, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, md, stderr := leaselab("verify", "--table-from", j, "--format", "markdown")
	if code != 0 || !strings.Contains(md, "| fatlease | `reused-ballots` | E1 | `leaselab explore --algo fatlease --ablate reused-ballots --acceptors 1") {
		t.Fatalf("--table-from: exit %d, %s %s", code, md, stderr)
	}
}

func TestVerifyList(t *testing.T) {
	code, stdout, stderr := leaselab("verify", "--algo", "paxoslease", "--list", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var es []struct {
		ID, Kind string
		Args     []string
	}
	if err := json.Unmarshal([]byte(stdout), &es); err != nil {
		t.Fatal(err)
	}
	if len(es) < 20 || es[0].ID != "E1" {
		t.Fatalf("%d configurations, the first %+v", len(es), es[0])
	}
}

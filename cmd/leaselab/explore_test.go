package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExploreBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--algo", "nosuch"}, `unknown algorithm "nosuch"`},
		{[]string{"explore", "--clocks", "sundial"}, `unknown clock mode "sundial" (valid: exact, drift, skew, extremes)`},
		{[]string{"explore", "--crashes", "-1"}, "budgets must not be negative"},
		{[]string{"explore", "--workers", "0"}, "--workers must be at least 1"},
		{[]string{"explore", "--max-depth", "-2"}, "max depth must not be negative"},
		{[]string{"explore", "--input-kinds", "steal"}, `unknown input kind "steal"`},
		{[]string{"explore", "--acceptors", "0"}, "need at least 1 acceptor"},
		{[]string{"explore", "--resources", "0"}, "resources must be in [1, 16]"},
		{[]string{"explore", "--ablate", "nope"}, `has no ablation "nope"`},
		{[]string{"explore", "--lease-span", "9s", "--max-lease", "7s"}, "max lease"},
		{[]string{"explore", "--format", "csv"}, "format must be one of table, json"},
		{[]string{"explore", "extra"}, "explore takes no arguments"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := leaselab(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// explore finds a rule's violation, writes it as a scenario, and replay
// shows the same violation; with every rule on a small space is exhausted.
func TestExploreFindsAndReplays(t *testing.T) {
	f := t.TempDir() + "/ce.txt"
	code, stdout, stderr := leaselab("explore", "--algo", "naive", "--ablate", "restart-wait", "--out", f, "--format", "json", "--workers", "2")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a violation); stderr %q", code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"algo", "states", "transitions", "max_depth", "exhausted", "states_per_sec", "wall_ms", "violations", "counterexample"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, stdout)
		}
	}
	if r["counterexample"] != f || r["violations"].(float64) < 1 {
		t.Fatalf("%s", stdout)
	}
	_, out, _ := leaselab("replay", "--format", "json", f)
	var rr struct {
		Violations []json.RawMessage `json:"violations"`
		Failed     []string          `json:"failed_expectations"`
	}
	if err := json.Unmarshal([]byte(out), &rr); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rr.Violations) == 0 || len(rr.Failed) != 0 {
		t.Fatalf("replay of the counterexample: %s", out)
	}
	code, stdout, stderr = leaselab("explore", "--algo", "paxoslease", "--inputs", "1", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"exhausted": true`) || !strings.Contains(stdout, `"violations": 0`) {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	// The same keys with and without a violation (null where none), the
	// provenance, and what bounded the search.
	var clean map[string]any
	if err := json.Unmarshal([]byte(stdout), &clean); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"meta", "params", "bounds", "first_violation", "ablate"} {
		if _, ok := clean[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, stdout)
		}
	}
	if len(clean) != len(r) {
		t.Errorf("%d keys without a violation, %d with one", len(clean), len(r))
	}
	b, _ := clean["bounds"].(map[string]any)
	if b["inputs"] != 1.0 || b["crashes"] != 1.0 || b["max_states"] != 2e7 || clean["meta"] == nil {
		t.Errorf("bounds %v, meta %v", b, clean["meta"])
	}
}

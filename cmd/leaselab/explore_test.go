package main

import (
	"encoding/json"
	"os"
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
		{[]string{"explore", "--strategy", "bogo"}, `unknown strategy "bogo" (valid: bfs, dfs, random)`},
		{[]string{"explore", "--max-memory", "lots"}, `--max-memory: bad size "lots"`},
		{[]string{"explore", "--max-memory", "0"}, "--max-memory must be above 0"},
		{[]string{"explore", "--max-pending", "-3"}, "--max-pending must not be negative"},
		{[]string{"explore", "--strategy", "dfs", "--checkpoint", "/tmp/x"}, "--checkpoint needs --strategy bfs"},
		{[]string{"explore", "--time-step", "-1s"}, "time step must not be negative"},
		{[]string{"explore", "--clock-levels", "1"}, "clock levels must be 2 to 9"},
		{[]string{"explore", "--slews", "1", "--drift", "0"}, "--slews needs a rate error"},
		{[]string{"explore", "--from", "/nonexistent/scenario.txt"}, "no such file"},
		{[]string{"explore", "--from", "testdata/none.txt", "--algo", "naive"}, "--algo and --from"},
		{[]string{"explore", "--algo", "paxoslease", "--tokens"}, "tokens: paxoslease does not claim its fencing tokens grow under restart"},
		{[]string{"explore", "--algo", "naive", "--crashes", "0", "--tokens"}, "tokens: naive does not claim its fencing tokens grow under late,delay"},
		{[]string{"explore", "--algo", "fairq", "--crashes", "0", "--tokens"}, "tokens: fairq does not claim its fencing tokens grow under lapse"},
		{[]string{"explore", "--algo", "fairq", "--crashes", "0", "--drops", "1", "--sync", "--tokens"}, "tokens: fairq does not claim its fencing tokens grow under lapse"},
		{[]string{"explore", "--sync", "--liveness"}, "--sync cannot judge liveness"},
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
	if code, _, _ := leaselab("replay", f); code != 1 {
		t.Fatalf("replay of the counterexample exits %d, want 1", code)
	}
	code, stdout, stderr = leaselab("explore", "--algo", "paxoslease", "--inputs", "1", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"exhausted": true`) || !strings.Contains(stdout, `"violations": 0`) ||
		!strings.Contains(stdout, `"stopped": "exhausted"`) || !strings.Contains(stdout, `"max_pending": 4`) || !strings.Contains(stdout, `"instants": "deadlines"`) {
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
	if b["inputs"] != 1.0 || b["crashes"] != 1.0 || b["max_states"] != 0.0 || b["max_pending"] != 4.0 || clean["meta"] == nil {
		t.Errorf("bounds %v, meta %v", b, clean["meta"])
	}
}

// explore --help lists the strategies, --from and the fault budgets; a
// cap stops the search cleanly with its partial result and says so, in
// JSON with its provenance and bounds.
func TestExploreHelpAndStops(t *testing.T) {
	_, o, e := leaselab("explore", "--help")
	help := o + e
	for _, flag := range []string{"--strategy", "--from", "--max-memory", "--checkpoint", "--time-step", "--slews", "--clock-levels", "--walks", "--pauses", "--crashes"} {
		if !strings.Contains(help, flag) {
			t.Errorf("explore --help does not list %s", flag)
		}
	}
	code, stdout, stderr := leaselab("explore", "--algo", "paxoslease", "--max-states", "500", "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"stopped": "max-states"`) || !strings.Contains(stderr, "stopped (max-states)") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, key := range []string{`"meta": {`, `"bounds": {`, `"pauses": 0`, `"time_model": {`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("explore JSON has no %s:\n%s", key, stdout)
		}
	}
}

// explore --from starts at the end of a scenario file: the file's setup
// lines choose the algorithm and its commands open the counterexample,
// which replays to its violation (exit 1).
func TestExploreFrom(t *testing.T) {
	dir := t.TempDir()
	from, ce := dir+"/prefix.txt", dir+"/ce.txt"
	prefix := "algo naive\nablate restart-wait\ncluster acceptors=3 proposers=2\nparams response-timeout=10s max-rounds=1 backoff=0s\ndisk fsync-latency=0s\nacquire n0 r0\ndeliver 1\n"
	if err := os.WriteFile(from, []byte(prefix), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := leaselab("explore", "--from", from, "--inputs", "1", "--crashes", "1", "--out", ce, "--format", "json")
	if code != 1 || !strings.Contains(stdout, `"stopped": "violation"`) {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(ce)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "start\n# the prefix (--from "+from+")\nacquire n0 r0\ndeliver 1\n") {
		t.Fatalf("the counterexample does not open with the prefix:\n%s", b)
	}
	if code, _, _ := leaselab("replay", ce); code != 1 {
		t.Fatalf("replay of the counterexample exits %d, want 1", code)
	}
}

// Drifting clocks that start d_max apart leave FaTLease's premise within
// seconds; the explorer does not let time pass to where two clocks are
// further apart than d_max plus the holder's margin. Without that limit
// this search finds two holders at depth 10 (clocks 530 ms apart at
// 15.2 s); with it, none, while the drift-margin ablation, which breaks
// inside the premise, is still found.
func TestExploreKeepsSkewPremise(t *testing.T) {
	args := []string{"explore", "--algo", "fatlease", "--acceptors", "1", "--proposers", "2", "--inputs", "3",
		"--clocks", "extremes", "--max-pending", "4", "--max-depth", "10", "--format", "json"}
	var res struct {
		Violations int `json:"violations"`
		Bounds     struct {
			SkewLimitNS int64 `json:"skew_limit_ns"`
		} `json:"bounds"`
	}
	code, stdout, stderr := leaselab(args...)
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if res.Violations != 0 || res.Bounds.SkewLimitNS != 512012013 {
		t.Errorf("violations %d, skew limit %d ns; want 0 and d_max + 2ρ(v+2d_max)/(1-ρ) = 512012013", res.Violations, res.Bounds.SkewLimitNS)
	}
	if code, _, _ := leaselab(append(args, "--ablate", "drift-margin")...); code != 1 {
		t.Errorf("drift-margin ablated: exit %d, want 1 (a violation inside the premise)", code)
	}
}

// explore --tokens judges fencing tokens where the algorithm claims they
// grow: PaxosLease without crashes passes with the row that says so (a
// planted bug's counterexample is runner/explore's and verify's tests).
func TestExploreTokens(t *testing.T) {
	code, stdout, stderr := leaselab("explore", "--algo", "paxoslease", "--acceptors", "1", "--proposers", "2", "--crashes", "0",
		"--inputs", "3", "--max-pending", "0", "--tokens", "--workers", "2")
	if code != 0 || !strings.Contains(stdout, "fencing tokens (judged)") || !strings.Contains(stdout, "0 token failures") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, _ = leaselab("explore", "--algo", "classicpaxos", "--acceptors", "1", "--proposers", "2", "--inputs", "2",
		"--max-pending", "0", "--tokens", "--workers", "2", "--format", "json")
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if r["tokens"] != true || r["token_failures"] != 0.0 || r["first_token_failure"] != nil {
		t.Fatalf("tokens %v, token_failures %v, first %v", r["tokens"], r["token_failures"], r["first_token_failure"])
	}
	// fairq names lapse: judged only in lockstep.
	code, stdout, stderr = leaselab("explore", "--algo", "fairq", "--acceptors", "1", "--proposers", "2", "--crashes", "0",
		"--inputs", "4", "--max-pending", "0", "--sync", "--tokens", "--workers", "2")
	if code != 0 || !strings.Contains(stdout, "fencing tokens (judged)") || !strings.Contains(stdout, "0 token failures") {
		t.Fatalf("fairq --sync: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"leaselab/runner/verify"
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

// A battery with a configuration the algorithm rejected is no pass: it
// exits 1 and says which, though it found no violation (a mutant whose
// validation rejected FaTLease's standard parameters passed a battery
// that had run nothing).
func TestVerifyRejectedConfigurationFails(t *testing.T) {
	ok := verify.Result{Algo: "fatlease", Configurations: []verify.ConfigResult{
		{ID: "E1", Kind: verify.KindExplore, Stopped: verify.StopExhausted, Leases: 12, Holders: 2},
		{ID: "E2", Kind: verify.KindExplore, Stopped: verify.StopTime, Leases: 3, Holders: 3},
	}}
	bad := ok
	bad.Configurations = append(slices.Clone(ok.Configurations), verify.ConfigResult{ID: "E3", Stopped: verify.StopInvalid, Note: "fatlease: lease span v must exceed d_max"})
	for _, tc := range []struct {
		res  verify.Result
		code int
	}{{ok, 0}, {bad, 1}} {
		var stdout, stderr strings.Builder
		err := writeVerify(&ctx{stdout: &stdout, stderr: &stderr}, "json", tc.res)
		code := 0
		if e, isExit := err.(exitStatus); isExit {
			code = int(e)
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code {
			t.Errorf("%d configurations: exit %d, want %d (stderr %q)", len(tc.res.Configurations), code, tc.code, stderr.String())
		}
		if tc.code == 1 && !strings.Contains(stderr.String(), "1 of 3 configurations not run: fatlease rejects them (E3: fatlease: lease span") {
			t.Errorf("stderr %q", stderr.String())
		}
	}
}

// A battery whose token campaign or token search found a fencing token
// that did not grow exits 1 and names the command that re-runs it,
// though it found no violation.
func TestVerifyTokenFailureFails(t *testing.T) {
	for _, tc := range []struct {
		by, run, kind, want string
	}{
		{"C8", "leaselab run --algo paxoslease --seed 3", verify.KindCheck,
			"C8's fenced store rejected 7 writes of a current lease, accepted stale ones or took another node's token again, under faults paxoslease says its fencing tokens survive; re-run its first such seed with leaselab run --algo paxoslease --seed 3"},
		{"E29", "leaselab explore --algo paxoslease --tokens=true", verify.KindExplore,
			"E29 found 7 states where a lease's fencing token was not above an earlier holder's, in a search paxoslease says its tokens survive; --out writes the path to the first, or re-run the search with leaselab explore --algo paxoslease --tokens=true --out FILE"},
	} {
		r := verify.Result{Algo: "paxoslease", TokenFailures: 7, TokensBy: tc.by, TokensRun: tc.run,
			Configurations: []verify.ConfigResult{
				{ID: "E1", Kind: verify.KindExplore, Stopped: verify.StopExhausted, Leases: 12, Holders: 2},
				{ID: tc.by, Kind: tc.kind, Stopped: verify.StopTokens, Seeds: 4, Leases: 90, Holders: 2, TokenFailures: 7},
			}}
		var stdout, stderr strings.Builder
		err := writeVerify(&ctx{stdout: &stdout, stderr: &stderr}, "json", r)
		if e, isExit := err.(exitStatus); !isExit || e != 1 {
			t.Fatalf("%s: writeVerify returned %v, want exit 1", tc.by, err)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: stderr %q", tc.by, stderr.String())
		}
	}
}

// A battery in which a configuration ran and never saw leases of two
// nodes exits 1: its "no violation" judged nothing. A search counts the
// nodes it saw holding; a campaign, the leases it acquired; a search
// with --liveness, also the states at rest it judged.
func TestVerifyVacuousConfigurationFails(t *testing.T) {
	e1 := verify.ConfigResult{ID: "E1", Kind: verify.KindExplore, Stopped: verify.StopExhausted, Leases: 12, Holders: 2}
	c1 := verify.ConfigResult{ID: "C1", Kind: verify.KindCheck, Stopped: verify.StopSeeds, Leases: 40}
	for _, tc := range []struct {
		e2   verify.ConfigResult
		want string
	}{
		{verify.ConfigResult{ID: "E2", Kind: verify.KindExplore, Stopped: verify.StopTime}, "(E2: 0 states with a lease held, by 0 nodes, stopped: time)"},
		{verify.ConfigResult{ID: "E2", Kind: verify.KindExplore, Stopped: verify.StopTime, Leases: 900, Holders: 1}, "(E2: 900 states with a lease held, by 1 nodes, stopped: time)"},
		{verify.ConfigResult{ID: "C2", Kind: verify.KindCheck, Stopped: verify.StopSeeds}, "(C2: 0 leases acquired, stopped: seeds)"},
		// A liveness search that never came to rest judged no liveness.
		{verify.ConfigResult{ID: "E2", Kind: verify.KindExplore, Stopped: verify.StopExhausted, Leases: 10, Holders: 2, Liveness: true}, "(E2: 10 states with a lease held, by 2 nodes, 0 at rest, 0 probed, stopped: exhausted)"},
		// A token campaign whose every seed had a fault the algorithm
		// names judged no token.
		{verify.ConfigResult{ID: "C2", Kind: verify.KindCheck, Stopped: verify.StopSeeds, Seeds: 8, Leases: 300, Tokens: true}, "(C2: 300 leases acquired, the tokens of 0 of 8 seeds judged, stopped: seeds)"},
	} {
		r := verify.Result{Algo: "classicpaxos", Configurations: []verify.ConfigResult{e1, tc.e2, c1}}
		var stdout, stderr strings.Builder
		err := writeVerify(&ctx{stdout: &stdout, stderr: &stderr}, "json", r)
		if e, isExit := err.(exitStatus); !isExit || e != 1 {
			t.Fatalf("%s: writeVerify returned %v, want exit 1", tc.e2.ID, err)
		}
		if !strings.Contains(stderr.String(), "1 of 3 configurations never saw leases of two nodes, (--liveness) a state at rest or probed, or (--store fenced) a seed whose tokens it could judge "+tc.want) {
			t.Errorf("stderr %q", stderr.String())
		}
	}
}

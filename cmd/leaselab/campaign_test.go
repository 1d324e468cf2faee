package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/runner/campaign"
	"leaselab/runner/experiments"
)

// checkJSON runs `leaselab check ARGS --format json` in-process.
func checkJSON(t *testing.T, args []string) (code int, violations int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append(append([]string{"check"}, args...), "--format", "json", "--quiet"), &out, &errb)
	if code != 0 && code != 1 {
		t.Fatalf("leaselab check %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	var res struct {
		Violations int `json:"violations"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("leaselab check %s: %v", strings.Join(args, " "), err)
	}
	return code, res.Violations
}

// With every rule on, no algorithm breaks the lease invariant in the
// campaigns the issues name (the same commands a user types).
func TestCampaignsFindNoViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("fault campaigns")
	}
	for _, tc := range []struct {
		algo  string
		seeds string
	}{
		{"naive", "200"}, {"naive-undo", "200"}, {"paxoslease", "500"}, {"fatlease", "500"}, {"classicpaxos", "300"}, {"fairq", "500"},
	} {
		args := []string{"--algo", tc.algo, "--seeds", tc.seeds, "--faults", "all"}
		if code, v := checkJSON(t, args); code != 0 || v != 0 {
			t.Errorf("check %s: exit %d, %d violations", strings.Join(args, " "), code, v)
		}
	}
	// fairq under swarm mixes too (each seed its own fault kinds, cluster
	// shape and slow network): every ablation of its safety rules is found
	// this way (experiments.Exposes), and with the rules on nothing is.
	if code, v := checkJSON(t, []string{"--algo", "fairq", "--seeds", "300", "--faults", "swarm"}); code != 0 || v != 0 {
		t.Errorf("check --algo fairq --faults swarm: exit %d, %d violations", code, v)
	}
	// PaxosLease needs no clock synchrony; with clocks 3 s apart and an
	// assumed bound of 1 s, FaTLease breaks.
	drift := []string{"--seeds", "200", "--faults", "drift", "--skew", "3s", "--dmax", "1s"}
	if code, v := checkJSON(t, append([]string{"--algo", "paxoslease"}, drift...)); code != 0 || v != 0 {
		t.Errorf("paxoslease with skew beyond d_max: exit %d, %d violations", code, v)
	}
	if code, v := checkJSON(t, append([]string{"--algo", "fatlease"}, drift...)); code != 1 || v == 0 {
		t.Errorf("fatlease with skew beyond d_max: exit %d, %d violations; want violations", code, v)
	}
}

var (
	exposesCheck    = regexp.MustCompile(`leaselab check ([^:;()]*)`)
	exposesScenario = regexp.MustCompile(`([\w/]+/testdata/[\w.-]+\.txt)`)
)

// Every safety ablation's entry in experiments.Exposes names a command or scenario that
// shows the checker catching what the rule prevents; run each one, so the
// help text cannot go stale and the checker is shown to fail.
func TestEveryAblationIsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("fault campaigns")
	}
	for _, name := range algorithms.Names() {
		a, _ := algorithms.Lookup(name)
		for _, ab := range a.Ablations {
			exposes := experiments.Exposes(name, ab.Name)
			if strings.HasPrefix(exposes, "liveness") {
				continue // shown by the contention meters, not the checker
			}
			if m := exposesCheck.FindStringSubmatch(exposes); m != nil {
				args := strings.Fields(m[1])
				if !strings.Contains(m[1], "--seeds") {
					args = append(args, "--seeds", "200")
				}
				// One counterexample is enough to show the rule's purpose.
				args = append(args, "--stop-at-first")
				code, v := checkJSON(t, args)
				if code != 1 || v == 0 {
					t.Errorf("%s/%s: `leaselab check %s` found %d violations (exit %d); want some", name, ab.Name, strings.Join(args, " "), v, code)
				}
				continue
			}
			m := exposesScenario.FindStringSubmatch(exposes)
			if m == nil {
				t.Errorf("%s/%s: experiments.Exposes names neither a check command nor a scenario: %q", name, ab.Name, exposes)
				continue
			}
			var out, errb bytes.Buffer
			code := run([]string{"replay", filepath.Join("..", "..", m[1])}, &out, io.Discard)
			if code != 0 || !strings.Contains(out.String(), "violation(s)") || strings.Contains(out.String(), "verdict: 0 violation") {
				t.Errorf("%s/%s: replay %s: exit %d, output:\n%s%s", name, ab.Name, m[1], code, out.String(), errb.String())
			}
		}
	}
}

// check --out shrinks a violation to a scenario file that `replay` exits 1
// on; the JSON says how far it shrank; without a violation no file is
// written; --help names the swarm mix.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ce.txt")
	args := []string{"check", "--algo", "paxoslease", "--ablate", "restart-wait", "--faults", "crash", "--crash-rate", "10", "--downtime", "100ms",
		"--duration", "30s", "--seeds", "4", "--out", out, "--format", "json", "--quiet"}
	code, stdout, stderr := leaselab(args...)
	var cr campaign.CheckResult
	if code != 1 || json.Unmarshal([]byte(stdout), &cr) != nil || cr.Counterexample == nil {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
	}
	if cx := cr.Counterexample; cx.File != out || cx.Commands == 0 || cx.Commands >= cx.Recorded {
		t.Errorf("counterexample %+v", cx)
	}
	if code, stdout, stderr := leaselab("replay", out); code != 1 || !strings.Contains(stdout, "violation") {
		t.Errorf("replay %s: exit %d\n%s\n%s", out, code, stdout, stderr)
	}
	clean := filepath.Join(dir, "none.txt")
	if code, _, stderr := leaselab("check", "--algo", "paxoslease", "--faults", "crash", "--duration", "30s", "--seeds", "2", "--out", clean, "--quiet"); code != 0 || !strings.Contains(stderr, "not written") {
		t.Errorf("clean campaign with --out: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(clean); err == nil {
		t.Errorf("%s written without a violation", clean)
	}
	if code, stdout, _ := leaselab("check", "--help"); code != 0 || !strings.Contains(stdout, "--faults swarm") || !strings.Contains(stdout, "swarm testing") {
		t.Errorf("check --help does not name the swarm mix (exit %d)", code)
	}
	for _, bad := range []string{"loss,swarm", "swarm,pause", "swarm,nosuch"} {
		if code, _, stderr := leaselab("check", "--algo", "naive", "--faults", bad); code != 2 || !strings.Contains(stderr, "swarm") {
			t.Errorf("--faults %s: exit %d: %s", bad, code, stderr)
		}
	}
}

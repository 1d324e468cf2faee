package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "--only", "fig5,fig11"}, `unknown experiment "fig11" (valid: fig5, fig6, fig7, fig8, fig9, fig10, deadlock, contention, timeline, ablations, frontier)`},
		{[]string{"reproduce", "--seeds", "-1"}, "--seeds must not be negative"},
		{[]string{"reproduce", "--env", "moon"}, `unknown environment "moon"`},
		{[]string{"reproduce", "--only", "fig8", "--env", "udp"}, "none of the selected experiments can run in environment"},
		{[]string{"reproduce", "extra"}, "unexpected argument \"extra\""},
		{[]string{"run", "--algo", "naive", "--timeline", "x.gif"}, "must end in .png, .svg or .html"},
		{[]string{"run", "--algo", "naive", "--timeline", "/no/such/dir/x.png"}, "no such directory"},
	} {
		code, stdout, stderr := leaselab(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

// The timeline experiment is one short simulated run per algorithm: enough
// to see the command write every kind of file and the report.
func TestReproduceTimeline(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := leaselab("reproduce", "--quick", "--only", "timeline", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet, yet stderr %q", stderr)
	}
	for _, f := range []string{"timeline.png", "timeline.svg", "timeline.csv", "timeline_summary.csv", "timeline_holds.csv", "timeline.json", "report.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(report), "![timeline](timeline.png)") {
		t.Errorf("report does not embed the chart")
	}
	if !strings.Contains(stdout, "report: "+filepath.Join(dir, "report.md")) {
		t.Errorf("stdout does not name the report: %q", stdout)
	}
}

// The frontier (quick: a few seconds of simulated runs) writes its chart,
// data and a counterexample per point, and a counterexample's command
// shows what it claims.
func TestReproduceFrontier(t *testing.T) {
	if testing.Short() {
		t.Skip("the frontier's quick search in -short mode")
	}
	dir := t.TempDir()
	code, _, stderr := leaselab("reproduce", "--quick", "--only", "frontier", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"frontier.png", "frontier.svg", "frontier.csv", "frontier.json", "report.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "frontier", "paxoslease_pause_stale-plain.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "leaselab run ") {
			args = strings.Fields(strings.TrimSuffix(line, ` "$@"`))[1:]
		}
	}
	code, stdout, stderr := leaselab(args...)
	if code != 0 || !strings.Contains(stdout, `"stale_writes": `) || strings.Contains(stdout, `"stale_writes": 0,`) {
		t.Fatalf("counterexample %v: exit %d, %s\n%.400s", args, code, stderr, stdout)
	}
}

func TestRunTimeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.svg")
	code, _, stderr := leaselab("run", "--algo", "paxoslease", "--proposers", "4", "--duration", "10s", "--crash-rate", "2", "--timeline", path, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("timeline %s: %v", path, err)
	}
}

// The help says where each experiment runs by default, from the
// definitions themselves.
func TestReproduceDefaultEnvs(t *testing.T) {
	if got, want := defaultEnvsText(), "udp for fig5, fig6, fig9, contention; sim for fig7, fig8, fig10, deadlock, timeline, ablations, frontier"; got != want {
		t.Errorf("defaultEnvsText() = %q, want %q", got, want)
	}
	code, stdout, stderr := leaselab("reproduce", "--help")
	if code != 0 || !strings.Contains(stdout+stderr, "Default environments: udp for fig5, fig6, fig9, contention;") {
		t.Errorf("--help: exit %d, output lacks the default environments:\n%s%s", code, stdout, stderr)
	}
}

package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/sim"
)

// leaselab runs the command in-process.
func leaselab(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// Bad input: a clear one-line message on stderr, nothing on stdout, exit 2.
func TestBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "file")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, `unknown command "nosuch" (valid: algos, `},
		{[]string{"help", "nosuch"}, `unknown command "nosuch"`},
		{[]string{"run", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", "--algo", "nosuch"}, `unknown algorithm "nosuch" (valid: naive, `},
		{[]string{"run", "--algo", "naive", "--lease-span", "20s", "--max-lease", "10s"}, "lease span 20s must be shorter than max lease 10s"},
		{[]string{"run", "--algo", "naive", "--lease-span", "7s", "--max-lease", "7s"}, "must be shorter than max lease"},
		{[]string{"run", "--algo", "naive", "--workload", "nope"}, `unknown workload "nope"`},
		{[]string{"run", "--algo", "naive", "--ablate", "nope"}, `has no ablation "nope" (valid: restart-wait`},
		{[]string{"run", "--algo", "naive", "--ablate", "restart-wait,nope"}, `has no ablation "nope"`},
		{[]string{"run", "--algo", "naive", "--loss", "1.5"}, "loss must be a probability in [0, 1], got 1.5"},
		{[]string{"run", "--algo", "naive", "--loss", "1"}, "loss 1 drops every message"},
		{[]string{"run", "--algo", "naive", "--dup", "-0.1"}, "dup must be a probability"},
		{[]string{"run", "--algo", "naive", "--reorder", "2"}, "reorder must be a probability"},
		{[]string{"run", "--algo", "naive", "--loss", "x"}, `invalid argument "x" for "--loss"`},
		{[]string{"run", "--algo", "naive", "--acceptors", "0"}, "need at least 1 acceptor, got 0"},
		{[]string{"run", "--algo", "naive", "--proposers", "0"}, "need at least 1 proposer"},
		{[]string{"run", "--algo", "naive", "--drift-bound", "0.7"}, "drift bound must be in [0, 0.5)"},
		{[]string{"run", "--algo", "naive", "--env", "moon"}, `unknown environment "moon"`},
		{[]string{"run", "--algo", "naive", "--crash-rate", "inf"}, "rates must be finite"},
		{[]string{"run", "--algo", "naive", "--partitions", "-1"}, "partition rate must not be negative"},
		{[]string{"run", "--algo", "naive", "--drift-bound", "nan"}, "drift bound must be in [0, 0.5), got NaN"},
		{[]string{"run", "--algo", "naive", "--drift", "0.5"}, "clock drift must be in [0, 0.5)"},
		{[]string{"run", "--algo", "naive", "--skew", "-1s"}, "skew must not be negative"},
		{[]string{"run", "--algo", "naive", "--workload", "batch", "--leases", "0"}, "batch needs --leases >= 1"},
		{[]string{"run", "--algo", "naive", "--duration", "0s"}, "duration must be positive"},
		{[]string{"run", "--algo", "naive", "--lease-span", "5"}, `invalid argument "5" for "--lease-span"`},
		{[]string{"run", "--format", "xml"}, "format must be one of table, json, csv"},
		{[]string{"run", "--rtt", "1s", "--response-timeout", "1s"}, "response timeout 1s is not longer than a round trip plus jitter"},
		{[]string{"run", "--rtt", "1ms", "--jitter", "10ms"}, "jitter 10ms is more than half the round trip 1ms"},
		{[]string{"check", "--rtt", "1ms", "--jitter", "10ms"}, "jitter 10ms is more than half the round trip 1ms"},
		{[]string{"cluster", "--nodes", "2"}, "after node 0 is killed 1 of 2 acceptors are left"},
		{[]string{"bench", "--env", "sim"}, "bench --env sim needs --rtt"},
		{[]string{"bench", "--env", "sim", "--rtt", "1ms", "--count", "0"}, "--count must be at least 1"},
		{[]string{"run", "--algo", "naive", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "--algo", "naive", "--holds", missing}, "--holds:"},
		{[]string{"check", "--algo", "naive", "--faults", "nope"}, `unknown fault kind "nope" (valid: all, swarm, loss,`},
		{[]string{"check", "--algo", "naive", "--seeds", "0"}, "--seeds must be at least 1"},
		{[]string{"check", "--algo", "naive", "--seed", "3"}, "use --first-seed, not --seed"},
		{[]string{"check", "--algo", "naive", "--env", "udp"}, "simulator only"},
		{[]string{"run", "--algo", "naive", "--env", "udp", "--crash-rate", "1"}, "random crashes (crash rate) are simulator-only"},
		{[]string{"check", "--algo", "nosuch"}, `unknown algorithm "nosuch"`},
		{[]string{"run", "--algo", "naive", "--stale", "-1"}, "stale (link stalls per minute) must not be negative"},
		{[]string{"run", "--algo", "naive", "--stale", "inf"}, "stall rates must be finite"},
		{[]string{"run", "--algo", "naive", "--stale", "1", "--stale-max", "0"}, "stale messages need a positive stale-max"},
		{[]string{"run", "--algo", "naive", "--stale-max", "nan"}, "stale-max must be a finite number of lease spans"},
		{[]string{"run", "--algo", "naive", "--giveup", "1.5"}, "giveup must be a probability in [0, 1]"},
		{[]string{"run", "--algo", "naive", "--extend", "-0.5"}, "extend must be a probability in [0, 1]"},
		{[]string{"run", "--algo", "naive", "--resources", "-2"}, "resources must not be negative"},
		{[]string{"run", "--algo", "naive", "--workload", "batch", "--resources", "3"}, "resources > 1 is for the contention workload only"},
		{[]string{"run", "--algo", "naive", "--workload", "failover", "--giveup", "0.1"}, "giveup and extend are behaviours of contention clients"},
		{[]string{"run", "--algo", "naive", "--workload", "batch", "--settle", "1m"}, "settle is for the contention workload only"},
		{[]string{"run", "--algo", "naive", "--workload", "contention", "--settle", "-1s"}, "settle must not be negative"},
		{[]string{"run", "--algo", "naive", "--env", "udp", "--settle", "1m"}, "settle is simulator only"},
		{[]string{"run", "--algo", "naive", "--env", "udp", "--stale", "1"}, "stale messages (held back for lease spans) are simulator-only"},
		{[]string{"check", "--algo", "naive", "--stale", "-1"}, "stale (link stalls per minute) must not be negative"},
		{[]string{"check", "--algo", "naive", "--acceptors", "0"}, "need at least 1 acceptor"},
		{[]string{"replay"}, "replay takes one scenario FILE, got 0 arguments"},
		{[]string{"replay", "a", "b"}, "got 2 arguments"},
		{[]string{"replay", missing}, "no such file"},
		{[]string{"replay", "--format", "csv", "x"}, "format must be one of table, json"},
		{[]string{"algos", "extra"}, `unexpected argument "extra"`},
		{[]string{"node", "--peers", "1=127.0.0.1:9"}, "--id is required"},
		{[]string{"cluster", "--algo", "central"}, "central needs a single acceptor, and cluster makes each of its --nodes"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := leaselab(tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "leaselab") {
				t.Errorf("want one line starting with leaselab, got %q", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
		})
	}
}

// No arguments: the usage on stderr and exit 2; help on stdout and exit 0.
func TestTopHelp(t *testing.T) {
	code, stdout, stderr := leaselab()
	if code != 2 || stdout != "" || !strings.Contains(stderr, "Commands:") {
		t.Fatalf("no args: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, h := range []string{"help", "--help", "-h"} {
		code, stdout, _ := leaselab(h)
		if code != 0 {
			t.Fatalf("%s: exit %d", h, code)
		}
		for _, name := range commandNames() {
			if !strings.Contains(stdout, "  "+name+" ") {
				t.Errorf("%s: %q not listed:\n%s", h, name, stdout)
			}
		}
	}
}

// Every subcommand answers --help (and `help NAME`) on stdout with exit 0,
// and every flag is explained.
func TestCommandHelp(t *testing.T) {
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
				code, stdout, stderr := leaselab(args...)
				if code != 0 || stderr != "" {
					t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
				}
				if !strings.HasPrefix(stdout, "Usage: leaselab "+name) {
					t.Fatalf("%v: %q", args, stdout)
				}
			}
			fs := newFlagSet(commands[name])
			commands[name].setup(fs)
			_, stdout, _ := leaselab(name, "--help")
			fs.VisitAll(func(f *pflag.Flag) {
				if strings.TrimSpace(f.Usage) == "" {
					t.Errorf("--%s has no explanation", f.Name)
				}
				if !f.Hidden && !strings.Contains(stdout, "--"+f.Name+" ") {
					t.Errorf("--%s missing from --help", f.Name)
				}
			})
		})
	}
	// The two drifts are told apart where they are explained.
	_, stdout, _ := leaselab("run", "--help")
	for _, want := range []string{"--drift-bound", "ALGORITHMS allow", "ACTUAL rate error", "--holds", "--trace", "--quiet"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}

func TestAlgos(t *testing.T) {
	code, stdout, _ := leaselab("algos")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"naive", "naive-undo", "restart-wait", "drift-margin", "count-by-message", "--format markdown"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("algos lacks %q:\n%s", want, stdout)
		}
	}
	// The default table stays narrow; the exposing faults are in markdown.
	for _, l := range strings.Split(stdout, "\n") {
		if n := len([]rune(l)); n > 110 {
			t.Errorf("algos table line of %d characters: %s", n, l)
		}
	}
	code, md, _ := leaselab("algos", "--format", "markdown")
	if code != 0 || !strings.Contains(md, "exposed by") || !strings.Contains(md, "leaselab check --algo naive") {
		t.Errorf("algos markdown: exit %d\n%s", code, md)
	}
	if i, j := strings.Index(stdout, "naive "), strings.Index(stdout, "naive-undo"); i < 0 || j < i {
		t.Errorf("naive should be listed first")
	}

	code, stdout, _ = leaselab("algos", "--format", "json")
	var infos []algoInfo
	if code != 0 || json.Unmarshal([]byte(stdout), &infos) != nil || len(infos) == 0 || infos[0].Name != "naive" || len(infos[0].Ablations) == 0 {
		t.Fatalf("algos json: exit %d, %q", code, stdout)
	}

	code, stdout, _ = leaselab("algos", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != 0 || err != nil || len(recs) < 2 || recs[0][0] != "algorithm" || recs[0][3] != "ablation" {
		t.Fatalf("algos csv: exit %d, %v, %q", code, err, stdout)
	}
}

// The result of run in every format, and the outputs it writes.
func TestRunFormats(t *testing.T) {
	base := []string{"run", "--algo", "naive", "--workload", "contention", "--proposers", "3", "--duration", "10s", "--seed", "7"}
	code, stdout, stderr := leaselab(append(base, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	for _, k := range []string{"algo", "workload", "seed", "trace_hash", "leases_acquired", "leases_failed", "leases_per_sec",
		"latency_ms", "timeouts", "blocked_fraction", "time_to_first_lease_ms", "static_deadlocks", "preemptions",
		"messages_per_lease", "violations", "params"} {
		if _, ok := m[k]; !ok {
			t.Errorf("json lacks %q", k)
		}
	}
	meta, _ := m["meta"].(map[string]any)
	for _, k := range []string{"version", "revision", "go_version", "goos", "goarch", "num_cpu", "hostname", "started_at"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("meta lacks %q: %v", k, meta)
		}
	}
	// Every parameter key is snake_case; durations name their unit.
	var keys func(prefix string, v any)
	keys = func(prefix string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, x := range obj {
			if k != strings.ToLower(k) || strings.ContainsAny(k, " -") {
				t.Errorf("params key %s%s is not snake_case", prefix, k)
			}
			keys(prefix+k+".", x)
		}
	}
	keys("params.", m["params"])
	if ab, ok := m["params"].(map[string]any)["ablate"].([]any); !ok || len(ab) != 0 {
		t.Errorf("params.ablate = %v, want []", m["params"].(map[string]any)["ablate"])
	}
	if v, ok := m["failover_gap_ms"]; !ok || v != nil {
		t.Errorf("failover_gap_ms = %v (present %v), want null: not the failover workload", v, ok)
	}
	lat, _ := m["latency_ms"].(map[string]any)
	for _, k := range []string{"p50", "p90", "p99", "max"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	if m["algo"] != "naive" || m["seed"] != float64(7) || m["leases_acquired"].(float64) < 1 {
		t.Errorf("json %v", m)
	}

	// Same flags, same trace; another seed, another.
	_, again, _ := leaselab(append(base, "--format", "json")...)
	if again != stdout && !sameExceptWall(t, stdout, again) {
		t.Errorf("same seed, different result")
	}
	_, other, _ := leaselab("run", "--algo", "naive", "--workload", "contention", "--proposers", "3", "--duration", "10s", "--seed", "8", "--format", "json")
	var m2 map[string]any
	if json.Unmarshal([]byte(other), &m2) != nil || m2["trace_hash"] == m["trace_hash"] {
		t.Errorf("seeds 7 and 8 share trace hash %v", m["trace_hash"])
	}

	code, stdout, _ = leaselab(append(base, "--format", "csv")...)
	if !strings.HasPrefix(stdout, "# meta version=") || !strings.Contains(stdout, " revision=") {
		t.Errorf("csv does not start with the # meta line: %q", stdout)
	}
	cr := csv.NewReader(strings.NewReader(stdout))
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	if code != 0 || err != nil || len(recs) != 2 || len(recs[0]) != len(recs[1]) {
		t.Fatalf("csv: exit %d, %v, %q", code, err, stdout)
	}
	col := map[string]string{}
	for i, h := range recs[0] {
		col[h] = recs[1][i]
	}
	if col["trace_hash"] != m["trace_hash"] || col["latency_ms.p50"] == "" || col["params.protocol.lease_span_ns"] != "5000000000" || col["params.ablate"] != "" {
		t.Errorf("csv columns %v", col)
	}

	dir := t.TempDir()
	holds, trace := filepath.Join(dir, "holds.csv"), filepath.Join(dir, "trace.jsonl")
	code, stdout, _ = leaselab(append(base, "--holds", holds, "--trace", trace)...)
	if code != 0 || !strings.Contains(stdout, "static_deadlocks") || !strings.Contains(stdout, "metric") {
		t.Fatalf("table: exit %d\n%s", code, stdout)
	}
	h, _ := os.ReadFile(holds)
	tr, _ := os.ReadFile(trace)
	metaLine, rest, _ := strings.Cut(string(h), "\n")
	if !strings.HasPrefix(metaLine, "# meta ") || !strings.HasPrefix(rest, "resource,owner,ballot,start_ns,end_ns\n") || strings.Count(rest, "\n") < 2 {
		t.Errorf("holds file %q", h)
	}
	var first map[string]any
	if line, _, _ := strings.Cut(string(tr), "\n"); json.Unmarshal([]byte(line), &first) != nil {
		t.Errorf("trace file does not start with a JSON line: %.200q", tr)
	}
}

// sameExceptWall compares two JSON results ignoring the wall-clock time.
func sameExceptWall(t *testing.T, a, b string) bool {
	var x, y map[string]any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	delete(x, "wall_ms")
	delete(y, "wall_ms")
	return reflect.DeepEqual(x, y)
}

// check: exit 0 when the invariant holds, 1 with the violations listed
// when it does not, and the printed command re-runs the violating seed.
func TestCheck(t *testing.T) {
	code, stdout, stderr := leaselab("check", "--algo", "naive", "--seeds", "5", "--faults", "all", "--format", "json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &m) != nil {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, k := range []string{"seeds", "leases_acquired", "violations", "violating_seeds"} {
		if _, ok := m[k]; !ok {
			t.Errorf("check json lacks %q", k)
		}
	}
	if m["seeds"] != float64(5) || m["violations"] != float64(0) {
		t.Errorf("check %v", m)
	}

	code, stdout, _ = leaselab("check", "--algo", "naive", "--seeds", "200", "--faults", "dup", "--ablate", "count-by-message")
	if code != 1 {
		t.Fatalf("ablated campaign: exit %d, want 1\n%s", code, stdout)
	}
	for _, want := range []string{"violating seeds", "violations of the lease invariant", "leaselab run --algo=naive --ablate=count-by-message"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, stdout)
		}
	}
	// The printed command line, on its own line, reproduces the seed's
	// violation.
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "leaselab run ") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no line starts with the re-run command:\n%s", stdout)
	}
	args := strings.Fields(strings.TrimPrefix(line, "leaselab "))
	code, out, _ := leaselab(append(args, "--format", "json")...)
	var res runner.Result
	_, js, _ := leaselab("check", "--algo", "naive", "--seeds", "200", "--faults", "dup", "--ablate", "count-by-message", "--format", "json")
	var cr campaign.CheckResult
	if err := json.Unmarshal([]byte(js), &cr); err != nil || len(cr.ViolatingSpecs) == 0 {
		t.Fatalf("no violating specs: %v", err)
	}
	if code != 1 || json.Unmarshal([]byte(out), &res) != nil || res.Violations == 0 || res.Seed != cr.ViolatingSeeds[0] {
		t.Fatalf("re-run %v: exit %d, %d violations", args, code, res.Violations)
	}
}

// A rate given to check is used as given, zero included; left at its
// default it is drawn per seed. The exercised counts show which.
func TestCheckExplicitZeros(t *testing.T) {
	exercised := func(args ...string) campaign.Exercised {
		t.Helper()
		args = append([]string{"check", "--algo", "paxoslease", "--seeds", "4", "--duration", "1m", "--format", "json"}, args...)
		code, stdout, stderr := leaselab(args...)
		var cr campaign.CheckResult
		if code != 0 || json.Unmarshal([]byte(stdout), &cr) != nil {
			t.Fatalf("%v: exit %d: %s %s", args, code, stdout, stderr)
		}
		return cr.Exercised
	}
	drawn := exercised("--faults", "all")
	if drawn.Count("crashes") == 0 || drawn.Count("stale_delivered") == 0 || drawn.Count("giveups_mid_round") == 0 ||
		drawn.Count("extensions") == 0 || drawn.Count("multi_resource_seeds") != 4 {
		t.Fatalf("faults all exercised nothing: %+v", drawn)
	}
	zero := exercised("--faults", "all", "--crash-rate", "0", "--stale", "0", "--giveup", "0", "--extend", "0", "--resources", "1", "--partitions", "0")
	for name, n := range zero.Counts {
		// The shape of the base cluster (3 acceptors, 5 proposers) is no
		// fault, nor are the drawn clocks.
		if n != 0 && name != "free_clock_seeds" && name != "proposer_only_seeds" {
			t.Fatalf("zeros given, faults drawn anyway: %s %d (%v)", name, n, zero)
		}
	}
	if zero.HolderCrashes != 0 || zero.ShortDowntimeSeeds != 0 || zero.LongStallSeeds != 0 {
		t.Fatalf("zeros given, faults drawn anyway: %v", zero)
	}
	if code, stdout, _ := leaselab("check", "--algo", "paxoslease", "--seeds", "2", "--duration", "1m", "--faults", "crash"); code != 0 || !strings.Contains(stdout, "exercised") {
		t.Fatalf("table output: exit %d\n%s", code, stdout)
	}
}

// specArgs gives back flags that rebuild exactly the same spec.
func TestSpecArgsRoundTrip(t *testing.T) {
	s := runner.DefaultSpec()
	s.Algo, s.Seed, s.Net.Dup, s.Net.Loss = "naive", 42, 0.05776316797245556, 1.0/3
	s.Ablate = []string{"restart-wait", "drift-margin"}
	s.Faults.CrashRate, s.Clocks.Skew, s.Release = 1.25, 123456789, false
	args := specArgs(s)
	got := runner.DefaultSpec()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addSpecFlags(fs, &got)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("args %v rebuilt\n%+v\nwant\n%+v", args, got, s)
	}
	if d := specArgs(runner.DefaultSpec()); len(d) != 3 {
		t.Errorf("defaults need only --algo --workload --seed, got %v", d)
	}
}

// Progress is drawn only on a terminal: never into a buffer or a file.
func TestProgressOnlyOnTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []*ctx{{stderr: &bytes.Buffer{}}, {stderr: f}} {
		if p, _ := newProgress(w, false, "x"); p != nil {
			t.Errorf("progress on a non-terminal %T", w.stderr)
		}
	}
}

// flatten names fields by their JSON keys, nested with dots, in order.
func TestFlatten(t *testing.T) {
	fs := flatten(runner.Result{Algo: "naive", PreemptionChains: map[int]int{10: 1, 2: 3}, LatencyMS: runner.Percentiles{P50: 1.5}})
	keys := map[string]any{}
	var order []string
	for _, f := range fs {
		keys[f.key] = f.value
		order = append(order, f.key)
	}
	if keys["algo"] != "naive" || keys["latency_ms.p50"] != 1.5 || keys["preemption_chains"] != "2:3 10:1" {
		t.Errorf("flatten: %v", keys)
	}
	if order[0] != "meta" || order[1] != "algo" || order[2] != "workload" {
		t.Errorf("order %v", order[:3])
	}
}

// replay: exit 0 when every expectation holds, 1 when one fails; the
// trace and the verdict are printed, or the verdict alone as JSON.
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	scenario := func(name, expect string) string {
		p := filepath.Join(dir, name)
		s := "algo naive\ncluster acceptors=3 proposers=2\nacquire n0 r0\ndeliver all\ndeliver all\n" + expect + "\n"
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := scenario("good.txt", "expect holder r0 n0")
	bad := scenario("bad.txt", "expect holder r0 n1")
	code, stdout, stderr := leaselab("replay", good)
	if code != 0 || !strings.Contains(stdout, "verdict") || !strings.Contains(stdout, "grant") {
		t.Fatalf("good: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = leaselab("replay", bad)
	if code != 1 || !strings.Contains(stdout, "FAILED") {
		t.Fatalf("bad: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = leaselab("replay", "--format", "json", bad)
	var rr sim.ReplayResult
	if code != 1 || json.Unmarshal([]byte(stdout), &rr) != nil || len(rr.Failed) != 1 {
		t.Fatalf("bad json: exit %d\n%s", code, stdout)
	}
	// A malformed scenario is bad input; a step that cannot apply (no
	// such pending message) is reported as a failed expectation.
	code, _, stderr = leaselab("replay", scenario("malformed.txt", "frobnicate"))
	if code != 2 || !strings.Contains(stderr, `line 6: unknown command "frobnicate"`) {
		t.Fatalf("malformed: exit %d, %q", code, stderr)
	}
	for _, empty := range []string{"", "# nothing but a comment\n\n"} {
		p := filepath.Join(dir, "empty.txt")
		if err := os.WriteFile(p, []byte(empty), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr = leaselab("replay", p)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "the scenario has no commands") {
			t.Fatalf("empty %q: exit %d, %q, stdout %q", empty, code, stderr, stdout)
		}
	}
	code, stdout, _ = leaselab("replay", scenario("stale.txt", "deliver grant n1->n0 r0"))
	if code != 1 || !strings.Contains(stdout, "no such pending message") {
		t.Fatalf("stale step: exit %d\n%s", code, stdout)
	}
	// A violation is a finding (exit 1) unless the scenario says it means
	// to show one with an "expect violations" line.
	twoOwners := "algo naive\ncluster acceptors=3 proposers=3\nablate restart-wait\n" +
		"acquire n0 r0\ndeliver request n0->n1 r0\ndeliver grant n1->n0 r0\ndrop request n0->n2 r0\n" +
		"crash n1\nrestart n1\nadvance 10ms\nacquire n2 r0\ndeliver request n2->n1 r0\ndeliver grant n1->n2 r0\n"
	for _, tc := range []struct {
		name, tail string
		code       int
		verdict    string
	}{
		{"unexpected.txt", "", 1, "VIOLATION ("},
		{"unexpected-later.txt", "advance 1s\n", 1, "VIOLATION ("},
		{"unexpected-other-expect.txt", "expect acquired 2\n", 1, "VIOLATION ("},
		{"expected.txt", "expect violations 1\n", 0, "verdict: 1 violation(s)"},
		{"expected-wrong.txt", "expect violations 0\n", 1, "FAILED"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(twoOwners+tc.tail), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ := leaselab("replay", p)
		if code != tc.code || !strings.Contains(stdout, tc.verdict) || !strings.Contains(stdout, "violation: r0") ||
			tc.code == 0 && (strings.Contains(stdout, "FAILED") || strings.Contains(stdout, "VIOLATION (")) {
			t.Errorf("%s: exit %d, want %d and %q\n%s", tc.name, code, tc.code, tc.verdict, stdout)
		}
		code, stdout, _ = leaselab("replay", "--format", "json", p)
		var rr sim.ReplayResult
		if code != tc.code || json.Unmarshal([]byte(stdout), &rr) != nil || len(rr.Violations) != 1 || rr.ExpectsViolations != strings.Contains(tc.tail, "violations") {
			t.Errorf("%s json: exit %d, want %d\n%s", tc.name, code, tc.code, stdout)
		}
	}
	trace := filepath.Join(dir, "trace.txt")
	if code, _, _ = leaselab("replay", "--format", "json", "--trace", trace, good); code != 0 {
		t.Fatalf("trace file: exit %d", code)
	}
	if b, _ := os.ReadFile(trace); !strings.Contains(string(b), "grant") {
		t.Errorf("trace file %q", b)
	}
}

// The default response timeout follows the network: with a 1 s round trip
// a single PaxosLease acquisition takes its two round trips, not a chain
// of timeouts.
func TestResponseTimeoutFollowsRTT(t *testing.T) {
	code, stdout, stderr := leaselab("run", "--algo", "paxoslease", "--workload", "single", "--acceptors", "3", "--rtt", "1s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Timeouts int `json:"timeouts"`
		Latency  struct {
			P50 float64 `json:"p50"`
		} `json:"latency_ms"`
		Params struct {
			Protocol struct {
				ResponseTimeoutNS int64 `json:"response_timeout_ns"`
			} `json:"protocol"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Latency.P50 < 1999 || res.Latency.P50 > 2002 || res.Timeouts != 0 {
		t.Errorf("p50 %v ms with %d timeouts, want two round trips (2000 ms) and none", res.Latency.P50, res.Timeouts)
	}
	if want := int64(2 * (time.Second + 400*time.Microsecond)); res.Params.Protocol.ResponseTimeoutNS != want {
		t.Errorf("response timeout %d ns, want %d (2 x (rtt + 2 x jitter))", res.Params.Protocol.ResponseTimeoutNS, want)
	}
}

// bench --count repeats every point, interleaved, with seed+k, and
// --format benchstat prints Go benchmark lines (benchstat itself is
// not in CI; the format is checked here line by line).
func TestBenchCountBenchstat(t *testing.T) {
	code, stdout, stderr := leaselab("bench", "--env", "sim", "--rtt", "1ms", "--jitter", "100us", "--leases", "10,20", "--count", "2", "--format", "benchstat")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var names []string
	line := regexp.MustCompile(`^(Benchmark\S+-\d+)\t1(\t[-+0-9.e]+ \S+)+$`)
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			m := line.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("not a benchmark line: %q", l)
			}
			names = append(names, m[1])
			if !strings.Contains(l, " s/lease\t") || !strings.Contains(l, " leases/s\t") {
				t.Errorf("units missing in %q", l)
			}
		} else if !regexp.MustCompile(`^[a-z_]+: \S+$`).MatchString(l) {
			t.Errorf("neither a config nor a benchmark line: %q", l)
		}
	}
	procs := fmt.Sprint(runtime.GOMAXPROCS(0))
	want := []string{"BenchmarkBatch/env=sim/algo=paxoslease/leases=10-" + procs, "BenchmarkBatch/env=sim/algo=paxoslease/leases=20-" + procs}
	want = append(want, want...) // interleaved: every size, then again
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("benchmarks %v, want %v", names, want)
	}
	code, stdout, _ = leaselab("bench", "--env", "sim", "--rtt", "1ms", "--leases", "10", "--count", "2", "--format", "json")
	var out struct {
		Count int `json:"count"`
		Runs  []struct {
			Rep  int    `json:"rep"`
			Seed uint64 `json:"seed"`
		} `json:"runs"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil || out.Count != 2 || len(out.Runs) != 2 ||
		out.Runs[1].Rep != 1 || out.Runs[1].Seed != out.Runs[0].Seed+1 {
		t.Errorf("json runs %+v (exit %d)", out, code)
	}
	if !strings.Contains(stdout, `"raw_udp_rtt_us": 0,`) || !strings.Contains(stdout, `"peer_params": null`) {
		t.Errorf("the simulator reports raw UDP limits, or a key is missing: %s", stdout)
	}
}

// --timeline FILE.html: run, check (the first violating seed) and replay
// write one self-contained page with the run's data embedded.
func TestTimelineHTML(t *testing.T) {
	dir := t.TempDir()
	page := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Contains(s, "http://") || strings.Contains(s, "https://") || !strings.Contains(s, `<script id="data" type="application/json">`) {
			t.Errorf("%s is not a self-contained timeline page", path)
		}
		return s
	}
	run := filepath.Join(dir, "run.html")
	code, _, stderr := leaselab("run", "--algo", "paxoslease", "--duration", "10s", "--crash-rate", "3", "--timeline", run)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if s := page(run); !strings.Contains(s, `"msgs":[{`) || !strings.Contains(s, `"holds":[{`) || !strings.Contains(s, `"meta":{`) {
		t.Errorf("run page lacks messages, holds or meta")
	}
	chk := filepath.Join(dir, "check.html")
	code, _, stderr = leaselab("check", "--algo", "naive", "--seeds", "200", "--faults", "dup", "--ablate", "count-by-message", "--stop-at-first", "--timeline", chk)
	if code != 1 {
		t.Fatalf("check: exit %d, want 1: %s", code, stderr)
	}
	if s := page(chk); !strings.Contains(s, `"violations":[{`) {
		t.Errorf("check page shows no violation")
	}
	rep := filepath.Join(dir, "replay.html")
	code, _, stderr = leaselab("replay", "--timeline", rep, "../../paxoslease/testdata/paxoslease-late-timer.txt")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	if s := page(rep); !strings.Contains(s, `"violations":[{`) {
		t.Errorf("replay page shows no violation")
	}
	for _, args := range [][]string{{"replay", "--timeline", filepath.Join(dir, "x.png"), "../../paxoslease/testdata/paxoslease-late-timer.txt"},
		{"check", "--timeline", filepath.Join(dir, "x.txt")}, {"run", "--timeline", filepath.Join(dir, "x.pdf")}} {
		if code, _, _ := leaselab(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestReplayMeters: replay reports the run's meters, in its table and in
// its JSON, with the keys of run; the split-accept scenario counts one
// static deadlock of 1.9 s.
func TestReplayMeters(t *testing.T) {
	file := filepath.Join("..", "..", "paxoslease", "testdata", "deadlock-split-accept.txt")
	code, stdout, stderr := leaselab("replay", "--format", "json", file)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	if m["static_deadlocks"] != 1.0 || m["static_deadlock_ms"] != 1900.0 || m["leases_acquired"] != 1.0 {
		t.Errorf("static_deadlocks %v, static_deadlock_ms %v, leases_acquired %v; want 1, 1900, 1",
			m["static_deadlocks"], m["static_deadlock_ms"], m["leases_acquired"])
	}
	if _, ok := m["static_deadlock_fraction"]; !ok {
		t.Error("no static_deadlock_fraction")
	}
	if vs, ok := m["violations"].([]any); !ok || len(vs) != 0 {
		t.Errorf("violations %v, want an empty list", m["violations"])
	}
	code, stdout, _ = leaselab("replay", file)
	if code != 0 || !strings.Contains(stdout, "static_deadlock_fraction") || !strings.Contains(stdout, "preemptions") {
		t.Fatalf("table: exit %d\n%s", code, stdout)
	}
}

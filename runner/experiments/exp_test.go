package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// The algorithm packages are not linked into this test binary; register
// stand-ins under the real names so that specs validate. Their ablation
// lists are enough for AllAblations to expand.
var registerFakes sync.Once

func fakeAlgos() {
	registerFakes.Do(func() {
		for name, abl := range map[string][]string{
			"naive":        {"restart-wait", "count-by-message"},
			"naive-undo":   {"restart-wait"},
			"paxoslease":   {"backoff", "restart-wait"},
			"fatlease":     {"dmax"},
			"classicpaxos": {"fsync"},
		} {
			if _, err := algorithms.Lookup(name); err == nil {
				continue
			}
			var as []algorithms.Ablation
			for _, a := range abl {
				as = append(as, algorithms.Ablation{Name: a, Rule: "rule " + a, Breaks: "fault " + a})
			}
			algorithms.Register(algorithms.Algorithm{Name: name, Summary: "test stand-in", Ablations: as,
				Build: func(algorithms.Config) (algorithms.Node, error) { return nil, errors.New("stand-in") }})
		}
	})
}

// fakeRun is a deterministic function of the spec, shaped loosely like
// the real meters, so that every chart kind gets data.
func fakeRun(s runner.Spec, opt runner.Options) (runner.Result, error) {
	b, _ := json.Marshal(s)
	h := fnv.New64a()
	h.Write(b)
	sum := h.Sum64()
	noise := float64(sum%1000) / 1000 // 0..1, per spec (so per seed)
	algo := map[string]float64{"naive": 1, "naive-undo": 1.2, "paxoslease": 2, "fatlease": 2.5, "classicpaxos": 0.8}[s.Algo]
	res := runner.Result{Algo: s.Algo, Workload: s.Workload, Env: s.Env, Seed: s.Seed, TraceHash: fmt.Sprintf("%016x", sum), Params: s}
	n := float64(s.Leases)
	res.LeasesPerSec = 1000 * algo / (1 + n/20000) * (1 + 0.05*noise)
	if n >= 4000 {
		res.Timeouts = int(n / 1000 * algo)
	}
	if s.Algo == "classicpaxos" && s.Disk.Background {
		res.LeasesPerSec = 0
	} else {
		res.LeasesAcquired = int(n)
	}
	res.LatencyMS = runner.Percentiles{Mean: float64(s.Net.RTT)/1e6*2 + float64(s.Acceptors)*0.01 + noise, N: 1}
	if s.Algo == "classicpaxos" {
		res.LatencyMS.Mean += 33
		res.DiskBytesPerS = 2000 * 1024 * (1 + noise)
		res.Fsyncs = 100
	}
	res.SimulatedNS = int64(10 * time.Second)
	res.BlockedFraction = 0.1 * float64(s.Proposers) / 16 * algo
	res.TimeToFirstLeaseMS = runner.OptionalMS(2 + 10*noise)
	if s.Algo == "naive" {
		res.StaticDeadlocks = s.Proposers
		res.TimeToFirstLeaseMS = -1 // never acquired: the "none" marker
	}
	if s.Algo == "paxoslease" {
		res.Preemptions = s.Proposers * 2
		if s.Ablate.Has("backoff") {
			res.Preemptions *= 5
		}
		res.PreemptionChains = map[int]int{0: 10, 1: s.Proposers, 3: 1}
	}
	if s.Ablate.Has("restart-wait") && noise > 0.5 {
		res.Violations = 1
		res.ViolationList = []runner.Violation{{Owners: [2]algorithms.NodeID{0, 1}, StartNS: int64(3 * time.Second), OverlapNS: int64(200 * time.Millisecond), Seed: s.Seed}}
	}
	sec := int64(time.Second)
	for _, r := range []runner.TraceRec{
		{T: sec, Kind: runner.TraceHoldStart, Node: 0, Owner: 0, Ballot: algorithms.Next(0, 0, 0), X: 3 * sec},
		{T: 2 * sec, Kind: runner.TraceCrash, Node: 1},
		{T: 2 * sec, Kind: runner.TraceSend, Node: 1, Msg: algorithms.Message{From: 1}},
		{T: 3 * sec, Kind: runner.TraceHoldEnd, Node: 0, Owner: 0, Ballot: algorithms.Next(0, 0, 0), X: sec},
		{T: 4 * sec, Kind: runner.TraceHoldStart, Node: 2, Owner: 2, Ballot: algorithms.Next(1<<32, 0, 2), X: 9 * sec},
		{T: 5 * sec, Kind: runner.TraceRestart, Node: 1, X: 1},
		{T: 6 * sec, Kind: runner.TracePartition, Node: algorithms.NoNode, X: 3},
		{T: 7 * sec, Kind: runner.TraceHeal, Node: algorithms.NoNode},
		{T: 9 * sec, Kind: runner.TraceHoldEnd, Node: 2, Owner: 2, Ballot: algorithms.Next(1<<32, 0, 2), X: 4 * sec},
	} {
		for _, o := range opt.Observers {
			o.Observe(&r)
		}
	}
	return res, nil
}

func TestDefinitions(t *testing.T) {
	fakeAlgos()
	want := []string{"fig5", "fig6", "fig7", "fig8", "fig9", "fig10", "deadlock", "contention", "timeline", "ablations", "frontier"}
	if got := Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("experiments %v, want %v", got, want)
	}
	for _, e := range All() {
		if err := e.Validate(); err != nil {
			t.Errorf("%v", err)
		}
		for _, quick := range []bool{true, false} {
			r, err := e.Resolve(Options{Quick: quick})
			if err != nil {
				t.Errorf("%s quick=%v: %v", e.Name, quick, err)
				continue
			}
			if len(r.Points())*r.NReps == 0 && r.Kind != Frontier {
				t.Errorf("%s: no runs", e.Name)
			}
		}
	}
	// The sweeps: batch sizes 100..40,000 in quick mode and beyond
	// in the full run; 1..30 acceptors; 2..16 proposers.
	byName := map[string]Experiment{}
	for _, e := range All() {
		byName[e.Name] = e
	}
	for _, tc := range []struct {
		exp       string
		lo, hiQ   float64
		hiFullMin float64
	}{{"fig5", 100, 40000, 40001}, {"fig8", 1, 30, 30}, {"deadlock", 2, 16, 16}} {
		s := byName[tc.exp].Sweep
		if s.Quick[0] != tc.lo || s.Quick[len(s.Quick)-1] != tc.hiQ || s.Full[len(s.Full)-1] < tc.hiFullMin {
			t.Errorf("%s sweep quick %v full %v", tc.exp, s.Quick, s.Full)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	fakeAlgos()
	base := All()[0]
	for _, tc := range []struct {
		name string
		mod  func(e *Experiment)
		want string
	}{
		{"unknown param", func(e *Experiment) { e.Sweep.Param = "nope" }, "unknown parameter"},
		{"fractional acceptors", func(e *Experiment) {
			e.Sweep = Sweep{Param: "acceptors", Full: []float64{1, 2.5}, Quick: []float64{1}}
		}, "whole number"},
		{"unknown meter", func(e *Experiment) { e.Meters = append(e.Meters, Meter{Key: "bogus", Label: "b"}) }, "unknown meter"},
		{"log of zero", func(e *Experiment) {
			e.Sweep = Sweep{Param: "rtt", Full: []float64{0, 1}, Quick: []float64{0, 1}, LogX: true}
		}, "log x axis"},
		{"decreasing sweep", func(e *Experiment) { e.Sweep.Quick = []float64{10, 5} }, "increase"},
		{"no variants", func(e *Experiment) { e.Variants = nil }, "no variants"},
		{"duplicate variant", func(e *Experiment) { e.Variants = append(e.Variants, e.Variants[0]) }, "duplicate variant"},
		{"bad claim variant", func(e *Experiment) { e.Published[0].Variant = "zzz" }, "unknown variant"},
		{"bad claim meter", func(e *Experiment) { e.Published[0].Meter = "violations" }, "not one of the experiment's meters"},
		{"bad env", func(e *Experiment) { e.Envs = []string{"mars"} }, "unknown environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			e.Variants = append([]Variant{}, base.Variants...)
			e.Meters = append([]Meter{}, base.Meters...)
			e.Published = append([]Published{}, base.Published...)
			tc.mod(&e)
			err := e.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A spec the runner rejects is caught by Resolve, before any run.
	e := base
	e.Base.Net.Loss = 1
	if _, err := e.Resolve(Options{Quick: true}); err == nil || !strings.Contains(err.Error(), "loss") {
		t.Errorf("Resolve with loss 1: %v", err)
	}
}

func TestSelect(t *testing.T) {
	if es, err := Select(nil); err != nil || len(es) != 11 {
		t.Fatalf("Select(nil) = %d, %v", len(es), err)
	}
	es, err := Select([]string{"fig9", "fig5"})
	if err != nil || len(es) != 2 || es[0].Name != "fig5" {
		t.Errorf("Select keeps the fixed order: %v %v", es, err)
	}
	_, err = Select([]string{"fig5", "fig11"})
	if err == nil || !strings.Contains(err.Error(), `"fig11"`) || !strings.Contains(err.Error(), "fig10") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestSummarise(t *testing.T) {
	for _, tc := range []struct {
		name           string
		in             []float64
		n, miss        int
		mean, half     float64
		noInterval     bool
		wantStd, wantS float64
	}{
		{name: "three", in: []float64{1, 2, 3}, n: 3, mean: 2, half: 4.303 / math.Sqrt(3), wantStd: 1, wantS: 6},
		{name: "with missing", in: []float64{math.NaN(), 10, 10}, n: 2, miss: 1, mean: 10, half: 0, wantStd: 0, wantS: 20},
		{name: "one", in: []float64{7}, n: 1, mean: 7, noInterval: true, wantStd: math.NaN(), wantS: 7},
		{name: "forty (beyond the table)", in: seq(40), n: 40, mean: 20.5, half: (1.960 + 0.082*30/39) * stdOf(seq(40)) / math.Sqrt(40), wantStd: stdOf(seq(40)), wantS: 820},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Summarise(tc.in)
			if st.N != tc.n || st.Miss != tc.miss || !close(st.Mean, tc.mean) || !close(st.Sum, tc.wantS) {
				t.Errorf("got %+v", st)
			}
			if !(math.IsNaN(tc.wantStd) && math.IsNaN(st.Std)) && !close(st.Std, tc.wantStd) {
				t.Errorf("std %g, want %g", st.Std, tc.wantStd)
			}
			if tc.noInterval {
				if !math.IsNaN(st.Lo) || !math.IsNaN(st.Hi) {
					t.Errorf("interval from one value: %g..%g", st.Lo, st.Hi)
				}
				return
			}
			if !close(st.Hi-st.Mean, tc.half) || !close(st.Mean-st.Lo, tc.half) {
				t.Errorf("interval %g..%g, want %g ± %g", st.Lo, st.Hi, tc.mean, tc.half)
			}
		})
	}
	if st := Summarise(nil); st.N != 0 || !math.IsNaN(st.Mean) {
		t.Errorf("empty: %+v", st)
	}
}

func seq(n int) []float64 {
	var v []float64
	for i := 1; i <= n; i++ {
		v = append(v, float64(i))
	}
	return v
}

func stdOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestApply(t *testing.T) {
	s := runner.DefaultSpec()
	if err := Apply(&s, Setting{"rtt", 66}, Setting{"bandwidth", 512 * 1024}, Setting{"acceptors", 5}, Setting{"background-writer", 1}); err != nil {
		t.Fatal(err)
	}
	if s.Net.RTT != 66*time.Millisecond || s.Net.Bandwidth != 512*1024 || s.Acceptors != 5 || !s.Disk.Background {
		t.Errorf("not applied: %+v", s)
	}
	for _, bad := range []Setting{{"acceptors", 2.5}, {"acceptors", 0}, {"warp", 1}, {"rtt", math.NaN()}, {"rtt", -1},
		{"algo", 1}, {"release", 2}, {"rtt_ms", 1}} {
		if err := Apply(&s, bad); err == nil {
			t.Errorf("Apply(%v): no error", bad)
		}
	}
	if v, err := Get(s, "rtt"); err != nil || v != 66 {
		t.Errorf("Get rtt = %g (ms), %v", v, err)
	}
}

func TestMeters(t *testing.T) {
	r := runner.Result{LatencyMS: runner.Percentiles{Mean: 12.5}, Fsyncs: 30, SimulatedNS: int64(3 * time.Second),
		BlockedFraction: 0.25, PreemptionChains: map[int]int{0: 5, 2: 3, 7: 1}, Violations: 2, Messages: 300}
	for _, tc := range []struct {
		key  string
		want float64
	}{
		{"latency_ms.mean", 12.5}, {"fsyncs", 30}, {"fsyncs_per_sec", 10}, {"availability", 0.75},
		{"preemption_chain_max", 7}, {"preemption_chain_mean", (0*5 + 2*3 + 7*1) / 9.0}, {"violated", 1}, {"net_bytes_per_sec", 300 * runner.WireSize / 3.0},
	} {
		v, err := Value(r, tc.key)
		if err != nil || !close(v, tc.want) {
			t.Errorf("Value(%s) = %g, %v; want %g", tc.key, v, err, tc.want)
		}
	}
	if _, err := Value(r, "nope"); err == nil {
		t.Errorf("unknown meter: no error")
	}
	keys := strings.Join(MeterKeys(), " ")
	for _, k := range []string{"leases_per_sec", "latency_ms.p99", "disk_bytes_per_sec", "violations"} {
		if !strings.Contains(keys, k) {
			t.Errorf("MeterKeys lacks %s", k)
		}
	}
	for _, k := range []string{"wall_ms", "params", "trace_hash"} {
		if strings.Contains(" "+keys+" ", " "+k+" ") {
			t.Errorf("MeterKeys has %s, which is not a reproducible number", k)
		}
	}
}

// reproduce runs every experiment in quick mode with the fake run
// function and returns the output directory.
func reproduce(t *testing.T, workers int, run RunFunc) (string, []*Report, error) {
	t.Helper()
	fakeAlgos()
	dir := t.TempDir()
	if d := os.Getenv("EXP_OUT"); d != "" && workers == 3 {
		dir = d // keep the files to look at
	}
	var mu sync.Mutex
	var calls []Progress
	reports, err := Reproduce(All(), Config{Options: Options{Quick: true}, Out: dir, Workers: workers, Run: run, Peer: fakePeer,
		Command: "leaselab reproduce --quick", Progress: func(p Progress) {
			mu.Lock()
			calls = append(calls, p)
			mu.Unlock()
		}})
	calibrated := 0
	for _, p := range calls {
		if p.Calibrated {
			calibrated++
			if p.Estimate <= 0 {
				t.Errorf("calibration progress without an estimate: %+v", p)
			}
		}
		if p.Done > p.Total {
			t.Errorf("progress %d of %d", p.Done, p.Total)
		}
	}
	if calibrated != 1 {
		t.Errorf("%d calibration reports, want 1", calibrated)
	}
	return dir, reports, err
}

func TestReproduceWritesEverything(t *testing.T) {
	dir, reports, err := reproduce(t, 3, fakeRun)
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		name := r.Exp.Name
		if r.Exp.Kind == Frontier {
			continue // TestFrontier
		}
		for _, ext := range []string{".png", ".svg", ".csv", "_summary.csv", ".json"} {
			st, err := os.Stat(filepath.Join(dir, name+ext))
			if err != nil || st.Size() < 100 {
				t.Errorf("%s%s: %v", name, ext, err)
			}
		}
		if !bytes.Contains(report, []byte("]("+name+".png)")) {
			t.Errorf("report.md does not embed %s.png", name)
		}
		// Every variant has rows in the per-run CSV.
		rows := readCSV(t, filepath.Join(dir, name+".csv"))
		seen := map[string]bool{}
		for _, row := range rows[1:] {
			seen[row[2]] = true
		}
		for _, v := range r.Exp.Variants {
			if !seen[v.Name] {
				t.Errorf("%s.csv has no row for %s", name, v.Name)
			}
		}
		if want := len(r.Exp.Points())*r.Exp.NReps + 1; len(rows) != want {
			t.Errorf("%s.csv: %d lines, want %d", name, len(rows), want)
		}
		var js map[string]any
		b, _ := os.ReadFile(filepath.Join(dir, name+".json"))
		if err := json.Unmarshal(b, &js); err != nil {
			t.Errorf("%s.json: %v", name, err)
		}
	}
	// fig9 shares fig5's runs: same specs, same results, run once.
	var fig5, fig9 *Report
	for _, r := range reports {
		switch r.Exp.Name {
		case "fig5":
			fig5 = r
		case "fig9":
			fig9 = r
		}
	}
	for i := range fig9.Runs {
		if !fig9.Runs[i].Shared || fig9.Runs[i].Result.TraceHash != fig5.Runs[i].Result.TraceHash {
			t.Fatalf("fig9 run %d not shared with fig5", i)
		}
	}
	// The comparisons found their data.
	for _, r := range reports {
		for _, c := range r.Comparisons {
			if c.OursText == "no data" {
				t.Errorf("%s: claim %q found no data", r.Exp.Name, c.Claim)
			}
		}
	}
	if !bytes.Contains(report, []byte("| the paper says")) {
		t.Errorf("report has no paper-vs-ours table")
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// Same inputs, same CSV, whatever the number of workers and the order in
// which runs finish.
func TestReproduceDeterministic(t *testing.T) {
	// Finish in a scrambled order: the first job waits until another job
	// has finished. Real-time runs go one at a time, so it may be alone:
	// then it goes on after a while. Either way the output must not change.
	other := make(chan struct{}, 1)
	slowFirst := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if s.Seed == 1 && s.Leases == 100 {
			select {
			case <-other:
			case <-time.After(100 * time.Millisecond):
			}
			return fakeRun(s, o)
		}
		defer func() {
			select {
			case other <- struct{}{}:
			default:
			}
		}()
		return fakeRun(s, o)
	}
	dirA, _, err := reproduce(t, 1, fakeRun)
	if err != nil {
		t.Fatal(err)
	}
	dirB, _, err := reproduce(t, 4, slowFirst)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dirA, "*.csv"))
	if len(files) < 9 {
		t.Fatalf("only %d CSV files", len(files))
	}
	for _, f := range append(files, filepath.Join(dirA, "fig5.png"), filepath.Join(dirA, "deadlock.svg")) {
		a, _ := os.ReadFile(f)
		b, _ := os.ReadFile(filepath.Join(dirB, filepath.Base(f)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs", filepath.Base(f))
		}
	}
}

func TestReproduceFailedRuns(t *testing.T) {
	flaky := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if s.Algo == "fatlease" && s.Seed == 2 {
			return runner.Result{}, errors.New("boom")
		}
		if s.Algo == "naive" && s.Workload == "single" && s.Acceptors == 30 {
			panic("kaboom")
		}
		return fakeRun(s, o)
	}
	dir, reports, err := reproduce(t, 2, flaky)
	if !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("error %v, want ErrRunsFailed", err)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"boom", "run panicked: kaboom", "### Failed runs"} {
		if !bytes.Contains(report, []byte(want)) {
			t.Errorf("report does not mention %q", want)
		}
	}
	for _, r := range reports {
		if _, err := os.Stat(filepath.Join(dir, r.Exp.Name+".png")); err != nil {
			t.Errorf("%s: chart missing after failed runs: %v", r.Exp.Name, err)
		}
	}
}

func TestEnvOption(t *testing.T) {
	fakeAlgos()
	es, _ := Select([]string{"fig8"})
	_, err := Reproduce(es, Config{Options: Options{Quick: true, Env: "udp"}, Out: t.TempDir(), Run: fakeRun})
	if err == nil || !strings.Contains(err.Error(), "none of the selected experiments") {
		t.Errorf("fig8 in udp: %v", err)
	}
	es, _ = Select([]string{"fig5", "fig8"})
	r, err := es[1].Resolve(Options{Quick: true, Env: "udp"})
	if err != nil || r.Env != "sim" || r.EnvNote == "" {
		t.Errorf("fig8 with --env udp: env %s note %q err %v", r.Env, r.EnvNote, err)
	}
	r, err = es[0].Resolve(Options{Quick: true, Env: "udp"})
	if err != nil || r.Env != "udp" {
		t.Errorf("fig5 with --env udp: env %s err %v", r.Env, err)
	}
	if _, err := es[0].Resolve(Options{Env: "carrier-pigeon"}); err == nil {
		t.Errorf("unknown env: no error")
	}
}

// The timeline of a run is what its trace records showed: holds as they
// ended, crashes and restarts, down times and partitions (those still on
// end with the run).
func TestTimelineOfTrace(t *testing.T) {
	var tt TimelineTrace
	for _, r := range []runner.TraceRec{
		{T: 1, Kind: runner.TraceHoldStart, Owner: 2, Res: 7, Ballot: 5, X: 900},
		{T: 5, Kind: runner.TraceCrash, Node: 1},
		{T: 6, Kind: runner.TraceDeliver, Node: 1},
		{T: 9, Kind: runner.TraceRestart, Node: 1, X: 1},
		{T: 9, Kind: runner.TraceHoldEnd, Owner: 2, Res: 7, Ballot: 5, X: 1},
		{T: 10, Kind: runner.TraceCrash, Node: 2},
		{T: 11, Kind: runner.TracePartition, Node: algorithms.NoNode, X: 1},
		{T: 12, Kind: runner.TraceHeal, Node: algorithms.NoNode},
		{T: 13, Kind: runner.TracePartition, Node: algorithms.NoNode, X: 2},
		{T: 14, Kind: runner.TraceHoldStart, Owner: 0, Res: 7, Ballot: 6, X: 30},
	} {
		tt.Observe(&r)
	}
	res := runner.Result{Algo: "a", SimulatedNS: 20, Params: runner.Spec{Acceptors: 3, Proposers: 3}}
	tl := TimelineOf(res, &tt, "a")
	if len(tl.Holds) != 1 || tl.Holds[0] != (Hold{Resource: 7, Owner: 2, Ballot: "5", StartNS: 1, EndNS: 9}) {
		t.Errorf("holds %+v", tl.Holds)
	}
	if len(tl.Crashes) != 2 || len(tl.Restarts) != 1 || tl.Restarts[0] != (NodeMark{1, 9}) {
		t.Errorf("crashes %v restarts %v", tl.Crashes, tl.Restarts)
	}
	if len(tl.Down) != 2 || tl.Down[0] != (NodeSpan{1, 5, 9}) || tl.Down[1] != (NodeSpan{2, 10, 20}) {
		t.Errorf("down %v", tl.Down)
	}
	if len(tl.Partitions) != 2 || tl.Partitions[0] != [2]int64{11, 12} || tl.Partitions[1] != [2]int64{13, 20} {
		t.Errorf("partitions %v", tl.Partitions)
	}
	if empty := TimelineOf(res, nil, "a"); empty.Holds == nil || empty.Down == nil || len(empty.Holds) != 0 {
		t.Errorf("without a trace: %+v", empty)
	}
}

func TestCompare(t *testing.T) {
	mk := func(variant string, xs, ys []float64) []Agg {
		var out []Agg
		for i := range xs {
			out = append(out, Agg{Variant: variant, XI: i, X: xs[i], Meter: "m", Stat: Stat{N: 1, Mean: ys[i], Sum: ys[i] * 2, Lo: math.NaN(), Hi: math.NaN()}})
		}
		return out
	}
	xs := []float64{100, 500, 1000, 4000}
	r := &Report{Exp: Resolved{Experiment: Experiment{Sweep: Sweep{Param: "leases"}, Meters: []Meter{{Key: "m", Label: "m", Unit: "u"}},
		Facets: []Facet{{}}}, Values: xs}}
	r.Summary = append(mk("a", xs, []float64{0, 0, 3, 9}), mk("b", xs, []float64{1, 1, 1, 1})...)
	// c has intervals: 10 ± 1, 9 ± 2 (overlapping), 5 ± 1.
	for i, st := range []Stat{{N: 3, Mean: 10, Lo: 9, Hi: 11}, {N: 3, Mean: 9, Lo: 7, Hi: 11}, {N: 3, Mean: 5, Lo: 4, Hi: 6}} {
		r.Summary = append(r.Summary, Agg{Variant: "c", XI: i, X: xs[i], Meter: "m", Stat: st})
	}
	for _, tc := range []struct {
		p       Published
		ours    float64
		verdict string
	}{
		{Published{Variant: "a", Meter: "m", How: "at", X: 1000, Paper: Num(3), Op: "≈"}, 3, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "at", X: 1000, Paper: Num(7), Op: "≈"}, 3, "differs"},
		{Published{Variant: "a", Meter: "m", How: "at", X: 2000, Paper: Num(7), Op: "≈"}, math.NaN(), "not measured"},
		{Published{Variant: "a", Meter: "m", How: "max", Paper: Num(10), Op: "≈"}, 9, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "argmax", Paper: Num(4000), Op: "≈"}, 4000, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "first_nonzero", Paper: Num(4000), Op: "≈"}, 1000, "differs"},
		{Published{Variant: "a", Meter: "m", How: "zero_upto", Paper: Num(500), Op: ">=", Ref: 500}, 500, "agrees"},
		{Published{Variant: "b", Meter: "m", How: "zero_upto", Paper: Num(500), Op: ">=", Ref: 500}, 0, "differs"},
		{Published{Variant: "a", Meter: "m", How: "diff_mean", Other: "b", MinX: 1000, Paper: Num(5), Op: "≈"}, 5, "agrees"},
		{Published{Variant: "b", Meter: "m", How: "spread", Op: "<=", Ref: 0.25}, 0, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "total", Op: ">", Ref: 0}, 24, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "greater_total", Other: "b", Op: ">", Ref: 0}, 16, "agrees"},
		{Published{Variant: "a", Meter: "m", How: "ratio", X: 1000, X2: 4000, Op: "<", Ref: 1}, 3, "differs"},
		{Published{Variant: "c", Meter: "m", How: "ratio", X: 100, X2: 500, Op: "<", Ref: 1}, 0.9, "inconclusive"},
		{Published{Variant: "c", Meter: "m", How: "ratio", X: 100, X2: 1000, Op: "<", Ref: 1}, 0.5, "agrees"},
		{Published{Variant: "zz", Meter: "m", How: "max", Op: ">", Ref: 0}, math.NaN(), "not measured"},
		{Published{Variant: "b", Meter: "m", How: "max", Paper: Num(1), Op: "≈"}, 1, "agrees"},
		{Published{Variant: "b", Meter: "m", How: "argmax", Paper: Num(500), Op: "≈"}, math.NaN(), "not measured"},
	} {
		c := r.compare(tc.p)
		if !(math.IsNaN(tc.ours) && math.IsNaN(c.Ours)) && c.Ours != tc.ours || c.Verdict != tc.verdict {
			t.Errorf("%s: ours %g (%s) %s; want %g %s", tc.p.How, c.Ours, c.OursText, c.Verdict, tc.ours, tc.verdict)
		}
	}
}

func TestMarkdownTable(t *testing.T) {
	var b bytes.Buffer
	if err := mdTable(&b, []string{"a b", "c"}, [][]string{{"x|y", "a long cell that must stay on one line, with more words than any width limit would allow in a table"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "|") || !strings.Contains(lines[1], "---") || !strings.Contains(lines[2], `x\|y`) {
		t.Errorf("markdown table:\n%s", b.String())
	}
	if !strings.Contains(lines[0], "a b") {
		t.Errorf("header was reformatted: %s", lines[0])
	}
}

// The throughput and disk figures run over real UDP by default, with real
// loopback (no added delay) for fig5 and fig9 and the stated LAN round
// trip for fig6; the rest stay in the simulator. --env moves them both
// ways, and the notes and reasons follow the environment.
func TestEnvironments(t *testing.T) {
	fakeAlgos()
	byName := map[string]Experiment{}
	for _, e := range All() {
		byName[e.Name] = e
	}
	for _, tc := range []struct {
		exp, env string
		rttMS    float64
	}{
		{"fig5", "udp", 0}, {"fig6", "udp", lanRTTMS}, {"fig9", "udp", 0},
		{"fig7", "sim", 66}, {"fig8", "sim", -1}, {"fig10", "sim", 0.05},
		{"deadlock", "sim", -1}, {"timeline", "sim", -1}, {"ablations", "sim", -1},
	} {
		r, err := byName[tc.exp].Resolve(Options{Quick: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.exp, err)
		}
		if r.Env != tc.env {
			t.Errorf("%s runs in %s by default, want %s", tc.exp, r.Env, tc.env)
		}
		if tc.rttMS < 0 {
			continue
		}
		s, err := r.Spec(r.Points()[0], 0)
		if err != nil || s.Env != tc.env || toMS(s.Net.RTT) != tc.rttMS {
			t.Errorf("%s: spec env %s rtt %v (%v), want %s and %g ms", tc.exp, s.Env, s.Net.RTT, err, tc.env, tc.rttMS)
		}
	}
	// --env sim gives fig5 the simulator's stand-in for loopback, and the
	// simulator's notes and reasons instead of the udp ones.
	udp, _ := byName["fig5"].Resolve(Options{Quick: true})
	sim, err := byName["fig5"].Resolve(Options{Quick: true, Env: "sim"})
	if err != nil || sim.Env != "sim" {
		t.Fatalf("fig5 --env sim: %s %v", sim.Env, err)
	}
	if s, _ := sim.Spec(sim.Points()[0], 0); s.Net.RTT != 50*time.Microsecond {
		t.Errorf("fig5 in sim: rtt %v, want 50µs", s.Net.RTT)
	}
	joined := func(ns []string) string { return strings.Join(ns, "\n") }
	if !strings.Contains(joined(udp.Notes), "4,096") || strings.Contains(joined(udp.Notes), "charges no CPU time") {
		t.Errorf("fig5 udp notes:\n%s", joined(udp.Notes))
	}
	if !strings.Contains(joined(sim.Notes), "charges no CPU time") || strings.Contains(joined(sim.Notes), "4,096") {
		t.Errorf("fig5 sim notes:\n%s", joined(sim.Notes))
	}
	if udp.Published[0].Note != udpNoTimeoutNote || sim.Published[0].Note != noCPUNote {
		t.Errorf("fig5 claim notes: udp %q, sim %q", udp.Published[0].Note, sim.Published[0].Note)
	}
	// The definition itself keeps both (Resolve works on a copy).
	if byName["fig5"].Published[0].Note != "" || len(byName["fig5"].Notes) != len(batchNotes) {
		t.Errorf("Resolve changed the definition")
	}
	// fig10 moves to udp by changing its Envs alone: its udp settings are
	// in place already.
	f10 := byName["fig10"]
	f10.Envs = []string{"udp", "sim"}
	r, err := f10.Resolve(Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := r.Spec(r.Points()[0], 0); s.Env != "udp" || s.Net.RTT != 0 || !s.Disk.Background {
		t.Errorf("fig10 switched to udp: env %s rtt %v background %v", s.Env, s.Net.RTT, s.Disk.Background)
	}
	// Settings and notes for an unknown environment are an error.
	bad := byName["fig5"]
	bad.EnvSet = map[string][]Setting{"mars": {{"rtt", 1}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"mars"`) {
		t.Errorf("EnvSet for mars: %v", err)
	}
	bad = byName["fig5"]
	bad.EnvNotes = map[string][]string{"mars": {"x"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `"mars"`) {
		t.Errorf("EnvNotes for mars: %v", err)
	}
	bad = byName["fig5"]
	bad.EnvSet = map[string][]Setting{"udp": {{"rtt", -1}}}
	if err := bad.Validate(); err == nil {
		t.Errorf("EnvSet with a negative rtt: no error")
	}
}

// Over UDP an identical spec within one experiment is a new measurement
// and runs again; across experiments it is shared (fig9 shows fig5's
// runs). In the simulator it is always shared.
func TestSharingByEnvironment(t *testing.T) {
	fakeAlgos()
	var calls sync.Map
	count := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		b, _ := json.Marshal(s)
		n, _ := calls.LoadOrStore(string(b), new(int))
		*n.(*int)++
		return fakeRun(s, o)
	}
	es, _ := Select([]string{"fig5", "fig9"})
	for i := range es {
		es[i].Variants = []Variant{{Name: "a", Algo: "fatlease"}, {Name: "b", Algo: "fatlease"}}
		es[i].Published = nil
		es[i].Sweep.Quick = []float64{100, 1000}
	}
	for _, env := range []string{"udp", "sim"} {
		calls = sync.Map{}
		reports, err := Reproduce(es, Config{Options: Options{Quick: true, Seeds: 2, Env: env}, Out: t.TempDir(), Run: count})
		if err != nil {
			t.Fatal(err)
		}
		want := 1 // sim: a and b are one spec, and fig9 shares it
		if env == "udp" {
			want = 2 // a and b are two measurements; fig9 shares them
		}
		calls.Range(func(k, v any) bool {
			if *v.(*int) != want {
				t.Errorf("%s: a spec ran %d times, want %d", env, *v.(*int), want)
			}
			return true
		})
		for _, rec := range reports[1].Runs {
			if !rec.Shared {
				t.Errorf("%s: fig9 run %s rep %d not shared with fig5", env, rec.Variant, rec.Rep)
			}
		}
		shared := 0
		for _, rec := range reports[0].Runs {
			if rec.Shared {
				shared++
			}
		}
		if (env == "udp") != (shared == 0) {
			t.Errorf("%s: %d of fig5's runs shared within fig5", env, shared)
		}
	}
}

// The report says which runs are not reproducible and how much they vary.
func TestReportVariability(t *testing.T) {
	dir, _, err := reproduce(t, 2, fakeRun)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	report := string(b)
	for _, want := range []string{"environment udp: fig5, fig6, fig9", "every invocation gives different numbers",
		"real UDP sockets on loopback with no added delay", "real log files with real fsync",
		"plus a user-space delay of RTT 200µs"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	sections := strings.Split(report, "<a id=")
	for _, sec := range sections[1:] {
		name := strings.Trim(strings.SplitN(sec, ">", 2)[0], `"`)
		has := strings.Contains(sec, "### Run-to-run variability")
		udp := name == "fig5" || name == "fig6" || name == "fig9"
		if has != udp {
			t.Errorf("%s: variability table %v, want %v", name, has, udp)
		}
	}
}

// Over UDP the repetitions of a point are spread over the experiment
// (rep 0 of every point, then rep 1, ...), so that a drift of the
// machine's load widens intervals instead of shifting whole points.
func TestUDPRunsRepetitionByRepetition(t *testing.T) {
	fakeAlgos()
	var mu sync.Mutex
	var reps []int
	rec := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		mu.Lock()
		reps = append(reps, int(s.Seed-1))
		mu.Unlock()
		return fakeRun(s, o)
	}
	peer := func(p string, s runner.Spec) (runner.Result, error) {
		mu.Lock()
		reps = append(reps, int(s.Seed-1))
		mu.Unlock()
		return fakePeer(p, s)
	}
	es, _ := Select([]string{"fig5"})
	if _, err := Reproduce(es, Config{Options: Options{Quick: true, Seeds: 3}, Out: t.TempDir(), Run: rec, Peer: peer}); err != nil {
		t.Fatal(err)
	}
	series := 0 // the series that run: a peer's only if built in
	for _, v := range es[0].Variants {
		if v.Peer == "" || peerAvailable(v.Peer) {
			series++
		}
	}
	calib := 2 * series // rep 0 at the first and middle values
	if want := series * len(es[0].Sweep.Quick) * 3; len(reps) != want {
		t.Fatalf("%d runs, want %d", len(reps), want)
	}
	for i := calib + 1; i < len(reps); i++ {
		if reps[i] < reps[i-1] {
			t.Fatalf("run %d is rep %d after rep %d: repetitions not in order %v", i, reps[i], reps[i-1], reps)
		}
	}
}

// The run-time estimate: a real-time (udp) series is a start-up cost plus
// a cost per lease, so it extrapolates along a line through its two
// calibration runs; a simulated one along a power law.
func TestEstimate(t *testing.T) {
	fakeAlgos()
	es, _ := Select([]string{"fig5"})
	e := es[0]
	e.Variants, e.Published = e.Variants[:1], nil
	e.Sweep.Full = []float64{100, 10000, 100000}
	for _, tc := range []struct {
		env  string
		want time.Duration // estimate at 100,000 leases
	}{
		// 8 ms at 100 and 83 ms at 10,000: 7.58 µs per lease beyond 100.
		{"udp", 8*time.Millisecond + 75*time.Millisecond*(100000-100)/(10000-100)},
		// Power law: slope log(83/8)/log(100), from 8 ms at 100.
		{"sim", time.Duration(8e6 * math.Pow(1000, math.Log(83.0/8)/math.Log(100)))},
	} {
		r, err := e.Resolve(Options{Env: tc.env, Seeds: 1})
		if err != nil {
			t.Fatal(err)
		}
		eng := &engine{reports: []*Report{{Exp: r}}}
		eng.plan()
		for i := range eng.jobs {
			switch eng.jobs[i].point.X {
			case 100:
				eng.jobs[i].rec.Wall = 8 * time.Millisecond
			case 10000:
				eng.jobs[i].rec.Wall = 83 * time.Millisecond
			}
		}
		est := eng.estimate()
		got := est[len(est)-1]
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: estimate at 100,000 leases %v, want %v", tc.env, got, tc.want)
		}
	}
}

// Config.Stop: the experiments finished before it closed are written and
// returned, nothing after it runs, no report.
func TestReproduceStops(t *testing.T) {
	es, _ := Select([]string{"fig5", "fig6"})
	ctx, cancel := context.WithCancel(context.Background()) // this package's close is a function of its own
	defer cancel()
	stop := ctx.Done()
	var mu sync.Mutex
	ran := map[string]int{}
	run := func(s runner.Spec, o runner.Options) (runner.Result, error) {
		if o.Stop == nil {
			t.Error("the runs must get the stop channel")
		}
		mu.Lock()
		ran[s.Workload]++
		mu.Unlock()
		return fakeRun(s, o)
	}
	dir := t.TempDir()
	var wrote []string
	reports, err := Reproduce(es, Config{Options: Options{Quick: true}, Out: dir, Workers: 1, Run: run, Stop: stop, Peer: fakePeer,
		Progress: func(p Progress) {
			if p.Experiment == "fig5" && len(p.Wrote) > 0 {
				wrote = p.Wrote
				cancel() // fig5 is written: stop before fig6's runs end
			}
		}})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if len(reports) != 1 || reports[0].Exp.Name != "fig5" || len(wrote) == 0 {
		t.Fatalf("returned %d reports, wrote %v", len(reports), wrote)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
		t.Error("an interrupted reproduction wrote report.md")
	}
	if _, err := os.Stat(filepath.Join(dir, "fig6.csv")); err == nil {
		t.Error("fig6 was written although interrupted")
	}
}

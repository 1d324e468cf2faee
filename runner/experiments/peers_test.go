package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/runner"
	"leaselab/runner/peer/etcd"
	"leaselab/runner/udp"
)

// fakePeer stands for a peer's run in tests: a result shaped like the
// etcd peer's (no timeouts, messages or fsyncs reported), instantly.
func fakePeer(peer string, s runner.Spec) (runner.Result, error) {
	n := max(s.Leases, 10)
	if s.Workload != "batch" {
		n = 10
	}
	return runner.Result{Algo: peer, Workload: s.Workload, Env: "etcd", Seed: s.Seed, LeasesAcquired: n,
		OwnerChanges: n - 1, LeasesPerSec: float64(n), SimulatedNS: int64(s.Duration), Params: s}, nil
}

// contentionOnly runs the contention experiment alone, quick, with the
// fake run function and peer (nil: the real one).
func contentionOnly(t *testing.T, peer func(string, runner.Spec) (runner.Result, error)) (string, *Report) {
	t.Helper()
	return expOnly(t, "contention", peer)
}

// expOnly runs experiment name alone, quick, with the fake run function
// and peer (nil: the real one).
func expOnly(t *testing.T, name string, peer func(string, runner.Spec) (runner.Result, error)) (string, *Report) {
	t.Helper()
	fakeAlgos()
	exps, err := Select([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	reports, err := Reproduce(exps, Config{Options: Options{Quick: true}, Out: dir, Workers: 2, Run: fakeRun, Peer: peer})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), reports[0]
}

// Without -tags etcd the etcd series is left out and the report says why
// and how to build it in.
func TestContentionEtcdAbsentNote(t *testing.T) {
	if etcd.Available() {
		t.Skip("built with -tags etcd")
	}
	report, r := contentionOnly(t, nil)
	want := "etcd absent: this binary was built without -tags etcd (go build -tags etcd ./cmd/leaselab)"
	if !strings.Contains(report, want) {
		t.Errorf("report.md lacks %q", want)
	}
	for _, v := range r.Exp.Variants {
		if v.Peer != "" {
			t.Errorf("variant %q of an absent peer was kept", v.Name)
		}
	}
	// In the simulator the etcd series never runs, so nothing is absent.
	e, _ := Select([]string{"contention"})
	res, err := e[0].Resolve(Options{Quick: true, Env: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "etcd absent") {
			t.Errorf("sim notes say etcd is absent: %q", n)
		}
	}
}

// The etcd series, when it runs, appears only in its own facet, its runs
// are marked as the peer's, and the meters it does not measure are empty
// rather than zero.
func TestContentionPeerSeries(t *testing.T) {
	if !etcd.Available() {
		t.Skip("needs -tags etcd: without it the series is left out (TestContentionEtcdAbsentNote)")
	}
	fake := func(peer string, s runner.Spec) (runner.Result, error) {
		return runner.Result{Algo: peer, Workload: s.Workload, Env: "etcd", Seed: s.Seed, LeasesAcquired: 10,
			OwnerChanges: 9, SimulatedNS: int64(s.Duration), Params: s}, nil
	}
	report, r := contentionOnly(t, fake)
	if strings.Contains(report, "etcd absent") {
		t.Error("report says etcd is absent in a build that has it")
	}
	n := 0
	for _, rec := range r.Runs {
		if rec.Peer != "etcd" {
			continue
		}
		n++
		if rec.Facet != contRelBackoff {
			t.Errorf("etcd ran in facet %q", rec.Facet)
		}
	}
	if n == 0 {
		t.Fatal("no etcd runs")
	}
	if st, ok := r.stat(contRelBackoff, "etcd", 0, "blocked_fraction"); ok && st.N != 0 {
		t.Errorf("etcd's blocked time has %d values, want none (not measured)", st.N)
	}
	if st, ok := r.stat(contRelBackoff, "etcd", 0, "handoffs_per_sec"); !ok || st.N == 0 || st.Mean <= 0 {
		t.Errorf("etcd's hand-offs: %+v %v", st, ok)
	}
}

// fig5's etcd series: absent without -tags etcd (the report says so, as
// for contention); with it, over UDP only, with throughput and failures
// measured and timeouts empty rather than 0, and no published claim
// about it.
func TestFig5EtcdSeries(t *testing.T) {
	report, r := expOnly(t, "fig5", fakePeer)
	for _, p := range r.Exp.Published {
		if p.Variant == "etcd" || p.Other == "etcd" {
			t.Errorf("a published claim is about etcd: %q", p.Claim)
		}
	}
	if !etcd.Available() {
		if want := "etcd absent: this binary was built without -tags etcd"; !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
		for _, rec := range r.Runs {
			if rec.Peer != "" {
				t.Fatalf("an absent peer ran: %+v", rec.Point)
			}
		}
		return
	}
	if strings.Contains(report, "etcd absent") {
		t.Error("report says etcd is absent in a build that has it")
	}
	last := len(r.Exp.ValuesOf(0)) - 1
	if st, ok := r.stat("", "etcd", last, "leases_per_sec"); !ok || st.N == 0 || st.Mean <= 0 {
		t.Errorf("etcd's throughput: %+v %v", st, ok)
	}
	if st, ok := r.stat("", "etcd", last, "leases_failed"); !ok || st.N == 0 {
		t.Errorf("etcd's failed leases not measured: %+v %v", st, ok)
	}
	if st, ok := r.stat("", "etcd", last, "timeouts"); ok && st.N != 0 {
		t.Errorf("etcd's timeouts have %d values, want none (not measured)", st.N)
	}
	if fs := strings.Join(r.Exp.Findings(r), "\n"); !strings.Contains(fs, "etcd: ") || !strings.Contains(fs, "timeouts not measured") {
		t.Errorf("no finding for the etcd series, or one that counts its timeouts: %q", fs)
	}
}

// The batch spec maps onto the etcd peer's batch: the sweep's leases, the
// udp proposer's window, the members and the bound; release does not
// matter to a batch.
func TestEtcdBatchConfig(t *testing.T) {
	e, _ := Select([]string{"fig5"})
	res, err := e[0].Resolve(Options{Quick: true, Env: "udp"})
	if err != nil {
		t.Fatal(err)
	}
	last := len(res.Values) - 1
	s, err := res.Spec(Point{XI: last, X: res.Values[last]}, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Release = false
	if err := validatePeer("etcd", s); err != nil {
		t.Fatalf("batch spec: %v", err)
	}
	c := etcdConfig(s)
	if c.Workload != "batch" || c.Leases != s.Leases || c.Window != udp.DefaultWindow || c.Members != s.Acceptors || c.Duration != s.Duration {
		t.Errorf("etcd config %+v from spec leases %d acceptors %d", c, s.Leases, s.Acceptors)
	}
}

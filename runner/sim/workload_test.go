package sim

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
	"leaselab/runner"
)

func TestWorkloadBatch(t *testing.T) {
	s := remoteSpec()
	s.Workload = "batch"
	s.Leases = 500
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LeasesAcquired != 500 || res.LeasesFailed != 0 || res.LatencyMS.N != 500 {
		t.Fatalf("batch: %+v", res)
	}
	if res.SimulatedNS >= int64(s.Duration) || res.LeasesPerSec <= 0 {
		t.Fatalf("a finished batch ends early and has a rate: %d ns, %.0f/s", res.SimulatedNS, res.LeasesPerSec)
	}
	// Rate: N / (last acquisition - first request); everything starts at 0.
	want := 500 / (float64(res.SimulatedNS) / 1e9)
	if d := res.LeasesPerSec - want; d > 1e-6*want || d < -1e-6*want {
		t.Fatalf("leases/s %.3f, want %.3f", res.LeasesPerSec, want)
	}
}

func TestWorkloadBatchUnfinishedFails(t *testing.T) {
	s := remoteSpec()
	s.Workload = "batch"
	s.Leases = 10
	s.Net.Loss = 0.99                   // almost nothing reaches node 1
	s.Duration = 500 * time.Millisecond // shorter than one response timeout
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LeasesAcquired+res.LeasesFailed != 10 || res.LeasesFailed == 0 {
		t.Fatalf("unresolved batch requests must count as failed: %+v", res)
	}
}

func TestWorkloadSingleNaive(t *testing.T) {
	s := runner.DefaultSpec()
	s.Algo = "naive"
	s.Workload = "single"
	s.Net = runner.NetSpec{RTT: 10 * time.Millisecond}
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// One round trip to the other acceptors.
	if res.LeasesAcquired != 1 || res.LatencyMS.P50 != 10 || res.TimeToFirstLeaseMS != 10 {
		t.Fatalf("single: acquired %d after %v ms (first %v)", res.LeasesAcquired, res.LatencyMS.P50, res.TimeToFirstLeaseMS)
	}
}

func TestWorkloadFailoverNaive(t *testing.T) {
	s := runner.DefaultSpec()
	s.Algo = "naive"
	s.Workload = "failover"
	s.Duration = 40 * time.Second
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	span := float64(s.Params.LeaseSpan / time.Millisecond)
	if res.Violations != 0 || res.FailoverGapMS <= 0 || float64(res.FailoverGapMS) > span+float64(s.Params.MaxLease/time.Millisecond) {
		t.Fatalf("failover gap %.1f ms (lease span %v), violations %d", res.FailoverGapMS, s.Params.LeaseSpan, res.Violations)
	}
	if res.Crashes < 1 || res.OwnerChanges < 1 {
		t.Fatalf("failover: %d crashes, %d owner changes", res.Crashes, res.OwnerChanges)
	}
	s.Proposers = 1
	if _, err := runner.Run(s, runner.Options{}); err == nil {
		t.Fatal("failover with one proposer should be refused")
	}
}

func TestBlockedFraction(t *testing.T) {
	// One proposer: whenever it wants the lease nobody holds it.
	s := remoteSpec() // node 1's vote is remote, so acquisitions take time
	s.Net.Jitter = 0
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.BlockedFraction != 1 {
		t.Fatalf("one proposer: blocked fraction %v, want 1", res.BlockedFraction)
	}
	// Several proposers: some of the wanting happens while another holds.
	s = centralSpec()
	s.Net.Jitter = 0
	res, err = runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.BlockedFraction <= 0 || res.BlockedFraction >= 0.5 {
		t.Fatalf("three proposers: blocked fraction %v", res.BlockedFraction)
	}
}

// TestTraceAndHolds writes the JSON trace and the holds CSV and checks them
// independently of the checker.
func TestTraceAndHolds(t *testing.T) {
	for _, ablate := range []string{"", example.AblateGrantOnce} {
		algo := "central " + ablate
		s := centralSpec()
		if ablate != "" {
			s.Ablate = algorithms.Ablations{ablate}
		}
		s.Duration = 20 * time.Second
		s.Net.Loss = 0.02
		var trace, holds, vtrace bytes.Buffer
		res, err := runner.Run(s, runner.Options{Trace: &trace, Holds: &holds, ViolationTrace: &vtrace})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		sc := bufio.NewScanner(&trace)
		sc.Buffer(nil, 1<<20)
		lastT := int64(-1)
		for sc.Scan() {
			var rec struct {
				T    int64  `json:"t_ns"`
				What string `json:"what"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s: bad trace line %q: %v", algo, sc.Text(), err)
			}
			if rec.T < lastT {
				t.Fatalf("%s: trace goes back in time: %q after %d", algo, sc.Text(), lastT)
			}
			lastT = rec.T
			kinds[rec.What]++
		}
		for _, k := range []string{"send", "deliver", "drop", "fire", "input", "event", "hold_start", "hold_end"} {
			if kinds[k] == 0 {
				t.Errorf("%s: no %q records in the trace", algo, k)
			}
		}
		rows, err := csv.NewReader(&holds).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rows[0], ",") != "resource,owner,ballot,start_ns,end_ns" {
			t.Fatalf("holds header %v", rows[0])
		}
		rows = rows[1:]
		if len(rows) != kinds["hold_start"] || len(rows) != kinds["hold_end"] {
			t.Fatalf("%s: %d hold rows, %d starts, %d ends", algo, len(rows), kinds["hold_start"], kinds["hold_end"])
		}
		// An independent overlap count from the CSV alone.
		type iv struct {
			owner      string
			start, end int64
		}
		var ivs []iv
		for _, r := range rows {
			a, _ := strconv.ParseInt(r[3], 10, 64)
			b, _ := strconv.ParseInt(r[4], 10, 64)
			ivs = append(ivs, iv{r[1], a, b})
		}
		overlaps := 0
		for i := range ivs {
			for j := i + 1; j < len(ivs); j++ {
				if ivs[i].owner != ivs[j].owner && max(ivs[i].start, ivs[j].start) < min(ivs[i].end, ivs[j].end) {
					overlaps++
				}
			}
		}
		if overlaps != res.Violations {
			t.Fatalf("%s: CSV shows %d overlaps, checker %d", algo, overlaps, res.Violations)
		}
		if (res.Violations > 0) != (vtrace.Len() > 0) {
			t.Fatalf("%s: %d violations but %d bytes of violation trace", algo, res.Violations, vtrace.Len())
		}
		if res.Violations > 0 {
			lines := strings.Split(strings.TrimSpace(vtrace.String()), "\n")
			if len(lines) < 10 || !strings.Contains(lines[len(lines)-1], `"what":"violation"`) {
				t.Fatalf("violation trace should end with the violation: %d lines, last %q", len(lines), lines[len(lines)-1])
			}
		}
	}
}

func TestRunBadInput(t *testing.T) {
	good := centralSpec()
	for name, mutate := range map[string]func(*runner.Spec){
		"unknown algorithm": func(s *runner.Spec) { s.Algo = "nosuch" },
		"unknown workload":  func(s *runner.Spec) { s.Workload = "nosuch" },
		"unknown env":       func(s *runner.Spec) { s.Env = "carrier-pigeon" },
		"span above max":    func(s *runner.Spec) { s.Params.LeaseSpan = 20 * time.Second },
		"zero acceptors":    func(s *runner.Spec) { s.Acceptors = 0 },
		"loss above 1":      func(s *runner.Spec) { s.Net.Loss = 1.5 },
		"unknown ablation":  func(s *runner.Spec) { s.Ablate = algorithms.Ablations{"nosuch"} },
	} {
		s := good
		mutate(&s)
		if _, err := runner.Run(s, runner.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBandwidthLimit(t *testing.T) {
	s := remoteSpec()
	s.Workload = "batch"
	s.Leases = 1000
	s.Net = runner.NetSpec{RTT: 66 * time.Millisecond}
	free, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Net.Bandwidth = 512 * 1024 // the paper's WAN link
	slow, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 1000 requests of 64 bytes leave node 0 one after another: 125 ms of
	// serialisation at 512 kB/s, on top of the round trip.
	ser := 1000 * 64 * 1e3 / (512 * 1024.0)
	if free.LatencyMS.Max > 66.5 || slow.LatencyMS.Max < 66+ser-1 || slow.LatencyMS.Max > 66+ser+2 {
		t.Fatalf("max latency %.1f ms unlimited, %.1f ms at 512 kB/s (serialisation %.1f ms)", free.LatencyMS.Max, slow.LatencyMS.Max, ser)
	}
}

// Every acquisition is counted for the node that made it, and fairness is
// Jain's index of those counts over the contenders.
func TestLeasesByNode(t *testing.T) {
	s := centralSpec()
	s.Workload = "contention"
	s.Proposers = 4
	s.Duration = time.Second
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LeasesByNode) != s.Proposers {
		t.Fatalf("leases by node %v, want one count per contender (%d)", res.LeasesByNode, s.Proposers)
	}
	sum := 0
	for _, c := range res.LeasesByNode {
		sum += c
	}
	if sum != res.LeasesAcquired || sum == 0 {
		t.Fatalf("leases by node %v sum to %d, acquired %d", res.LeasesByNode, sum, res.LeasesAcquired)
	}
	if want := runner.JainIndex(res.LeasesByNode, nil); res.Fairness != want || want <= 0 || want > 1 {
		t.Fatalf("fairness %v, want Jain's index %v of %v", res.Fairness, want, res.LeasesByNode)
	}
}

// inputTimes records when each Acquire went in, by resource.
type inputTimes map[algorithms.ResourceID]int64

func (it inputTimes) Observe(r *runner.TraceRec) {
	if r.Kind == runner.TraceInput && algorithms.InputKind(r.Sub) == algorithms.Acquire {
		it[r.Res] = r.T
	}
}

// An open-loop batch (Spec.Rate): requests arrive on the Poisson
// process's schedule whatever the cluster answers, so a slow network
// delays the answers, never the arrivals (no coordinated omission), and
// the latency counts from the arrival.
func TestWorkloadOpenLoop(t *testing.T) {
	run := func(rtt time.Duration) (runner.Result, inputTimes) {
		s := centralSpec()
		s.Workload, s.Leases, s.Rate = "batch", 400, 100
		s.Net = runner.NetSpec{RTT: rtt}
		s.Params.ResponseTimeout = runner.DefaultResponseTimeout(s.Net)
		it := inputTimes{}
		res, err := runner.Run(s, runner.Options{Observers: []runner.Observer{it}})
		if err != nil {
			t.Fatal(err)
		}
		return res, it
	}
	fast, fastIn := run(time.Millisecond)
	slow, slowIn := run(400 * time.Millisecond)
	if len(fastIn) != 400 || len(slowIn) != 400 {
		t.Fatalf("%d and %d requests arrived, want 400", len(fastIn), len(slowIn))
	}
	for r, at := range fastIn {
		if slowIn[r] != at {
			t.Fatalf("request %d arrived at %d with a fast network, %d with a slow one", r, at, slowIn[r])
		}
	}
	// 400 arrivals at 100/s take about 4 s (Poisson: within 20%).
	last := int64(0)
	for _, at := range fastIn {
		last = max(last, at)
	}
	if last < 3.2e9 || last > 4.8e9 || fastIn[0] != 0 {
		t.Errorf("arrivals from %d to %d ns, want 0 to about 4 s", fastIn[0], last)
	}
	if fast.LeasesAcquired != 400 || slow.LeasesAcquired != 400 {
		t.Fatalf("acquired %d and %d of 400", fast.LeasesAcquired, slow.LeasesAcquired)
	}
	// central answers in one round trip from the arrival.
	if fast.LatencyMS.P50 < 0.9 || fast.LatencyMS.P50 > 1.5 || slow.LatencyMS.P50 < 399 || slow.LatencyMS.P50 > 401 {
		t.Errorf("latency p50 %g ms (rtt 1ms) and %g ms (rtt 400ms)", fast.LatencyMS.P50, slow.LatencyMS.P50)
	}
	if fast.LatencyMS.P999 < fast.LatencyMS.P99 || fast.LatencyMS.Max < fast.LatencyMS.P999 {
		t.Errorf("percentiles out of order: %+v", fast.LatencyMS)
	}
	var n int64
	for _, b := range fast.LatencyHistogram {
		n += b.Count
	}
	if n != 400 {
		t.Errorf("histogram holds %d latencies, want 400", n)
	}
	var acq float64
	for i, v := range fast.Throughput.LeasesPerSec {
		w := min(fast.Throughput.BucketNS, fast.SimulatedNS-int64(i)*fast.Throughput.BucketNS)
		acq += v * float64(w) / 1e9
	}
	if acq < 399.5 || acq > 400.5 {
		t.Errorf("throughput over time adds up to %g leases, want 400", acq)
	}
}

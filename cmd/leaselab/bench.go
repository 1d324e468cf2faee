package main

import (
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/peer/etcd"
	"leaselab/runner/record"
	"leaselab/runner/udp" // also registers --env udp for every command
)

func init() {
	register(command{
		name:    "bench",
		summary: "batch throughput and single-lease latency over UDP (or in the simulator), with the machine's own UDP limits",
		usage:   "[--env udp|sim] [--algo NAME | --peer etcd] [--leases 1000,10000,100000 | --workload single --reps K] [flags]",
		long:    benchLong,
		setup:   setupBench,
	})
}

// benchLong is the --help text of bench.
const benchLong = `Runs the FaTLease paper's batch experiment (Sec. 5.1): N lease requests on N
distinct resources handed to proposer 0 at once, for each N in --leases;
leases/s = N / (time from the first request to the last lease acquired). A
failed lease is one not acquired after --max-rounds rounds; a timeout, a
phase without a majority within --response-timeout.

--workload single measures one lease at a time, --reps times, on an idle
cluster (request to acquisition, FaTLease Sec. 5.2).

Over UDP it measures in the same run the machine's own limits on
loopback: the median round trip of a 64-byte UDP datagram between two
sockets (raw_udp_rtt_us) and how many 64-byte datagrams one goroutine can
send to another per second, one datagram a system call
(raw_datagrams_per_sec) and 64 a call with sendmmsg/recvmmsg
(raw_batched_datagrams_per_sec); results are also given as ratios of these
(acquisition latency / (2 x raw RTT), leases/s / raw datagrams/s, leases/s
/ raw batched datagrams/s). In the simulator (--env sim) there is no real network to
measure and the simulator charges no CPU time per message, so it needs
--rtt (with --rtt 0 every lease would take no time: bench refuses) and
reports no raw limits or ratios.

Over UDP (the default here) every node has its own socket on 127.0.0.1 and
its own event loop in this process; messages to the same peer share
datagrams (--datagram bytes), and each proposer works on at most --window
acquisitions at once (the rest wait in its queue, counted in latency; 512
by default here, 4,096 for classic Paxos, whose group commit wants many in
flight, and for reproduce's figures and run).

--count N repeats every point N times, interleaved: every batch size once,
then every one again, ... (repetition k uses seed --seed+k), as reproduce
does, so a slow change in the machine's load spreads over all points.

Output: a narrow table by default (algo, leases, leases/s, failed,
timeouts, p50/p99 latency, messages per lease, violations; a rep column
with --count); --format markdown and csv add env, workload, datagrams and
bytes per lease and the ratios to the raw limits. --format benchstat
prints one Go benchmark line per run, e.g.
  BenchmarkBatch/env=udp/algo=paxoslease/leases=10000-2  1  8.5e-06 s/lease  117260 leases/s  ...
(units s/lease, leases/s, p50-ms, p99-ms, msgs/lease, timeouts, failed),
which golang.org/x/perf/cmd/benchstat compares:
  leaselab bench --count 10 --format benchstat > old.txt
  (change something, rebuild)
  leaselab bench --count 10 --format benchstat > new.txt
  benchstat old.txt new.txt

JSON (--format json), every key always present: {"meta",
"raw_udp_rtt_us", "raw_datagrams_per_sec", "raw_batched_datagrams_per_sec"
(udp; 0 in the simulator), "count", "runs": [one object per run: rep,
seed, leases, leases_per_sec, leases_failed, timeouts, latency_ms
{p50,p90,p99,max,mean,n}, fsyncs, fsync_latency_ms,
background_bytes_per_sec (with --background-writer), datagrams_per_lease,
bytes_per_lease, raw_udp_rtt_us, raw_datagrams_per_sec,
raw_batched_datagrams_per_sec, latency_p50_over_2rtt,
leases_per_sec_over_raw_datagrams_per_sec,
leases_per_sec_over_raw_batched_datagrams_per_sec, signed, ...], "params",
"peer_params" (null without --peer)}.
With --sign (udp) every point runs twice, first with plain datagrams, then
with every datagram signed with HMAC-SHA256 and checked (as 'leaselab node
--key-file' does), so the cost of authentication shows in one run
("signed" in the JSON and benchstat names; a line per point with the
change in leases/s).

--peer etcd measures etcd's leases and locks with the same meters, for
--workload batch, single, contention or failover (client/v3/concurrency:
a Session with --etcd-ttl, a Mutex per resource; a client holds from Lock's
return until it calls Unlock, or its session ends, and the checker runs on
those intervals). It needs a binary built with -tags etcd
(go build -tags etcd ./cmd/leaselab). By default an embedded cluster of
--acceptors members runs on loopback, fsync on, in a temporary directory
(removed after); --etcd-endpoints uses an existing one. Contention: the
--proposers clients, each with its own connection and session, loop
Lock, hold --hold, Unlock, pause up to --pause, for --duration (default
10s); failover: the holder crashes (its lease left to expire) at its first
keep-alive after --duration/4 (default 20s) and the others take over.
JSON adds peer, ttl_s, owner_changes, handoffs_per_sec, fairness (contention) and
failover_gap_ms (failover); --compare also runs --algo over UDP at the
same points (batch, single) and prints the ratio, e.g.
  leaselab bench --peer etcd --workload batch --leases 10000 --compare

Exit status 1 if any lease failed or the checker found a violation.`

// benchWindow is bench's default --window, smaller than the environment's
// (udp.DefaultWindow, which the reproduced figures use): every
// acquisition in flight keeps its round's state, timers and the
// recorder's pending request live, and at 4,096 of them the proposer's
// steps ran out of cache. The million-lease PaxosLease batch, in turns on
// this 2-core machine with the bench at high priority: 4,096 208k,
// 2,048 232k, 1,024 256k, 512 257-269k, 256 259-266k, 128 234-244k
// leases/s (below 256 the datagrams carry fewer messages each).
// An algorithm whose acceptors write to disk keeps udp.DefaultWindow:
// group commit syncs what is queued, and at 512 classic Paxos's 100k
// batch made 0.022 fsyncs a lease against 0.0036 and ran at 57-68k
// leases/s against 71-101k.
const benchWindow = 512

// benchWindowFor is the window for algo: window if the flag was given,
// else benchWindow, or udp.DefaultWindow for a durable algorithm.
func benchWindowFor(algo string, window int, given bool) int {
	if given {
		return window
	}
	if a, err := algorithms.Lookup(algo); err == nil && a.Durable {
		return udp.DefaultWindow
	}
	return benchWindow
}

// benchRun is one row of bench's output.
type benchRun struct {
	// Rep: which repetition of its point (0 .. --count-1).
	Rep int `json:"rep"`
	// Seed: --seed + Rep, so repetitions in the simulator differ.
	Seed      uint64 `json:"seed"`
	Env       string `json:"env"`
	Algo      string `json:"algo"`
	Workload  string `json:"workload"`
	Acceptors int    `json:"acceptors"`
	Proposers int    `json:"proposers"`
	Leases    int    `json:"leases"`
	// Signed: datagrams were signed and checked (--sign).
	Signed         bool    `json:"signed"`
	LeasesAcquired int     `json:"leases_acquired"`
	LeasesFailed   int     `json:"leases_failed"`
	LeasesPerSec   float64 `json:"leases_per_sec"`
	Timeouts       int     `json:"timeouts"`
	// LatencyMS: request (all requests of a batch are made at once) to
	// acquisition; in a batch it includes waiting for the window.
	LatencyMS         runner.Percentiles `json:"latency_ms"`
	MessagesPerLease  float64            `json:"messages_per_lease"`
	DatagramsPerLease float64            `json:"datagrams_per_lease"` // udp only
	BytesPerLease     float64            `json:"bytes_per_lease"`     // udp: UDP payload incl. datagram headers; sim: 64 per message
	// The machine's own limits, measured in this run (udp only: 0 in
	// the simulator, which does not use the machine's network; so are the
	// ratios to them).
	RawUDPRTTUS        float64 `json:"raw_udp_rtt_us"`
	RawDatagramsPerSec float64 `json:"raw_datagrams_per_sec"`
	// LatencyP50Over2RTT: median acquisition latency / (2 x raw RTT), the
	// two round trips of a Paxos-style acquisition on this machine.
	LatencyP50Over2RTT float64 `json:"latency_p50_over_2rtt"`
	// SingleBoundUS: 2 x raw RTT + 50 us, the target for a single lease's
	// median over UDP (workload single).
	SingleBoundUS float64 `json:"single_bound_us"`
	// LeasesPerRawDatagram: leases/s divided by raw datagrams/s (above 1
	// thanks to batching many messages per datagram).
	LeasesPerRawDatagram float64 `json:"leases_per_sec_over_raw_datagrams_per_sec"`
	// RawBatchedDatagramsPerSec: the raw rate with 64 datagrams a system
	// call each way (sendmmsg/recvmmsg, as the nodes send and read), and
	// LeasesPerRawBatchedDatagram leases/s divided by it.
	RawBatchedDatagramsPerSec   float64 `json:"raw_batched_datagrams_per_sec"`
	LeasesPerRawBatchedDatagram float64 `json:"leases_per_sec_over_raw_batched_datagrams_per_sec"`
	Violations                  int     `json:"violations"`
	Fsyncs                      int64   `json:"fsyncs"`
	FsyncsPerLease              float64 `json:"fsyncs_per_lease"`
	// FsyncLatencyMS: every fsync of the nodes' logs (classicpaxos).
	FsyncLatencyMS runner.Percentiles `json:"fsync_latency_ms"`
	// BackgroundBytesPerS: --background-writer over UDP, what the real
	// background writer wrote per second while the run lasted.
	BackgroundBytesPerS float64 `json:"background_bytes_per_sec"`
	WallMS              float64 `json:"wall_ms"`
	// Peer runs (--peer, see peer.go): the service measured, its session
	// TTL; owner changes, hand-offs per second and fairness (Jain's index
	// of locks per client; contention, failover), the failover gap
	// (failover); "", 0 and null for the runs of --algo.
	Peer           string   `json:"peer"`
	TTLS           int      `json:"ttl_s"`
	OwnerChanges   int      `json:"owner_changes"`
	HandoffsPerSec float64  `json:"handoffs_per_sec"`
	Fairness       float64  `json:"fairness"`
	FailoverGapMS  *float64 `json:"failover_gap_ms"`
}

type benchOutput struct {
	Meta *runner.Meta `json:"meta"`
	// The machine's limits (udp only).
	RawUDPRTTUS        float64 `json:"raw_udp_rtt_us"`
	RawUDPRTTP90US     float64 `json:"raw_udp_rtt_p90_us"`
	RawDatagramsPerSec float64 `json:"raw_datagrams_per_sec"`
	// RawBatchedDatagramsPerSec: the same with 64 datagrams a system call
	// each way.
	RawBatchedDatagramsPerSec float64     `json:"raw_batched_datagrams_per_sec"`
	Count                     int         `json:"count"` // repetitions of every point (--count)
	Runs                      []benchRun  `json:"runs"`
	Spec                      runner.Spec `json:"params"`
	// PeerParams: --peer etcd, the configuration of its runs (params
	// then holds what --compare runs with); null without --peer.
	PeerParams *etcd.Config `json:"peer_params"`
}

func setupBench(fs *pflag.FlagSet) action {
	spec := runner.DefaultSpec()
	spec.Env = "udp"
	spec.Workload = "batch"
	spec.Proposers = 1
	spec.Duration = 120 * time.Second
	spec.Net = runner.NetSpec{} // loopback as it is; --rtt etc. emulate a LAN or WAN
	addGroupFlags(fs, &spec, runner.GroupAlgo, runner.GroupProtocol)
	workload := fs.String("workload", "batch", "batch (N leases at once, for each N of --leases) or single (one lease at a time, --reps times); with --peer also contention and failover")
	leases := fs.IntSlice("leases", []int{1000, 10000, 100000}, "batch sizes, comma-separated")
	reps := fs.Int("reps", 1000, "single: number of leases, one after the other")
	addNamedFlags(fs, &spec, "seed", "duration")
	addGroupFlags(fs, &spec, runner.GroupNet, runner.GroupClocks, runner.GroupDisk)
	window := fs.Int("window", benchWindow, "udp: acquisitions a proposer works on at once (-1: no bound)")
	rawReps := fs.Int("raw-reps", 2000, "ping-pongs for the raw UDP round trip")
	rawTime := fs.Duration("raw-time", 500*time.Millisecond, "how long to measure the raw datagram rate")
	count := fs.Int("count", 1, "repeat every point this many times, interleaved (every batch size once, then again, ...), so a slow change in the machine's load spreads over all points; repetition k uses seed --seed+k")
	sign := fs.Bool("sign", false, "udp: run every point twice, with plain and with signed (HMAC-SHA256) datagrams")
	format := addFormatFlag(fs, "table", "json", "csv", "markdown", "benchstat")
	quiet := addQuietFlag(fs)
	pf := addPeerFlags(fs)
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		if *count < 1 {
			return usagef("--count must be at least 1, got %d", *count)
		}
		if *pf.peer != "" {
			return benchPeer(c, fs, pf, spec, *workload, *leases, *reps, *window, *count, *format, *quiet)
		}
		if err := checkBenchArgs(*workload, *leases, *reps, *window, *rawReps, *rawTime); err != nil {
			return err
		}
		if *sign && spec.Env != "udp" {
			return usagef("--sign measures signed datagrams over UDP; give --env udp")
		}
		spec.Workload = *workload
		if *workload == "batch" {
			spec.Leases = (*leases)[0]
		}
		networkDefaults(fs, &spec)
		if err := validateSpec(spec); err != nil {
			return err
		}
		if err := guardBatches(spec, *workload, *leases); err != nil {
			return err
		}
		if spec.Env == "sim" && spec.Net.RTT == 0 {
			return usagef("bench --env sim needs --rtt: the simulator charges no CPU time per message, so on a zero-delay network " +
				"every lease takes no time and leases/s is undefined; give the network to simulate (e.g. --rtt 1ms --jitter 0.1ms), or use --env udp")
		}
		out := benchOutput{Meta: c.meta(), Count: *count, Spec: spec}
		if spec.Env == "udp" {
			// The machine's limits first, on an idle machine.
			if err := measureMachine(&out, *rawReps, *rawTime); err != nil {
				return err
			}
		}
		// --datagram is the spec's (addNetFlags), checked by validateSpec.
		eo := udp.EnvOptions{Window: benchWindowFor(spec.Algo, *window, fs.Changed("window"))}
		keys := [][]byte{nil}
		if *sign {
			keys = append(keys, benchKey())
		}
		failed, err := benchPoints(c, spec, eo, keys, *workload, *leases, *reps, *count, *quiet, &out)
		if err != nil {
			return err
		}
		if err := writeBench(c, *format, out); err != nil {
			return err
		}
		if failed {
			return exitStatus(1)
		}
		return nil
	}
}

// benchPoints runs every point --count times, interleaved (each batch size,
// or the single-lease run, once with every key, then again), appending
// the rows to out; failed: a lease failed or the checker found a
// violation.
func benchPoints(c *ctx, spec runner.Spec, eo udp.EnvOptions, keys [][]byte, workload string, leases []int, reps, count int, quiet bool, out *benchOutput) (failed bool, err error) {
	for rep := 0; rep < count; rep++ {
		if workload == "single" {
			for _, key := range keys {
				s := spec
				s.Seed = spec.Seed + uint64(rep)
				r, err := benchSingle(s, eo, key, reps, *out)
				if err != nil {
					return false, err
				}
				r.Rep, r.Seed = rep, s.Seed
				out.Runs = append(out.Runs, r)
				failed = failed || r.LeasesFailed > 0 || r.Violations > 0
			}
			continue
		}
		for _, n := range leases {
			for _, key := range keys {
				s := spec
				s.Leases = n
				s.Seed = spec.Seed + uint64(rep)
				e := eo
				e.Key = key
				label := fmt.Sprintf("bench %s %s %d leases", s.Env, s.Algo, n)
				if key != nil {
					label += " signed"
				}
				if count > 1 {
					label += fmt.Sprintf(" (%d of %d)", rep+1, count)
				}
				progress, done := newProgress(c, quiet, label)
				r, err := benchBatch(s, e, progress, *out)
				done()
				if err != nil {
					return false, err
				}
				r.Rep, r.Seed = rep, s.Seed
				out.Runs = append(out.Runs, r)
				failed = failed || r.LeasesFailed > 0 || r.Violations > 0
			}
		}
	}
	return failed, nil
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// guardBatches refuses, before anything runs, a batch size that would
// need more memory than the machine has (runner.Plan.GuardMemory).
func guardBatches(spec runner.Spec, workload string, leases []int) error {
	if workload != "batch" {
		return nil
	}
	spec.Leases = slices.Max(leases)
	p, err := runner.Resolve(spec)
	if err != nil {
		return badInput(err)
	}
	return badInput(p.GuardMemory())
}

// checkBenchArgs rejects bench's own flags when they make no sense.
func checkBenchArgs(workload string, leases []int, reps, window, rawReps int, rawTime time.Duration) error {
	switch workload {
	case "batch":
		if len(leases) == 0 {
			return usagef("--leases needs at least one batch size")
		}
		for _, n := range leases {
			if n < 1 {
				return usagef("batch sizes must be at least 1, got %d", n)
			}
		}
	case "single":
		if reps < 1 {
			return usagef("--reps must be at least 1, got %d", reps)
		}
	default:
		return usagef("bench runs workload batch or single, not %q", workload)
	}
	if window == 0 || window < -1 {
		return usagef("--window must be positive or -1, got %d", window)
	}
	if rawReps < 1 || rawTime <= 0 {
		return usagef("--raw-reps and --raw-time must be positive")
	}
	return nil
}

// measureMachine fills out's raw UDP figures: the round trip of rawReps
// ping-pongs and the datagrams per second received in rawTime, one a
// system call and then batched, the bounds the algorithms' figures are
// divided by.
func measureMachine(out *benchOutput, rawReps int, rawTime time.Duration) error {
	rtts, err := udp.RawRTT(rawReps)
	if err != nil {
		return err
	}
	rate, err := udp.RawDatagrams(64, rawTime)
	if err != nil {
		return err
	}
	batched, err := udp.RawDatagramsBatched(64, rawTime)
	if err != nil {
		return err
	}
	out.RawBatchedDatagramsPerSec = batched.RecvPerSec
	out.RawUDPRTTUS = us(record.NearestRank(rtts, 0.5)) // RawRTT returns them sorted
	out.RawUDPRTTP90US = us(record.NearestRank(rtts, 0.9))
	out.RawDatagramsPerSec = rate.RecvPerSec
	return nil
}

func benchBatch(s runner.Spec, eo udp.EnvOptions, progress func(float64), out benchOutput) (benchRun, error) {
	var (
		res runner.Result
		ex  udp.Extra
		err error
	)
	opt := runner.Options{Progress: progress}
	if s.Env == "udp" {
		res, ex, err = udp.RunSpec(s, opt, eo)
	} else {
		res, err = runner.Run(s, opt)
	}
	if errors.Is(err, runner.ErrBadSpec) {
		return benchRun{}, badInput(err)
	}
	if err != nil {
		return benchRun{}, err
	}
	r := fromResult(res, s, out)
	r.Leases = s.Leases
	r.Signed = eo.Key != nil
	if s.Env == "udp" && res.LeasesAcquired > 0 {
		r.DatagramsPerLease = float64(ex.Meters.DatagramsSent) / float64(res.LeasesAcquired)
		r.BytesPerLease = float64(ex.Meters.BytesSent) / float64(res.LeasesAcquired)
	}
	return r, nil
}

func fromResult(res runner.Result, s runner.Spec, out benchOutput) benchRun {
	r := benchRun{
		Env: s.Env, Algo: s.Algo, Workload: s.Workload, Acceptors: s.Acceptors, Proposers: s.Proposers,
		LeasesAcquired: res.LeasesAcquired, LeasesFailed: res.LeasesFailed, LeasesPerSec: res.LeasesPerSec,
		Timeouts: res.Timeouts, LatencyMS: res.LatencyMS, MessagesPerLease: res.MessagesPerLease,
		BytesPerLease: res.BytesPerLease, RawUDPRTTUS: out.RawUDPRTTUS, RawDatagramsPerSec: out.RawDatagramsPerSec,
		Violations: res.Violations, Fsyncs: res.Fsyncs, FsyncsPerLease: res.FsyncsPerLease, WallMS: res.WallMS,
		FsyncLatencyMS: res.FsyncLatencyMS, BackgroundBytesPerS: res.BackgroundBytesPerS,
	}
	if out.RawUDPRTTUS > 0 {
		r.LatencyP50Over2RTT = res.LatencyMS.P50 * 1e3 / (2 * out.RawUDPRTTUS)
	}
	if out.RawDatagramsPerSec > 0 {
		r.LeasesPerRawDatagram = res.LeasesPerSec / out.RawDatagramsPerSec
	}
	r.RawBatchedDatagramsPerSec = out.RawBatchedDatagramsPerSec
	if out.RawBatchedDatagramsPerSec > 0 {
		r.LeasesPerRawBatchedDatagram = res.LeasesPerSec / out.RawBatchedDatagramsPerSec
	}
	// The hand-off meters: zero (and left out) for batch and single, the
	// workloads an algorithm's bench runs; fairness only where several
	// clients compete (a lone client's is 1).
	r.OwnerChanges, r.HandoffsPerSec = res.OwnerChanges, res.HandoffsPerSec
	if res.FailoverGapMS.Valid() {
		gap := float64(res.FailoverGapMS)
		r.FailoverGapMS = &gap
	}
	if res.Workload == "contention" || res.Workload == "failover" {
		r.Fairness = res.Fairness
	}
	return r
}

// benchSingle measures reps single leases. Over UDP one cluster serves
// them all, one after the other, each on a fresh resource
// (EnvOptions.SingleReps), Duration bounding each; in the simulator each
// is its own run with seed, seed+1, ...
func benchSingle(s runner.Spec, eo udp.EnvOptions, key []byte, reps int, out benchOutput) (benchRun, error) {
	r := benchRun{Env: s.Env, Algo: s.Algo, Workload: "single", Acceptors: s.Acceptors, Proposers: s.Proposers,
		Leases: reps, RawUDPRTTUS: out.RawUDPRTTUS, RawDatagramsPerSec: out.RawDatagramsPerSec, Signed: key != nil}
	if out.RawUDPRTTUS > 0 {
		r.SingleBoundUS = 2*out.RawUDPRTTUS + 50
	}
	wall := time.Now()
	var err error
	if s.Env == "udp" {
		err = benchSingleUDP(&r, s, eo, key, reps)
	} else {
		err = benchSingleSim(&r, s, reps)
	}
	if errors.Is(err, runner.ErrBadSpec) {
		return r, badInput(err)
	}
	if err != nil {
		return r, err
	}
	r.WallMS = float64(time.Since(wall).Microseconds()) / 1e3
	if r.LatencyMS.N > 0 && out.RawUDPRTTUS > 0 {
		r.LatencyP50Over2RTT = r.LatencyMS.P50 * 1e3 / (2 * out.RawUDPRTTUS)
	}
	if r.WallMS > 0 {
		r.LeasesPerSec = float64(r.LeasesAcquired) / (r.WallMS / 1e3)
		if out.RawDatagramsPerSec > 0 {
			r.LeasesPerRawDatagram = r.LeasesPerSec / out.RawDatagramsPerSec
		}
		r.RawBatchedDatagramsPerSec = out.RawBatchedDatagramsPerSec
		if out.RawBatchedDatagramsPerSec > 0 {
			r.LeasesPerRawBatchedDatagram = r.LeasesPerSec / out.RawBatchedDatagramsPerSec
		}
	}
	return r, nil
}

func benchSingleUDP(r *benchRun, s runner.Spec, eo udp.EnvOptions, key []byte, reps int) error {
	eo.Key, eo.SingleReps = key, reps
	s.Duration *= time.Duration(reps)
	res, ex, err := udp.RunSpec(s, runner.Options{}, eo)
	if err != nil {
		return err
	}
	r.LeasesAcquired = res.LeasesAcquired
	r.LeasesFailed = res.LeasesFailed
	r.Timeouts = res.Timeouts
	r.Violations = res.Violations
	r.LatencyMS = res.LatencyMS
	r.Fsyncs = ex.Meters.Fsyncs
	r.FsyncLatencyMS = percentiles(ex.Meters.FsyncNS)
	r.BackgroundBytesPerS = ex.Background.BytesPerSec
	if n := float64(res.LeasesAcquired); n > 0 {
		r.MessagesPerLease = float64(ex.Meters.MsgsSent) / n
		r.DatagramsPerLease = float64(ex.Meters.DatagramsSent) / n
		r.BytesPerLease = float64(ex.Meters.BytesSent) / n
		r.FsyncsPerLease = float64(ex.Meters.Fsyncs) / n
	}
	return nil
}

func benchSingleSim(r *benchRun, s runner.Spec, reps int) error {
	var lat []int64
	var msgs int64
	for i := 0; i < reps; i++ {
		si := s
		si.Seed = s.Seed + uint64(i)
		res, err := runner.Run(si, runner.Options{})
		if err != nil {
			return err
		}
		r.LeasesFailed += res.LeasesFailed
		r.Timeouts += res.Timeouts
		r.Violations += res.Violations
		msgs += res.Messages
		if res.LeasesAcquired > 0 {
			lat = append(lat, int64(res.TimeToFirstLeaseMS*1e6))
		}
	}
	if len(lat) > 0 {
		r.MessagesPerLease = float64(msgs) / float64(len(lat))
		r.BytesPerLease = r.MessagesPerLease * 64
	}
	r.LeasesAcquired = len(lat)
	r.LatencyMS = percentiles(lat)
	return nil
}

// percentiles of ns values in ms: record.PercentilesMS, the one
// definition (nearest rank) every leaselab percentile uses.
func percentiles(ns []int64) runner.Percentiles { return record.PercentilesMS(ns) }

// benchKey is a fresh random key for --sign.
func benchKey() []byte {
	k := make([]byte, 32)
	crand.Read(k) // never fails (crypto/rand panics rather than return an error)
	return k
}

func writeBench(c *ctx, format string, out benchOutput) error {
	switch format {
	case "json":
		return writeJSON(c.stdout, out)
	case "benchstat":
		return writeBenchstat(c.stdout, out)
	}
	// The default table keeps to the columns that answer "how fast, and
	// did it work"; csv and markdown add the per-lease costs and the
	// ratios to the machine's raw limits.
	wide := format != "table"
	header := []string{"algo", "leases", "leases/s", "failed", "timeouts", "p50 ms", "p99 ms", "msgs/lease", "violations"}
	if wide {
		header = append([]string{"env", "workload"}, header...)
		header = append(header, "dgrams/lease", "bytes/lease", "p50/(2 RTT)", "leases/s / raw dgrams/s")
	}
	if out.Count > 1 {
		header = append([]string{"rep"}, header...)
	}
	signed := false
	for _, r := range out.Runs {
		signed = signed || r.Signed
	}
	if signed {
		header = append(header, "signed")
	}
	var rows [][]string
	for _, r := range out.Runs {
		row := []string{r.Algo, strconv.Itoa(r.Leases),
			fmt.Sprintf("%.0f", r.LeasesPerSec), strconv.Itoa(r.LeasesFailed), strconv.Itoa(r.Timeouts),
			fmt.Sprintf("%.3f", r.LatencyMS.P50), fmt.Sprintf("%.3f", r.LatencyMS.P99),
			fmt.Sprintf("%.2f", r.MessagesPerLease), strconv.Itoa(r.Violations)}
		if wide {
			row = append([]string{r.Env, r.Workload}, row...)
			opt := func(v float64, f string) string {
				if v == 0 {
					return "-" // the simulator has no datagrams and no raw limits
				}
				return fmt.Sprintf(f, v)
			}
			row = append(row, opt(r.DatagramsPerLease, "%.3f"), fmt.Sprintf("%.1f", r.BytesPerLease),
				opt(r.LatencyP50Over2RTT, "%.2f"), opt(r.LeasesPerRawDatagram, "%.3f"))
		}
		if out.Count > 1 {
			row = append([]string{strconv.Itoa(r.Rep + 1)}, row...)
		}
		if signed {
			row = append(row, strconv.FormatBool(r.Signed))
		}
		rows = append(rows, row)
	}
	switch format {
	case "csv":
		if err := writeMetaComment(c.stdout, out.Meta); err != nil {
			return err
		}
		return writeCSV(c.stdout, header, rows)
	case "markdown":
		if err := writeMarkdownTable(c.stdout, header, rows); err != nil {
			return err
		}
	default:
		if err := writeTable(c.stdout, header, rows); err != nil {
			return err
		}
	}
	writeBenchNotes(c, out)
	writePeerLines(c, out)
	if !wide {
		fmt.Fprintln(c.stdout, "(--format markdown or csv adds datagrams and bytes per lease and the ratios to the raw limits)")
	}
	return nil
}

// writeBenchstat prints every run as a Go benchmark result line, so that
// golang.org/x/perf/cmd/benchstat compares two bench outputs (with
// --count N it has N samples per point). The header lines are benchstat's
// configuration (goos, goarch, cpu count, revision). Names:
// BenchmarkBatch/env=udp/algo=paxoslease/leases=10000-P or
// BenchmarkSingle/env=udp/algo=paxoslease-P, P = GOMAXPROCS; one
// iteration each; the units: s/lease (1 / leases/s), leases/s, p50-ms and
// p99-ms (latency), msgs/lease, timeouts, failed.
// writeBenchNotes prints, below bench's table, the lines that compare
// with the machine's limits: the raw UDP round trip, the background
// writer, the single-lease bound, the cost of signing.
func writeBenchNotes(c *ctx, out benchOutput) {
	if out.RawUDPRTTUS > 0 {
		fmt.Fprintf(c.stdout, "raw loopback UDP: round trip %.1f us median (p90 %.1f us), %.0f datagrams/s (64 bytes, one sender, one receiver; %.0f with 64 a system call)\n",
			out.RawUDPRTTUS, out.RawUDPRTTP90US, out.RawDatagramsPerSec, out.RawBatchedDatagramsPerSec)
	}
	for _, r := range out.Runs {
		if r.BackgroundBytesPerS > 0 {
			fmt.Fprintf(c.stdout, "%s %d leases: background writer %.0f MB/s; fsync latency p50 %.3f ms, p99 %.3f ms (%d fsyncs)\n",
				r.Algo, r.Leases, r.BackgroundBytesPerS/1e6, r.FsyncLatencyMS.P50, r.FsyncLatencyMS.P99, r.Fsyncs)
		}
		if r.SingleBoundUS > 0 {
			fmt.Fprintf(c.stdout, "single lease median %.1f us vs 2 x raw RTT + 50 us = %.1f us\n", r.LatencyMS.P50*1e3, r.SingleBoundUS)
		}
		if r.Signed {
			for _, plain := range out.Runs {
				if !plain.Signed && plain.Rep == r.Rep && plain.Workload == r.Workload && plain.Leases == r.Leases && plain.LeasesPerSec > 0 {
					fmt.Fprintf(c.stdout, "signing, %s %d leases: %.0f leases/s signed vs %.0f plain (%+.1f%%), p50 %.3f vs %.3f ms\n",
						r.Workload, r.Leases, r.LeasesPerSec, plain.LeasesPerSec, 100*(r.LeasesPerSec/plain.LeasesPerSec-1),
						r.LatencyMS.P50, plain.LatencyMS.P50)
				}
			}
		}
	}
}

func writeBenchstat(w io.Writer, out benchOutput) error {
	if m := out.Meta; m != nil {
		fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: leaselab/cmd/leaselab\nrevision: %s\nnum_cpu: %d\n", m.GOOS, m.GOARCH, m.Revision, m.NumCPU)
	}
	procs := runtime.GOMAXPROCS(0)
	for _, r := range out.Runs {
		sig := ""
		if r.Signed {
			sig = "/signed=true"
		}
		name := fmt.Sprintf("BenchmarkBatch/env=%s/algo=%s%s/leases=%d-%d", r.Env, r.Algo, sig, r.Leases, procs)
		switch r.Workload {
		case "single":
			name = fmt.Sprintf("BenchmarkSingle/env=%s/algo=%s%s-%d", r.Env, r.Algo, sig, procs)
		case "contention", "failover": // --peer
			name = fmt.Sprintf("Benchmark%s/env=%s/algo=%s/proposers=%d-%d", strings.ToUpper(r.Workload[:1])+r.Workload[1:], r.Env, r.Algo, r.Proposers, procs)
		}
		perLease := 0.0
		if r.LeasesPerSec > 0 {
			perLease = 1 / r.LeasesPerSec
		}
		if _, err := fmt.Fprintf(w, "%s\t1\t%s s/lease\t%s leases/s\t%s p50-ms\t%s p99-ms\t%s msgs/lease\t%d timeouts\t%d failed\n",
			name, benchNum(perLease), benchNum(r.LeasesPerSec), benchNum(r.LatencyMS.P50), benchNum(r.LatencyMS.P99),
			benchNum(r.MessagesPerLease), r.Timeouts, r.LeasesFailed); err != nil {
			return err
		}
	}
	return nil
}

// benchNum prints a benchmark value with 6 significant digits.
func benchNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

package runner

import (
	"encoding/json"
	"math"

	"leaselab/algorithms"
	"leaselab/runner/checker"
)

// OptionalMS is a duration in milliseconds that may not apply to a run
// (no acquisition, no failover): a negative value or NaN means "not
// applicable" and marshals as JSON null (and prints empty in CSV, "-" in
// tables); null unmarshals back to -1.
type OptionalMS float64

// PendingAsk is a client request left unanswered: node Node asked for
// Resource at true time SinceMS.
type PendingAsk struct {
	Node     algorithms.NodeID     `json:"node"`
	Resource algorithms.ResourceID `json:"resource"`
	SinceMS  float64               `json:"since_ms"`
}

// None is the "not applicable" value.
const None OptionalMS = -1

// Valid reports whether the value applies.
func (v OptionalMS) Valid() bool { return v >= 0 && !math.IsInf(float64(v), 0) }

// MarshalJSON writes null when the value does not apply.
func (v OptionalMS) MarshalJSON() ([]byte, error) {
	if !v.Valid() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// UnmarshalJSON reads a number, or null as None.
func (v *OptionalMS) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = None
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = OptionalMS(f)
	return nil
}

// Percentiles of a distribution, in milliseconds (nearest rank, exact:
// computed from every sample).
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"` // the 99.9th percentile
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
}

// HistBucket is one bucket of a log-linear (HDR) histogram: Count
// values at most LE (and above the previous bucket's LE), in
// milliseconds.
type HistBucket struct {
	LE    float64 `json:"le_ms"`
	Count int64   `json:"count"`
}

// Throughput is acquisitions over the run's true time: LeasesPerSec[i]
// is the rate in [i·BucketNS, (i+1)·BucketNS) (the last bucket ends with
// the run). Buckets are a power of two milliseconds wide, between 128
// and 256 of them for a run longer than a quarter second.
type Throughput struct {
	BucketNS     int64     `json:"bucket_ns"`
	LeasesPerSec []float64 `json:"leases_per_sec"`
}

// Violation is one breach of the lease invariant, as the checker reports
// it.
type Violation = checker.Violation

// Result is what one run measured. The JSON keys are a public interface:
// scripts and the reproduce command read them.
type Result struct {
	// Meta: the provenance of the result (build, machine, start time),
	// filled by the command that prints it (runner.Run leaves it nil,
	// null in JSON). Every other key is always present too, zero or []
	// when it does not apply, so the schema is the same for every run.
	Meta *Meta `json:"meta"`

	Algo     string `json:"algo"`
	Workload string `json:"workload"`
	Env      string `json:"env"`
	Seed     uint64 `json:"seed"`
	// TraceHash identifies the run's full event trace: same spec and seed,
	// same hash (simulator only).
	TraceHash string `json:"trace_hash"`

	// LeasesAcquired: client Acquire requests answered by an Acquired
	// event of that node on that resource (extensions are not counted).
	LeasesAcquired int `json:"leases_acquired"`
	// LeasesFailed: Acquire requests that ended without a lease: a Failed
	// event, the requesting node's crash, the client watchdog (see Driver),
	// or (batch, single) still pending when the run ended.
	LeasesFailed int `json:"leases_failed"`
	// LeasesPerSec: batch and single: acquired / (last acquisition - first
	// request), FaTLease Sec. 5.1 (0 if that took no time); contention and
	// failover: acquired / SimulatedNS.
	LeasesPerSec float64 `json:"leases_per_sec"`
	// Latency: request to acquisition, of acquired leases (with an
	// open-loop load, Spec.Rate, from the request's arrival).
	LatencyMS Percentiles `json:"latency_ms"`
	// LatencyHistogram: the same latencies in an HDR histogram (under
	// 0.8% relative error per bucket), its non-empty buckets in order.
	LatencyHistogram []HistBucket `json:"latency_histogram"`
	// Throughput: acquisitions per second over the run.
	Throughput Throughput `json:"throughput"`
	// Timeouts: Timeout events (a phase without a majority in time).
	Timeouts int `json:"timeouts"`
	// BlockedFraction: over all resources, the time some node had an
	// Acquire pending while no node held the resource, divided by the time
	// some node had an Acquire pending (0 if never).
	BlockedFraction float64 `json:"blocked_fraction"`
	// TimeToFirstLeaseMS: from the first request to the first acquisition
	// (None, JSON null, if none).
	TimeToFirstLeaseMS OptionalMS `json:"time_to_first_lease_ms"`
	// StaticDeadlocks: episodes in which a node wanted a resource, nobody
	// held it, fewer than a majority of acceptors were free of live
	// blocking grants (Granted events of an algorithm with
	// Algorithm.GrantBlocks, until Cleared or Until) and no one proposal
	// had a majority of them, ended without a winner (see Recorder).
	StaticDeadlocks int `json:"static_deadlocks"`
	// StaticDeadlockFraction: the time in those episodes divided by the
	// time some node had an Acquire pending (0 if never);
	// StaticDeadlockMS: that time in ms.
	StaticDeadlockFraction float64 `json:"static_deadlock_fraction"`
	StaticDeadlockMS       float64 `json:"static_deadlock_ms"`
	// Preemptions: Preempted events (rounds lost to a higher ballot).
	Preemptions int `json:"preemptions"`
	// PreemptionChains[k] counts requests (acquired or failed) during
	// which the node reported k Preempted events.
	PreemptionChains map[int]int `json:"preemption_chains"`
	// Messages: messages handed to the network (a node's messages to
	// itself are not counted; duplicates made by the network are not
	// either). Per lease: divided by LeasesAcquired (0 if none); bytes are
	// WireSize per message.
	MessagesPerLease float64 `json:"messages_per_lease"`
	BytesPerLease    float64 `json:"bytes_per_lease"`
	Messages         int64   `json:"messages"`
	// FailoverGapMS: failover workload, from the holder's crash to the next
	// acquisition by another node (None, JSON null, if none or not the
	// failover workload).
	FailoverGapMS OptionalMS `json:"failover_gap_ms"`
	// OwnerChanges: hold intervals that started with an owner different
	// from the previous holder of the resource.
	OwnerChanges int `json:"owner_changes"`
	// HandoffsPerSec: OwnerChanges per second of the run (contention and
	// failover workloads; 0 for batch and single). A holder that wins its
	// lease back adds to LeasesPerSec, not here.
	HandoffsPerSec float64 `json:"handoffs_per_sec"`
	// LeasesByNode[i]: the leases node i's client acquired (LeasesAcquired
	// split by node), up to the highest node that asked for one.
	// Fairness: Jain's index of LeasesByNode over the nodes whose client
	// asked for a lease, (Σx)² / (k·Σx²): 1 when each of the k got as many
	// leases as the others, 1/k when one got them all; 0 if none acquired.
	// Hand-offs per second alone cannot tell sixteen clients taking turns
	// from two of them passing the lease back and forth while fourteen
	// starve.
	LeasesByNode []int   `json:"leases_by_node"`
	Fairness     float64 `json:"fairness"`

	// Disk meters (zero for the diskless algorithms, which is the point).
	// DiskBytes: records written (synced or not) times DiskRecordSize in
	// the simulator, bytes the log wrote in the udp environment (its
	// compactions included); per second of SimulatedNS.
	Fsyncs         int64       `json:"fsyncs"`
	FsyncsPerLease float64     `json:"fsyncs_per_lease"`
	DiskBytes      int64       `json:"disk_bytes"`
	DiskBytesPerS  float64     `json:"disk_bytes_per_sec"`
	FsyncLatencyMS Percentiles `json:"fsync_latency_ms"`
	// BackgroundBytesPerS: with Spec.Disk.Background in the udp
	// environment, the bytes/s the real background writer wrote to the
	// run's disk directory while the run lasted (runner/udp/background.go).
	// Zero otherwise: the simulator models the writer's
	// effect on fsync latency, not the writer.
	BackgroundBytesPerS float64 `json:"background_bytes_per_sec"`

	// What the campaign faults of the simulator and the contention
	// clients did that no other meter shows (zero unless the spec asks
	// for them). StaleDelivered: messages held back as
	// stale (NetSpec.Stale) that reached a live receiver.
	// GiveupsMidRound: acquisitions a client abandoned before any lease
	// came (Spec.Giveup). Extensions: Extend inputs of contention clients
	// (Spec.Extend). ExtendReleases: releases of a lease the client had
	// extended or was extending; ReleasesMidExtension: those of them sent
	// while the extension was still unanswered.
	StaleDelivered       int64 `json:"stale_delivered"`
	GiveupsMidRound      int   `json:"giveups_mid_round"`
	Extensions           int   `json:"extensions"`
	ExtendReleases       int   `json:"extend_releases"`
	ReleasesMidExtension int   `json:"releases_mid_extension"`
	// Unanswered: with Spec.Settle, the requests still pending (neither
	// Acquired nor Failed; a crash fails its node's) when the settle
	// stretch ran out, a liveness failure; UnansweredList: the first 20
	// of them. DrainMS: how long after Duration the last request was
	// answered and the last hold ended (None: Settle 0, or it never
	// happened within Settle).
	Unanswered     int          `json:"unanswered"`
	UnansweredList []PendingAsk `json:"unanswered_list"`
	DrainMS        OptionalMS   `json:"drain_ms"`
	// Pauses: process pauses (FaultSpec.PauseRate, a scenario's pause);
	// ClockJumps: clock-jump episodes (ClockSpec.Jumps).
	Pauses     int `json:"pauses"`
	ClockJumps int `json:"clock_jumps"`

	// The protected store (Spec.Writes, Spec.Store). Writes: writes that
	// reached the store. StaleWrites: writes it accepted from a node whose
	// lease had ended in true time, after it had accepted a write made
	// under a later lease (one that began after the writer's): the writes
	// that overwrite a later holder's, what fencing tokens exist to stop.
	// FencedRejects: writes the fenced store rejected, their token below
	// the highest it had accepted. DoubleBeliefMS: true time in which two
	// nodes believed they held the same resource (summed over resources):
	// the checker's overlaps, and also a paused node's belief, which lasts
	// until it resumes and reads its clock, beside a later holder's.
	// LiveRejects: of FencedRejects, those of a node whose lease was
	// current: its token was below an earlier holder's, the claim that
	// tokens grow (Algorithm.Fencing) broken.
	Writes        int64 `json:"writes"`
	StaleWrites   int64 `json:"stale_writes"`
	FencedRejects int64 `json:"fenced_rejects"`
	LiveRejects   int64 `json:"live_rejects"`
	// TokenTies: accepted writes that carried the highest token another
	// node's write had set: two holders with one token, which the store
	// cannot order (a late write of the earlier one would be accepted).
	TokenTies      int64   `json:"token_ties"`
	DoubleBeliefMS float64 `json:"double_belief_ms"`

	// Violations: overlaps of hold intervals of different owners (see
	// Checker); ViolationList has the first 100 in detail.
	Violations     int         `json:"violations"`
	ViolationList  []Violation `json:"violation_list"`
	Crashes        int         `json:"crashes"`
	PartitionCount int         `json:"partitions"`
	// SimulatedNS: true time covered by the run.
	SimulatedNS int64 `json:"simulated_ns"`
	// WallMS: how long the run took on this machine.
	WallMS float64 `json:"wall_ms"`
	// Interrupted: Options.Stop ended the run before its end; the meters
	// cover the run up to SimulatedNS.
	Interrupted bool `json:"interrupted"`

	Params Spec `json:"params"`
}

// JainIndex is Jain's fairness index of the counts of the k takers that
// asked (asked[i]; all of them if asked is nil): (Σx)² / (k·Σx²), in
// [1/k, 1]; 0 when they got nothing.
func JainIndex(counts []int, asked []bool) float64 {
	var sum, sq float64
	k := 0
	for i, c := range counts {
		if asked != nil && (i >= len(asked) || !asked[i]) {
			continue
		}
		k++
		sum += float64(c)
		sq += float64(c) * float64(c)
	}
	if asked != nil {
		for i := len(counts); i < len(asked); i++ {
			if asked[i] {
				k++ // asked, got nothing
			}
		}
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(k) * sq)
}

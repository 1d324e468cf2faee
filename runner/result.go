package runner

import "leaselab/algorithms"

// Percentiles of a distribution, in milliseconds.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
}

// Violation is one breach of the lease invariant: two different owners
// believed they held Resource during the same stretch of true time.
type Violation struct {
	Resource  algorithms.ResourceID `json:"resource"`
	Owners    [2]algorithms.NodeID  `json:"owners"`
	Ballots   [2]algorithms.Ballot  `json:"ballots"`
	StartNS   int64                 `json:"start_ns"` // true time the overlap began
	OverlapNS int64                 `json:"overlap_ns"`
	Seed      uint64                `json:"seed"`
}

// Result is what one run measured. The JSON keys are a public interface:
// scripts and the reproduce command read them.
type Result struct {
	Algo     string `json:"algo"`
	Workload string `json:"workload"`
	Env      string `json:"env"`
	Seed     uint64 `json:"seed"`
	// TraceHash identifies the run's full event trace: same spec and seed,
	// same hash (simulator only).
	TraceHash string `json:"trace_hash"`

	LeasesAcquired int     `json:"leases_acquired"`
	LeasesFailed   int     `json:"leases_failed"`
	LeasesPerSec   float64 `json:"leases_per_sec"`
	// Latency: request to acquisition, of acquired leases.
	LatencyMS       Percentiles `json:"latency_ms"`
	Timeouts        int         `json:"timeouts"`
	BlockedFraction float64     `json:"blocked_fraction"`
	// TimeToFirstLeaseMS: from the first request to the first acquisition
	// (-1 if none).
	TimeToFirstLeaseMS float64 `json:"time_to_first_lease_ms"`
	StaticDeadlocks    int     `json:"static_deadlocks"`
	Preemptions        int     `json:"preemptions"`
	// PreemptionChains[k] counts acquisitions (or abandoned attempts) that
	// lost k rounds in a row to higher ballots before they ended.
	PreemptionChains map[int]int `json:"preemption_chains"`
	MessagesPerLease float64     `json:"messages_per_lease"`
	BytesPerLease    float64     `json:"bytes_per_lease"`
	Messages         int64       `json:"messages"`
	// FailoverGapMS: failover workload, from the holder's crash to the next
	// acquisition by another node (-1 if none).
	FailoverGapMS float64 `json:"failover_gap_ms"`
	// OwnerChanges: hold intervals that started with an owner different
	// from the previous holder of the resource.
	OwnerChanges int `json:"owner_changes"`

	// Disk meters (zero for the diskless algorithms, which is the point).
	Fsyncs         int64       `json:"fsyncs"`
	FsyncsPerLease float64     `json:"fsyncs_per_lease"`
	DiskBytes      int64       `json:"disk_bytes"`
	DiskBytesPerS  float64     `json:"disk_bytes_per_sec"`
	FsyncLatencyMS Percentiles `json:"fsync_latency_ms"`

	Violations     int         `json:"violations"`
	ViolationList  []Violation `json:"violation_list,omitempty"`
	Crashes        int         `json:"crashes"`
	PartitionCount int         `json:"partitions"`
	// SimulatedNS: true time covered by the run.
	SimulatedNS int64 `json:"simulated_ns"`
	// WallMS: how long the run took on this machine.
	WallMS float64 `json:"wall_ms"`

	Params Spec `json:"params"`
}

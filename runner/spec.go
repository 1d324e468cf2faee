package runner

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"leaselab/algorithms"
)

// Spec is everything that determines a run. A Spec and its seed reproduce a
// simulated run exactly; Result.Params carries the Spec back out so any
// result can be re-run.
type Spec struct {
	Algo      string               `json:"algo"`
	Ablate    algorithms.Ablations `json:"ablate"`
	Workload  string               `json:"workload"`
	Env       string               `json:"env"`
	Acceptors int                  `json:"acceptors"`
	Proposers int                  `json:"proposers"`
	Params    algorithms.Params    `json:"protocol"`
	Seed      uint64               `json:"seed"`

	// Duration: how long the contention and failover workloads run (true
	// time); for batch and single, the limit after which unfinished requests
	// count as failed.
	Duration time.Duration `json:"duration_ns"`
	// Settle: contention only, simulator only; 0: none. After Duration
	// the run goes on for up to Settle of quiet: no fault starts (the
	// episodes under way end as drawn; messages sent from then on are
	// neither lost, duplicated, reordered, stalled nor late), no client
	// asks for a new lease and the client watchdog gives up on nobody.
	// The run ends as soon as no client wants or holds a lease; a
	// request still unanswered at the end of Settle is counted
	// (Result.Unanswered): a liveness failure, since after the faults a
	// correct algorithm answers every request, Acquired or Failed.
	Settle time.Duration `json:"settle_ns"`
	// Leases: batch size (batch workload).
	Leases int `json:"leases"`
	// Rate: batch only; requests per second of an open-loop load: the
	// Leases requests arrive as a Poisson process of this rate (until
	// Duration), spread round-robin over the proposers, each for a
	// resource of its own, whatever the answers to earlier ones; 0: all
	// at once from proposer 0 (see runner/workload).
	Rate float64 `json:"rate_per_sec"`
	// Hold: how long a contention client keeps a lease before it releases it
	// (0: never release, let it expire). Pause: upper bound of the random
	// think time before the next attempt.
	Hold  time.Duration `json:"hold_ns"`
	Pause time.Duration `json:"pause_ns"`
	// Release: contention clients release after Hold (true) or let the lease
	// expire (false).
	Release bool `json:"release"`
	// RenewBefore: a holder that keeps its lease (failover) extends this long
	// before its local expiry.
	RenewBefore time.Duration `json:"renew_before_ns"`
	// Resources: contention clients pick the resource of each attempt
	// uniformly among 0..Resources-1 (0 or 1: resource 0 only), so several
	// resources are contended by several proposers at once.
	Resources int `json:"resources"`
	// Giveup: contention only; the probability that a client abandons an
	// acquisition mid-round: it sends Relinquish at a time uniform
	// in [0, 2*RTT] after its Acquire unless the lease came first, while
	// the round's prepare / propose messages are still in flight.
	Giveup float64 `json:"giveup"`
	// Extend: contention only; the probability that a client, once it
	// holds a lease, extends it and then ends it as it would have
	// (release after Hold, counted from the acquisition, or expiry). The
	// extension comes at a time uniform in [0, half the time left], or,
	// for half the leases to be released, within 2*RTT before the
	// release, which then meets the extension in flight (see Driver).
	Extend float64 `json:"extend"`
	// Writes: a holder writes to the protected store (Store) every Writes
	// while it believes it holds (contention and failover clients; 0: no
	// writes). Each write follows a check of the lease made Writes
	// earlier, and goes out only if the lease then had at least Writes to
	// run: the "check, work, write" of a lease user, where a process pause
	// between the check and the write makes the write late.
	Writes time.Duration `json:"writes_ns"`
	// Store: what the protected store checks: "plain" (or "") accepts every write,
	// "fenced" rejects a write whose fencing token (algorithms.Token of
	// the lease it was made under) is below the highest it accepted.
	Store string `json:"store"`
	// LockDelay: a lease that expires cannot be taken again for this long
	// (Chubby's and Consul's lock-delay): the holder's client is told its
	// lease ends LockDelay before the algorithm's Until, while the
	// acceptors keep it to the end. A release frees it at once.
	LockDelay time.Duration `json:"lock_delay_ns"`

	Net    NetSpec   `json:"net"`
	Clocks ClockSpec `json:"clocks"`
	Faults FaultSpec `json:"faults"`
	Disk   DiskSpec  `json:"disk"`
}

// NetSpec describes every link.
type NetSpec struct {
	RTT     time.Duration `json:"rtt_ns"`    // round trip; one way is half
	Jitter  time.Duration `json:"jitter_ns"` // one-way delay varies uniformly by up to this
	Loss    float64       `json:"loss"`      // probability a message is dropped
	Dup     float64       `json:"dup"`       // probability a message is delivered twice
	Reorder float64       `json:"reorder"`   // probability a message is held back by up to 2*RTT extra
	// Stale: link stalls per directed link per minute (Poisson; simulator
	// only). A stall lasts uniform in [0, StaleSpans lease spans]; the
	// messages sent on the link meanwhile arrive when it ends, in send
	// order: stale messages, a Propose or a Release seconds late.
	Stale      float64 `json:"stale_per_min"`
	StaleSpans float64 `json:"stale_max_spans"`
	// Late: the probability that a message is held back alone, uniform
	// in [0, StaleSpans lease spans] on top of its delay (simulator only),
	// so later messages on its link overtake it: a datagram stuck in a
	// queue, or replayed, after its sender crashed and came back.
	Late float64 `json:"late"`
	// Bandwidth limits bytes/s leaving each node (0: unlimited), for the
	// WAN experiment.
	Bandwidth int64 `json:"bandwidth_bytes_per_sec"`
	// Datagram bounds the UDP datagrams a node sends, in bytes (0: the
	// environment's default). Messages to the same peer share a datagram
	// up to this size; MinDatagram (header + one message) sends every
	// message alone. Only the udp environment has datagrams; the simulator
	// moves single messages and ignores it.
	Datagram int `json:"datagram_bytes"`
}

// The datagram bounds are part of the API (NetSpec.Datagram); the codec
// (runner/udp/wire) checks in a test that its layout agrees with them.
const (
	// DatagramHeader is the size of a datagram's header.
	DatagramHeader = 8
	// MinDatagram is room for the header and one message
	// (WireSize): a node at this size sends every message
	// alone.
	MinDatagram = DatagramHeader + WireSize
	// MaxDatagram is the largest UDP payload over IPv4 (65535 - 20 - 8).
	MaxDatagram = 65507
)

// ClockSpec describes the nodes' clocks, which the algorithms see and the
// runner maps to true time.
type ClockSpec struct {
	// Skew: each node's offset is drawn uniformly in [-Skew/2, Skew/2] and
	// kept there (see Drift), so two clocks differ by at most Skew for the
	// whole run.
	Skew time.Duration `json:"skew_ns"`
	// Drift: each node's rate error is drawn uniformly in [-Drift, Drift]
	// (0.001 = the clock gains or loses 1 ms per second). With Skew > 0 a
	// clock whose offset reaches ±Skew/2 turns its rate error round, as NTP
	// slews a clock; with Skew 0 clocks run free and drift apart.
	Drift float64 `json:"drift"`
	// Free: clocks run free whatever Skew is: each keeps its drawn rate
	// error for the whole run and is never slewed back, so Skew bounds
	// the offsets at true time 0 only.
	Free bool `json:"free_clocks"`
	// Edges: each clock's offset is -Skew/2 or +Skew/2 and its rate
	// error -Drift or +Drift (signs drawn), instead of uniform in between:
	// the extremes, where clock assumptions break.
	Edges bool `json:"clock_edges"`
	// Jumps: clock-jump episodes per node per minute (Poisson; simulator
	// only), the shapes of Jepsen's clock nemesis. Each moves the node's
	// clock by a step drawn uniformly in [-JumpMax, JumpMax] for a time
	// drawn uniformly in [JumpLen/2, JumpLen]: with Strobe 0 it stays
	// there and then steps back (bump, then reset); with Strobe > 0 it
	// steps there and back every Strobe (strobe).
	Jumps   float64       `json:"clock_jumps_per_min"`
	JumpMax time.Duration `json:"clock_jump_max_ns"`
	JumpLen time.Duration `json:"clock_jump_len_ns"`
	Strobe  time.Duration `json:"clock_strobe_ns"`
}

// FaultSpec describes crashes and partitions.
type FaultSpec struct {
	// CrashRate: crashes per node per minute of true time (Poisson).
	CrashRate float64 `json:"crash_rate_per_min"`
	// Downtime: how long a crashed node stays down before it restarts
	// (drawn uniformly in [Downtime/2, Downtime]).
	Downtime time.Duration `json:"downtime_ns"`
	// Partitions: partition episodes per minute; each splits the nodes in
	// two random groups for PartitionLen (uniform in [len/2, len]).
	Partitions   float64       `json:"partitions_per_min"`
	PartitionLen time.Duration `json:"partition_len_ns"`
	// PauseRate: process pauses per node per minute (Poisson; a garbage
	// collection, a VM freeze, an fsync stall): a paused node does
	// nothing (no timer fires, no message or input is handled; they wait)
	// and resumes with its clock having run on. A pause lasts uniformly
	// in [0, PauseMax].
	PauseRate float64       `json:"pause_rate_per_min"`
	PauseMax  time.Duration `json:"pause_max_ns"`
}

// DiskSpec is the simulated disk of classic Paxos and the real log's mode.
type DiskSpec struct {
	// FsyncLatency: mean latency of one fsync in the simulator.
	FsyncLatency time.Duration `json:"fsync_latency_ns"`
	// GroupCommit: records that arrive while a sync is in progress are
	// written and synced together (FaTLease Sec. 5's "extra thread").
	GroupCommit bool `json:"group_commit"`
	// Background: a background writer saturates the disk (Fig. 10).
	Background bool `json:"background_writer"`
	// Dir: where the udp environment keeps the real log files.
	Dir string `json:"disk_dir"`
}

// MinResponseTimeout is the default response timeout on fast networks
// (FaTLease Sec. 5: 1 s).
const MinResponseTimeout = time.Second

// WorstRoundTrip is the longest round trip the network n makes without
// faults: two one-way delays of RTT/2 + Jitter.
func WorstRoundTrip(n NetSpec) time.Duration { return n.RTT + 2*n.Jitter }

// DefaultResponseTimeout is the response timeout the command line uses
// when none is given: 1 s (FaTLease's), or twice the worst round trip
// (WorstRoundTrip) if that is longer, so that on a slow network a phase
// does not time out at the instant its answers arrive. With RTT 1 s and
// jitter 0.2 ms it is 2.0008 s.
func DefaultResponseTimeout(n NetSpec) time.Duration {
	return max(MinResponseTimeout, 2*WorstRoundTrip(n))
}

// DefaultSpec is the command line's default: every parameter's Default
// (the table in params.go).
func DefaultSpec() Spec {
	var s Spec
	for _, p := range params {
		p.setDefault(&s)
	}
	return s
}

func checkProb(name string, p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return fmt.Errorf("%s must be a probability in [0, 1], got %g", name, p)
	}
	return nil
}

// Validate checks s, including the algorithm's own constraints and what
// its environment supports, and says what is wrong. Nothing is clamped.
// Resolve does the same and keeps what it looked up.
func (s Spec) Validate() error {
	_, err := Resolve(s)
	return err
}

// check checks s for algorithm a; the names are resolved.
func (s Spec) check(a algorithms.Algorithm) error {
	if math.IsNaN(s.Params.Drift) {
		// Params.Validate's range test lets NaN through (every comparison
		// with NaN is false), and so might an algorithm's Check.
		return fmt.Errorf("drift bound must be in [0, 0.5), got NaN")
	}
	if err := a.ValidateConfig(s.Params, algorithms.NewCluster(s.Acceptors, s.Proposers), s.Ablate); err != nil {
		return err
	}
	for _, p := range []struct {
		n string
		v float64
	}{{"loss", s.Net.Loss}, {"dup", s.Net.Dup}, {"reorder", s.Net.Reorder},
		{"giveup", s.Giveup}, {"extend", s.Extend}, {"late", s.Net.Late}} {
		if err := checkProb(p.n, p.v); err != nil {
			return err
		}
	}
	if err := s.checkRun(); err != nil {
		return err
	}
	if err := s.checkFaults(); err != nil {
		return err
	}
	return s.checkNew()
}

// checkRun checks the run's length, load and network.
func (s Spec) checkRun() error {
	switch {
	case math.IsInf(s.Faults.CrashRate, 0) || math.IsInf(s.Faults.Partitions, 0) || math.IsInf(s.Net.Stale, 0):
		return fmt.Errorf("crash, partition and stall rates must be finite")
	case math.IsNaN(s.Net.Stale) || s.Net.Stale < 0:
		return fmt.Errorf("stale (link stalls per minute) must not be negative, got %g", s.Net.Stale)
	case s.Net.Loss == 1:
		return fmt.Errorf("loss 1 drops every message; nothing can be measured")
	case s.Duration <= 0:
		return fmt.Errorf("duration must be positive, got %v", s.Duration)
	case s.Workload == "batch" && s.Leases < 1:
		return fmt.Errorf("batch needs --leases >= 1, got %d", s.Leases)
	case math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0) || s.Rate < 0:
		return fmt.Errorf("rate must be a finite number of requests per second >= 0, got %g", s.Rate)
	case s.Rate > 0 && s.Workload != "batch":
		return fmt.Errorf("rate (open-loop arrivals) is for the batch workload, whose requests are independent; the %s workload's clients wait for each answer", s.Workload)
	case s.Net.RTT < 0 || s.Net.Jitter < 0:
		return fmt.Errorf("rtt and jitter must not be negative")
	case 2*s.Net.Jitter > s.Net.RTT:
		return fmt.Errorf("jitter %v is more than half the round trip %v: a one-way delay of RTT/2 ± jitter would go below zero "+
			"(nothing is clamped; raise --rtt to at least %v or lower --jitter to at most %v)", s.Net.Jitter, s.Net.RTT, 2*s.Net.Jitter, s.Net.RTT/2)
	case s.Params.ResponseTimeout <= WorstRoundTrip(s.Net):
		return fmt.Errorf("response timeout %v is not longer than a round trip plus jitter (%v = rtt %v + 2 × jitter %v): "+
			"every phase would time out before its answers could arrive (leave --response-timeout out for the default, %v here)",
			s.Params.ResponseTimeout, WorstRoundTrip(s.Net), s.Net.RTT, s.Net.Jitter, DefaultResponseTimeout(s.Net))
	case s.Net.Bandwidth < 0:
		return fmt.Errorf("bandwidth must not be negative")
	case s.Net.Datagram != 0 && (s.Net.Datagram < MinDatagram || s.Net.Datagram > MaxDatagram):
		return fmt.Errorf("datagram size must be 0 (the environment's default) or in [%d, %d] bytes "+
			"(the %d-byte header and one %d-byte message, up to the largest UDP payload over IPv4), got %d",
			MinDatagram, MaxDatagram, DatagramHeader, WireSize, s.Net.Datagram)
	}
	return nil
}

// checkFaults checks the clocks, faults, client behaviours and link
// stalls.
func (s Spec) checkFaults() error {
	switch {
	case s.Clocks.Skew < 0:
		return fmt.Errorf("skew must not be negative, got %v", s.Clocks.Skew)
	case math.IsNaN(s.Clocks.Drift) || s.Clocks.Drift < 0 || s.Clocks.Drift >= 0.5:
		return fmt.Errorf("clock drift must be in [0, 0.5), got %g", s.Clocks.Drift)
	case math.IsNaN(s.Faults.CrashRate) || s.Faults.CrashRate < 0:
		return fmt.Errorf("crash rate must not be negative, got %g", s.Faults.CrashRate)
	case math.IsNaN(s.Faults.Partitions) || s.Faults.Partitions < 0:
		return fmt.Errorf("partition rate must not be negative, got %g", s.Faults.Partitions)
	case s.Faults.CrashRate > 0 && s.Faults.Downtime <= 0:
		return fmt.Errorf("crashes need a positive downtime")
	case s.Faults.Partitions > 0 && s.Faults.PartitionLen <= 0:
		return fmt.Errorf("partitions need a positive length")
	case s.Hold < 0 || s.Pause < 0 || s.RenewBefore < 0:
		return fmt.Errorf("hold, pause and renew-before must not be negative")
	case s.Disk.FsyncLatency < 0:
		return fmt.Errorf("fsync latency must not be negative")
	case math.IsNaN(s.Net.StaleSpans) || math.IsInf(s.Net.StaleSpans, 0) || s.Net.StaleSpans < 0:
		return fmt.Errorf("stale-max must be a finite number of lease spans >= 0, got %g", s.Net.StaleSpans)
	case s.Net.Stale > 0 && s.Net.StaleSpans == 0:
		return fmt.Errorf("stale messages need a positive stale-max (lease spans they may be held back)")
	case s.Net.Late > 0 && s.Net.StaleSpans == 0:
		return fmt.Errorf("late messages need a positive stale-max (lease spans they may be held back)")
	case s.Net.StaleSpans*float64(s.Params.LeaseSpan) > float64(24*time.Hour):
		return fmt.Errorf("stale-max %g lease spans is more than a day (%v)", s.Net.StaleSpans, time.Duration(s.Net.StaleSpans*float64(s.Params.LeaseSpan)))
	case s.Resources < 0:
		return fmt.Errorf("resources must not be negative, got %d", s.Resources)
	case s.Resources > 1 && s.Workload != "contention":
		return fmt.Errorf("resources > 1 is for the contention workload only (batch has --leases)")
	case (s.Giveup > 0 || s.Extend > 0) && s.Workload != "contention":
		return fmt.Errorf("giveup and extend are behaviours of contention clients, not of the %s workload", s.Workload)
	case s.Settle < 0:
		return fmt.Errorf("settle must not be negative, got %v", s.Settle)
	case s.Settle > 0 && s.Workload != "contention":
		return fmt.Errorf("settle is for the contention workload only (its clients stop asking; a %s run already ends with every request answered or failed)", s.Workload)
	case s.Settle > 0 && s.Env != "" && s.Env != "sim":
		return fmt.Errorf("settle is simulator only (--env sim), not %s", s.Env)
	}
	return nil
}

// checkNew checks the process pauses, clock jumps, the protected store
// and the lock-delay.
func (s Spec) checkNew() error {
	f, c := s.Faults, s.Clocks
	switch {
	case math.IsNaN(f.PauseRate) || math.IsInf(f.PauseRate, 0) || f.PauseRate < 0:
		return fmt.Errorf("pause rate must be a finite number >= 0, got %g", f.PauseRate)
	case f.PauseMax < 0:
		return fmt.Errorf("pause-max must not be negative, got %v", f.PauseMax)
	case f.PauseRate > 0 && f.PauseMax == 0:
		return fmt.Errorf("pauses need a positive --pause-max (the longest pause)")
	case math.IsNaN(c.Jumps) || math.IsInf(c.Jumps, 0) || c.Jumps < 0:
		return fmt.Errorf("clock-jumps must be a finite number >= 0, got %g", c.Jumps)
	case c.JumpMax < 0 || c.JumpLen < 0 || c.Strobe < 0:
		return fmt.Errorf("clock-jump-max, clock-jump-len and clock-strobe must not be negative")
	case c.Jumps > 0 && (c.JumpMax == 0 || c.JumpLen == 0):
		return fmt.Errorf("clock jumps need a positive --clock-jump-max (the largest step) and --clock-jump-len (how long an episode lasts)")
	case c.JumpMax > 24*time.Hour:
		return fmt.Errorf("clock-jump-max %v is more than a day", c.JumpMax)
	case s.Writes < 0:
		return fmt.Errorf("writes must not be negative, got %v", s.Writes)
	case s.Store != "" && !slices.Contains(Stores, s.Store):
		return fmt.Errorf("unknown store %q (valid: %s)", s.Store, strings.Join(Stores, ", "))
	case s.Writes > 0 && s.Workload != "contention" && s.Workload != "failover":
		return fmt.Errorf("writes are made by contention and failover clients that hold a lease, not by the %s workload", s.Workload)
	case s.Writes > 0 && s.Writes >= s.Params.LeaseSpan:
		return fmt.Errorf("write period %v must be shorter than the lease span %v (a write goes out only if the lease had that long to run)", s.Writes, s.Params.LeaseSpan)
	case s.LockDelay < 0 || s.LockDelay >= s.Params.LeaseSpan:
		return fmt.Errorf("lock-delay %v must be in [0, lease span %v)", s.LockDelay, s.Params.LeaseSpan)
	}
	return nil
}

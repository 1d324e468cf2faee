// Package etcd runs leaselab's workloads against etcd's leases and locks
// (go.etcd.io/etcd/client/v3/concurrency: a Session with a TTL, a Mutex
// per resource), so that users can compare a lease algorithm with what
// they already run. The meters are leaselab's: leases/s, latency
// percentiles, owner changes (hand-offs), the failover gap, failed
// requests, and the lease-invariant checker on the hold intervals the
// clients observe.
//
// The etcd client and server are large, so the code that imports them is
// built only with the build tag etcd:
//
//	go build -tags etcd ./cmd/leaselab
//
// Without the tag, Available reports false and Run returns ErrNotBuilt;
// this file (no tag) holds what both builds share: the configuration and
// the meters, computed from the clients' observations.
//
// A client holds resource r from the instant its Mutex.Lock on r returns
// until it calls Unlock (or its session ends, or it crashes). Times are
// wall-clock nanoseconds since the start of the run, read under one lock,
// so the checker sees them in order.
package etcd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/checker"
	"leaselab/runner/record"
)

// ErrNotBuilt: this binary was built without the etcd build tag.
var ErrNotBuilt = errors.New("etcd peer not built in: rebuild with 'go build -tags etcd ./cmd/leaselab'")

// Workloads Run knows, as in leaselab's runner (see Config).
var Workloads = []string{"batch", "single", "contention", "failover"}

// Config is one run against etcd.
//
// Workloads (resources are keys Prefix/<run>/<id>):
//   - batch: client 0, one session, locks Leases distinct resources, all
//     requested at once (at most Window Lock calls in flight; the rest
//     wait, and their latency includes the wait, as in leaselab's batch).
//     Holds last until the run ends.
//   - single: client 0 locks Reps resources one after the other, each
//     fresh, and unlocks each at once.
//   - contention: Proposers clients, each with its own connection and
//     session, loop until Duration: lock a resource (uniform among
//     0..Resources-1), hold it for Hold, unlock, pause uniform [0, Pause].
//   - failover: client 0 locks resource 0; at its first keep-alive at or
//     after Duration/4 it crashes (closes its connection without revoking
//     its lease, so the lease must expire). Clients 1..Proposers-1 then
//     call Lock on resource 0; the failover gap is the crash to the first
//     of them holding it. The run ends at that acquisition (or at
//     Duration, if no one got it).
type Config struct {
	Workload string `json:"workload"`
	// Endpoints of an existing cluster (host:port); empty: start an
	// embedded cluster of Members members on loopback in a temporary
	// directory under Dir ("" = the system's), fsync on, removed after.
	Endpoints []string `json:"endpoints,omitempty"`
	Members   int      `json:"members"`
	Dir       string   `json:"dir,omitempty"`
	// Prefix of every key the run writes (a run-unique part follows).
	Prefix    string        `json:"prefix"`
	Leases    int           `json:"leases"`    // batch
	Window    int           `json:"window"`    // batch: Lock calls in flight at once
	Reps      int           `json:"reps"`      // single
	Proposers int           `json:"proposers"` // contention, failover: clients
	Resources int           `json:"resources"` // contention
	Hold      time.Duration `json:"hold_ns"`   // contention
	Pause     time.Duration `json:"pause_ns"`  // contention
	// TTL of every session in whole seconds (etcd's unit); the server
	// raises a TTL below its minimum (1.5 election timeouts, rounded up:
	// 2 s with the default 1 s election timeout).
	TTL int `json:"ttl_s"`
	// Duration: batch and single, a bound (requests unfinished then count
	// as failed); contention, the length of the run; failover, the bound.
	Duration time.Duration `json:"duration_ns"`
	Seed     uint64        `json:"seed"`
	// Progress, if set, is told the fraction done (batch).
	Progress func(float64) `json:"-"`
}

// DefaultConfig is a batch of 1000 on an embedded 3-member cluster.
func DefaultConfig() Config {
	return Config{
		Workload: "batch", Members: 3, Prefix: "/leaselab",
		Leases: 1000, Window: 1024, Reps: 1000, Proposers: 16, Resources: 1,
		TTL: 2, Duration: 120 * time.Second, Seed: 1,
	}
}

// Validate reports the first bad field.
func (c Config) Validate() error {
	if !slices.Contains(Workloads, c.Workload) {
		return fmt.Errorf("etcd peer: workload %q: want one of %v", c.Workload, Workloads)
	}
	switch {
	case len(c.Endpoints) == 0 && c.Members < 1:
		return fmt.Errorf("etcd peer: an embedded cluster needs at least 1 member, got %d", c.Members)
	case c.Workload == "batch" && c.Leases < 1:
		return fmt.Errorf("etcd peer: batch needs --leases of at least 1, got %d", c.Leases)
	case c.Workload == "batch" && c.Window < 1:
		return fmt.Errorf("etcd peer: --window must be at least 1, got %d", c.Window)
	case c.Workload == "single" && c.Reps < 1:
		return fmt.Errorf("etcd peer: single needs --reps of at least 1, got %d", c.Reps)
	case c.Workload == "contention" && c.Proposers < 1:
		return fmt.Errorf("etcd peer: contention needs at least 1 proposer, got %d", c.Proposers)
	case c.Workload == "failover" && c.Proposers < 2:
		return fmt.Errorf("etcd peer: failover needs at least 2 proposers (a holder and a successor), got %d", c.Proposers)
	case c.Workload == "contention" && c.Resources < 1:
		return fmt.Errorf("etcd peer: --resources must be at least 1, got %d", c.Resources)
	case c.Hold < 0 || c.Pause < 0:
		return fmt.Errorf("etcd peer: --hold and --pause must not be negative")
	case c.TTL < 1:
		return fmt.Errorf("etcd peer: the session TTL must be at least 1 s, got %d", c.TTL)
	case c.Duration <= 0:
		return fmt.Errorf("etcd peer: --duration must be positive, got %v", c.Duration)
	case c.Prefix == "":
		return fmt.Errorf("etcd peer: empty key prefix")
	}
	return nil
}

// kinds of observation
const (
	acquired = iota
	released
	crashed
	expired
)

type obs struct {
	t     int64
	kind  uint8
	owner int32
	res   int32
}

// observer collects what the clients saw. Each method reads the clock
// under the lock, so observations are in true-time order.
type observer struct {
	mu      sync.Mutex
	start   time.Time
	obs     []obs
	latency []int64 // ns, request to acquisition
	first   int64   // first request, -1 until one
	failed  int
}

func newObserver() *observer { return &observer{start: time.Now(), first: -1} }

// now is the time since the start (ns); callers outside the lock use it
// for request times.
func (o *observer) now() int64 { return int64(time.Since(o.start)) }

// request notes a request made at t (from now()).
func (o *observer) request(t int64) {
	o.mu.Lock()
	if o.first < 0 || t < o.first {
		o.first = t
	}
	o.mu.Unlock()
}

func (o *observer) record(kind uint8, owner, res int, requested int64) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.now()
	o.obs = append(o.obs, obs{t: t, kind: kind, owner: int32(owner), res: int32(res)})
	if kind == acquired {
		o.latency = append(o.latency, t-requested)
	}
	return t
}

// acquired: owner's Lock on res, called at requested, returned now.
func (o *observer) acquired(owner, res int, requested int64) int64 {
	return o.record(acquired, owner, res, requested)
}

// released: owner is about to call Unlock on res (its hold ends now), or
// saw its session end.
func (o *observer) released(owner, res int) int64 { return o.record(released, owner, res, 0) }

// crashed: owner stops; every hold of it ends now.
func (o *observer) crashed(owner int) int64 { return o.record(crashed, owner, -1, 0) }

// expired: owner saw its session end; every hold of it ends now.
func (o *observer) expired(owner int) int64 { return o.record(expired, owner, -1, 0) }

// fail counts n requests that ended without a lock.
func (o *observer) fail(n int) {
	o.mu.Lock()
	o.failed += n
	o.mu.Unlock()
}

// counts: acquisitions and failures so far.
func (o *observer) counts() (acquired, failed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.latency), o.failed
}

// identity: every client's clock is the run's wall clock (one process).
type identity struct{}

func (identity) TrueAt(_ algorithms.NodeID, l algorithms.Local) int64 { return int64(l) }

// result turns the observations of a run that ended at end (ns since the
// start) into leaselab's meters. crashAt is the failover crash (-1 if
// none), crashOwner its client.
func (o *observer) result(c Config, end, crashAt int64, crashOwner int) runner.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := runner.Result{
		Algo: "etcd", Workload: c.Workload, Env: "etcd", Seed: c.Seed,
		LeasesAcquired: len(o.latency), LeasesFailed: o.failed,
		LatencyMS:          record.PercentilesMS(o.latency),
		TimeToFirstLeaseMS: runner.None, FailoverGapMS: runner.None,
		SimulatedNS: end,
		WallMS:      float64(end) / 1e6,
	}
	chk := checker.NewChecker(identity{}, c.Seed, nil)
	var byClient []int // contention, failover: leases per client (Result.LeasesByNode)
	if c.Workload == "contention" || c.Workload == "failover" {
		byClient = make([]int, c.Proposers)
	}
	last := map[int32]int32{} // resource -> its last holder
	lastAcq := int64(-1)
	for _, ob := range o.obs {
		switch ob.kind {
		case acquired:
			// The hold has no expiry of its own: it ends at the client's
			// Unlock, its session's end or its crash.
			chk.Acquired(ob.t, algorithms.NodeID(ob.owner), algorithms.ResourceID(ob.res), 0, algorithms.Local(math.MaxInt64))
			if prev, ok := last[ob.res]; ok && prev != ob.owner {
				r.OwnerChanges++
			}
			last[ob.res] = ob.owner
			if int(ob.owner) < len(byClient) {
				byClient[ob.owner]++
			}
			if lastAcq < 0 && o.first >= 0 {
				r.TimeToFirstLeaseMS = runner.OptionalMS(float64(ob.t-o.first) / 1e6)
			}
			if crashAt >= 0 && ob.t >= crashAt && int(ob.owner) != crashOwner && !r.FailoverGapMS.Valid() {
				r.FailoverGapMS = runner.OptionalMS(float64(ob.t-crashAt) / 1e6)
			}
			lastAcq = ob.t
		case released:
			chk.Lost(ob.t, algorithms.NodeID(ob.owner), algorithms.ResourceID(ob.res))
		case crashed:
			chk.Crash(ob.t, algorithms.NodeID(ob.owner))
			r.Crashes++
		case expired:
			chk.Crash(ob.t, algorithms.NodeID(ob.owner))
		}
	}
	chk.Finish(end)
	if len(byClient) > 0 {
		r.LeasesByNode, r.Fairness = byClient, runner.JainIndex(byClient, nil)
	}
	r.ViolationList, r.Violations = chk.Violations()
	switch c.Workload {
	case "batch", "single":
		if lastAcq > o.first && o.first >= 0 {
			r.LeasesPerSec = float64(r.LeasesAcquired) / (float64(lastAcq-o.first) / 1e9)
		}
	default:
		if end > 0 {
			r.LeasesPerSec = float64(r.LeasesAcquired) / (float64(end) / 1e9)
			r.HandoffsPerSec = float64(r.OwnerChanges) / (float64(end) / 1e9)
		}
	}
	return r
}

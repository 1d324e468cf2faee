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
// the clients' observations, which it feeds to leaselab's Recorder (the
// same meters and checker as every environment).
//
// A client holds resource r from the instant its Mutex.Lock on r returns
// until it calls Unlock (or its session ends, or it crashes). Times are
// wall-clock nanoseconds since the start of the run, read under one lock,
// so the checker sees them in order.
package etcd

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
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
		return fmt.Errorf("etcd peer: workload %q: want one of %s", c.Workload, strings.Join(Workloads, ", "))
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
	requested = iota // a client called Lock
	acquired         // its Lock returned: it holds
	released         // it is about to call Unlock: its hold ends
	failed           // its Lock failed, or the run ended before it was made (single)
	crashed          // the failover holder stopped: every hold of it ends
	expired          // a client saw its session end: every hold of it ends
)

type obs struct {
	t     int64
	kind  uint8
	owner int32
	res   int32
}

// observer collects what the clients saw, to feed it to leaselab's
// Recorder at the end (result). Each method reads the clock under the
// lock, so observations but requests (made at a time read before the call)
// are in true-time order.
type observer struct {
	mu          sync.Mutex
	start       time.Time
	obs         []obs
	nAcq, nFail int
}

func newObserver() *observer { return &observer{start: time.Now()} }

// now is the time since the start (ns); callers outside the lock use it
// for request times.
func (o *observer) now() int64 { return int64(time.Since(o.start)) }

// request notes that owner asked for res at t (from now()): its latency
// runs from t.
func (o *observer) request(owner, res int, t int64) {
	o.mu.Lock()
	o.obs = append(o.obs, obs{t: t, kind: requested, owner: int32(owner), res: int32(res)})
	o.mu.Unlock()
}

func (o *observer) record(kind uint8, owner, res int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs = append(o.obs, obs{t: o.now(), kind: kind, owner: int32(owner), res: int32(res)})
	switch kind {
	case acquired:
		o.nAcq++
	case failed:
		o.nFail++
	}
}

// acquired: owner's Lock on res returned now.
func (o *observer) acquired(owner, res int) { o.record(acquired, owner, res) }

// released: owner is about to call Unlock on res (its hold ends now).
func (o *observer) released(owner, res int) { o.record(released, owner, res) }

// fail: owner's request for res ended without the lock.
func (o *observer) fail(owner, res int) { o.record(failed, owner, res) }

// crashed: owner, the failover holder, stops; every hold of it ends now.
func (o *observer) crashed(owner int) { o.record(crashed, owner, -1) }

// expired: owner saw its session end; every hold of it ends now.
func (o *observer) expired(owner int) { o.record(expired, owner, -1) }

// counts: acquisitions and failures so far.
func (o *observer) counts() (acquired, failed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.nAcq, o.nFail
}

// result feeds the observations of a run that ended at end (ns since the
// start) to leaselab's Recorder, in true-time order, as an environment
// would: a request, an acquisition (a hold with no expiry of its own:
// it ends at the client's Unlock, its session's end or its crash), a
// release, a failure; the failover crash is a planned crash of the
// holder. The meters and the checker are then the Recorder's.
func (o *observer) result(c Config, end int64) runner.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	spec := runner.Spec{Algo: "etcd", Workload: c.Workload, Env: "etcd", Seed: c.Seed, Acceptors: c.Members, Proposers: c.Proposers}
	// etcd is no registered algorithm: the plan names none (its grants are
	// not leaselab grants, so none blocks).
	rec := record.NewRecorder(runner.Plan{Spec: spec}, record.IdentityClocks, nil)
	defer rec.Release()
	slices.SortStableFunc(o.obs, func(a, b obs) int { return cmp.Compare(a.t, b.t) })
	held := map[int32][]int32{} // owner -> resources it holds, in the order it got them
	for _, ob := range o.obs {
		t, n, r := ob.t, algorithms.NodeID(ob.owner), algorithms.ResourceID(ob.res)
		switch ob.kind {
		case requested:
			rec.Request(t, n, algorithms.Local(t), algorithms.Input{Kind: algorithms.Acquire, Resource: r})
		case acquired:
			rec.Event(t, n, algorithms.Local(t), algorithms.Event{Kind: algorithms.Acquired, Resource: r, Owner: n, Until: math.MaxInt64})
			held[ob.owner] = append(held[ob.owner], ob.res)
		case released:
			rec.Event(t, n, algorithms.Local(t), algorithms.Event{Kind: algorithms.Lost, Resource: r, Owner: n})
			held[ob.owner] = slices.DeleteFunc(held[ob.owner], func(x int32) bool { return x == ob.res })
		case failed:
			rec.Abandon(t, n, r)
		case crashed:
			rec.MarkFailover(t, n)
			rec.Crash(t, n)
			delete(held, ob.owner)
		case expired:
			for _, x := range held[ob.owner] {
				rec.Event(t, n, algorithms.Local(t), algorithms.Event{Kind: algorithms.Lost, Resource: algorithms.ResourceID(x), Owner: n})
			}
			delete(held, ob.owner)
		}
	}
	r := rec.Finish(end, c.Workload == "batch" || c.Workload == "single")
	r.WallMS = float64(end) / 1e6
	return r
}

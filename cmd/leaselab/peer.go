package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/peer/etcd"
	"leaselab/runner/udp"
)

// Peers: lease services that bench measures with the same meters as
// leaselab's algorithms (--peer).
var peers = []string{"etcd"}

// peerFlags are bench's flags that only --peer uses.
type peerFlags struct {
	peer      *string
	endpoints *[]string
	ttl       *int
	hold      *time.Duration
	pause     *time.Duration
	resources *int
	compare   *bool
}

func addPeerFlags(fs *pflag.FlagSet) peerFlags {
	return peerFlags{
		peer: fs.String("peer", "", "measure a lease service instead of an algorithm: "+strings.Join(peers, ", ")+
			" (etcd: concurrency.Session and Mutex; needs a binary built with -tags etcd)"),
		endpoints: fs.StringSlice("etcd-endpoints", nil, "--peer etcd: host:port,... of an existing cluster (default: an embedded cluster of --acceptors members on loopback, fsync on, in a temporary directory)"),
		ttl:       fs.Int("etcd-ttl", 2, "--peer etcd: session TTL in whole seconds (etcd raises it to its minimum, 2 s with the default election timeout)"),
		hold:      fs.Duration("hold", 0, "--peer, contention: how long a client holds a lock before Unlock"),
		pause:     fs.Duration("pause", 0, "--peer, contention: upper bound of the random pause before the next Lock"),
		resources: fs.Int("resources", 1, "--peer, contention: resources the clients pick from, uniformly"),
		compare:   fs.Bool("compare", false, "--peer, batch and single: also run --algo over UDP at the same points and print the ratio"),
	}
}

// benchPeer is bench --peer: the workload against the peer, for every
// point and repetition, in the output of bench.
func benchPeer(c *ctx, fs *pflag.FlagSet, pf peerFlags, spec runner.Spec, workload string, leases []int, reps, window, count int, format string, quiet bool) error {
	if *pf.peer != "etcd" {
		return usagef("--peer %q: known peers are %s", *pf.peer, strings.Join(peers, ", "))
	}
	if *pf.compare && workload != "batch" && workload != "single" {
		return usagef("--compare runs --algo over UDP for batch and single only")
	}
	cfg := peerConfig(fs, pf, spec, workload, reps, window)
	if workload != "batch" {
		leases = []int{cfg.Leases}
	}
	cfg.Leases = leases[0]
	if err := cfg.Validate(); err != nil {
		return badInput(err)
	}
	if !etcd.Available() {
		// A binary without the peer cannot run it whatever is tried: the
		// request is the problem (exit 2), not a failure on the way.
		return badInput(errors.New("bench --peer etcd: " + etcd.ErrNotBuilt.Error()))
	}
	if *pf.compare {
		spec.Env, spec.Workload, spec.Leases, spec.Proposers = "udp", workload, leases[0], 1
		networkDefaults(fs, &spec)
		if err := validateSpec(spec); err != nil {
			return err
		}
	}
	out := benchOutput{Meta: c.meta(), Count: count, Spec: spec, PeerParams: &cfg}
	failed := false
	for rep := 0; rep < count; rep++ {
		for _, n := range leases {
			k := cfg
			k.Leases = n
			k.Seed = spec.Seed + uint64(rep)
			label := fmt.Sprintf("bench etcd %s", workload)
			if workload == "batch" {
				label += fmt.Sprintf(" %d leases", n)
			}
			progress, done := newProgress(c, quiet, label)
			k.Progress = progress
			res, err := etcd.Run(context.Background(), k)
			done()
			if err != nil {
				return err
			}
			r := peerRow(res, spec, out, k, reps, rep)
			out.Runs = append(out.Runs, r)
			failed = failed || r.LeasesFailed > 0 || r.Violations > 0
			if !*pf.compare {
				continue
			}
			// The same point with --algo over UDP, right after.
			s := spec
			s.Leases, s.Seed = n, k.Seed
			a, err := peerCompare(c, s, workload, window, reps, quiet)
			if err != nil {
				return err
			}
			a.Rep, a.Seed, a.Leases = rep, s.Seed, r.Leases
			out.Runs = append(out.Runs, a)
			failed = failed || a.LeasesFailed > 0 || a.Violations > 0
		}
	}
	if err := writeBench(c, format, out); err != nil {
		return err
	}
	if failed {
		return exitStatus(1)
	}
	return nil
}

// peerConfig is the etcd run of bench --peer's flags (Leases and Seed are
// set per point).
func peerConfig(fs *pflag.FlagSet, pf peerFlags, spec runner.Spec, workload string, reps, window int) etcd.Config {
	cfg := etcd.DefaultConfig()
	cfg.Workload = workload
	cfg.Endpoints = *pf.endpoints
	cfg.Members = spec.Acceptors
	cfg.Dir = spec.Disk.Dir
	cfg.Reps = reps
	cfg.Window = window
	if window < 0 {
		cfg.Window = 1 << 30
	}
	cfg.Proposers = spec.Proposers
	if !fs.Changed("proposers") && (workload == "contention" || workload == "failover") {
		cfg.Proposers = 3
	}
	cfg.Resources, cfg.Hold, cfg.Pause, cfg.TTL = *pf.resources, *pf.hold, *pf.pause, *pf.ttl
	cfg.Duration = spec.Duration
	if !fs.Changed("duration") {
		switch workload {
		case "contention":
			cfg.Duration = 10 * time.Second
		case "failover":
			cfg.Duration = 20 * time.Second
		}
	}
	return cfg
}

// peerRow is the row of the peer's run k (repetition rep): its meters as
// every run's (fromResult), and what says where it ran.
func peerRow(res runner.Result, spec runner.Spec, out benchOutput, k etcd.Config, reps, rep int) benchRun {
	r := fromResult(res, spec, out)
	r.Algo, r.Env, r.Peer = "etcd", "etcd", "etcd"
	r.Acceptors, r.Proposers = k.Members, k.Proposers
	if len(k.Endpoints) > 0 {
		r.Env, r.Acceptors = "etcd-external", len(k.Endpoints)
	}
	if k.Workload == "single" {
		r.Proposers = 1
	}
	r.Workload = k.Workload
	switch k.Workload {
	case "batch":
		r.Leases = k.Leases
	case "single":
		r.Leases = reps
	default: // contention, failover: the locks the clients got
		r.Leases = res.LeasesAcquired
	}
	r.Rep, r.Seed, r.TTLS = rep, k.Seed, k.TTL
	return r
}

// peerCompare runs --algo over UDP at the peer's point s (--compare).
func peerCompare(c *ctx, s runner.Spec, workload string, window, reps int, quiet bool) (benchRun, error) {
	eo := udp.EnvOptions{Window: window}
	if workload == "single" {
		return benchSingle(s, eo, nil, reps, benchOutput{})
	}
	progress, done := newProgress(c, quiet, fmt.Sprintf("bench udp %s %d leases", s.Algo, s.Leases))
	defer done()
	return benchBatch(s, eo, progress, benchOutput{})
}

// writePeerLines prints what the table has no column for: hand-offs, the
// failover gap, and an algorithm's speed against the peer's at the same
// point (--compare).
func writePeerLines(c *ctx, out benchOutput) {
	for _, r := range out.Runs {
		if r.Peer == "" {
			continue
		}
		if r.Workload == "contention" {
			fmt.Fprintf(c.stdout, "%s contention, %d clients: %.1f hand-offs/s (%d owner changes), fairness %.3f (Jain's index of locks per client), lock latency p50 %.3f ms, p99 %.3f ms\n",
				r.Peer, r.Proposers, r.HandoffsPerSec, r.OwnerChanges, r.Fairness, r.LatencyMS.P50, r.LatencyMS.P99)
		}
		if r.FailoverGapMS != nil {
			fmt.Fprintf(c.stdout, "%s failover: %.0f ms from the holder's crash to the next holder (session TTL %d s)\n", r.Peer, *r.FailoverGapMS, r.TTLS)
		}
		for _, a := range out.Runs {
			if a.Peer == "" && a.Rep == r.Rep && a.Workload == r.Workload && a.Leases == r.Leases && r.LeasesPerSec > 0 {
				fmt.Fprintf(c.stdout, "%s %d leases: %s %.0f leases/s vs %s %.0f leases/s: %.1fx; p50 %.3f vs %.3f ms\n",
					r.Workload, r.Leases, a.Algo, a.LeasesPerSec, r.Peer, r.LeasesPerSec, a.LeasesPerSec/r.LeasesPerSec,
					a.LatencyMS.P50, r.LatencyMS.P50)
			}
		}
	}
}

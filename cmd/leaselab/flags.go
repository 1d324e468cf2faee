package main

// Shared flag helpers. Every subcommand that builds a runner.Spec declares
// its flags with these, so the same flag means the same thing everywhere.
//
// Each helper binds flags directly to the fields of the value it is given;
// the value's current contents are the defaults shown in --help, so start
// from runner.DefaultSpec() (or change fields first to give a command other
// defaults). Flags are declared, not validated: after parsing, call
// validateSpec, which defers to runner.Spec.Validate (and through it to the
// algorithm's own Check), so the rules live in one place.
//
//	addSpecFlags(fs, &spec)          everything below, in this order
//	addAlgoFlags(fs, &spec)          --algo --ablate --acceptors --proposers --env
//	addProtocolFlags(fs, &spec.Params)  --lease-span --max-lease --dmax --drift-bound
//	                                 --response-timeout --max-rounds --backoff
//	addWorkloadFlags(fs, &spec)      --workload --leases --hold --pause --release
//	                                 --resources --giveup --extend
//	                                 --renew-before --seed --duration
//	addNetFlags(fs, &spec.Net)       --rtt --jitter --loss --dup --reorder --stale --stale-max
//	                                 --bandwidth --datagram
//	addClockFlags(fs, &spec.Clocks)  --drift --skew --free-clocks --clock-edges
//	addFaultFlags(fs, &spec.Faults)  --crash-rate --downtime --partitions --partition-len
//	addDiskFlags(fs, &spec.Disk)     --fsync-latency --group-commit --background-writer --disk-dir
//
// A command that needs a flag of the same name with another meaning (bench's
// list of batch sizes, say) uses the group helpers and leaves that group out.

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/udp"
)

// addSpecFlags declares every flag that fills s.
func addSpecFlags(fs *pflag.FlagSet, s *runner.Spec) {
	addAlgoFlags(fs, s)
	addProtocolFlags(fs, &s.Params)
	addWorkloadFlags(fs, s)
	addNetFlags(fs, &s.Net)
	addClockFlags(fs, &s.Clocks)
	addFaultFlags(fs, &s.Faults)
	addDiskFlags(fs, &s.Disk)
}

// addAlgoFlags: which algorithm, which of its rules are off, the cluster's
// shape and the environment.
func addAlgoFlags(fs *pflag.FlagSet, s *runner.Spec) {
	fs.StringVar(&s.Algo, "algo", s.Algo, "algorithm to run (see 'leaselab algos'): "+strings.Join(algorithms.Names(), ", "))
	fs.StringSliceVar((*[]string)(&s.Ablate), "ablate", []string(s.Ablate),
		"comma-separated rules of the algorithm to switch off, to see what each buys (names in 'leaselab algos')")
	fs.IntVar(&s.Acceptors, "acceptors", s.Acceptors, "number of acceptors (nodes 0..N-1)")
	fs.IntVar(&s.Proposers, "proposers", s.Proposers, "number of proposers (nodes 0..P-1; a node may be both)")
	fs.StringVar(&s.Env, "env", s.Env, "environment: sim (deterministic discrete-event simulation) or udp (real sockets on loopback)")
}

// addProtocolFlags: the algorithms' parameters (algorithms.Params).
func addProtocolFlags(fs *pflag.FlagSet, p *algorithms.Params) {
	fs.DurationVar(&p.LeaseSpan, "lease-span", p.LeaseSpan, "T: how long one acquisition or extension holds (v in FaTLease); must be below --max-lease")
	fs.DurationVar(&p.MaxLease, "max-lease", p.MaxLease, "M: no lease is longer; a restarted diskless node stays silent this long")
	fs.DurationVar(&p.DMax, "dmax", p.DMax, "d_max: the bound on any two clocks' difference that FaTLease and classic Paxos assume")
	fs.Float64Var(&p.Drift, "drift-bound", p.Drift,
		"clock rate error the ALGORITHMS allow for (0.001 = 1000 ppm): holders end their lease this much early; compare --drift, the simulated clocks' actual error")
	fs.DurationVar(&p.ResponseTimeout, "response-timeout", p.ResponseTimeout,
		"a phase without a majority by then times out and the round is retried; when not given: 1s, or 2 × (rtt + 2 × jitter) if that is longer; "+
			"given, it must be longer than rtt + 2 × jitter")
	fs.IntVar(&p.MaxRounds, "max-rounds", p.MaxRounds, "an acquisition is abandoned (a failed lease) after this many failed rounds")
	fs.DurationVar(&p.Backoff, "backoff", p.Backoff, "upper bound of the random wait before a retry")
}

// addWorkloadFlags: what the clients do, the seed and the length of the
// run.
func addWorkloadFlags(fs *pflag.FlagSet, s *runner.Spec) {
	fs.StringVar(&s.Workload, "workload", s.Workload, "workload: "+strings.Join(runner.Workloads, ", ")+
		" (contention: P proposers loop acquire/hold/release/pause on one resource; batch: N leases on N resources at once; single: one lease; failover: the holder keeps extending, then crashes)")
	fs.IntVar(&s.Leases, "leases", s.Leases, "batch workload: number of leases (distinct resources) requested at once")
	fs.DurationVar(&s.Hold, "hold", s.Hold, "contention: how long a client keeps a lease before releasing it (0: let it expire)")
	fs.DurationVar(&s.Pause, "pause", s.Pause, "contention: upper bound of the random think time before the next attempt")
	fs.BoolVar(&s.Release, "release", s.Release, "contention: release after --hold (--release=false: let the lease expire)")
	fs.IntVar(&s.Resources, "resources", s.Resources, "contention: each attempt is for a resource drawn uniformly among 0..N-1, so several resources are contended by several proposers (0 or 1: resource 0 only)")
	fs.Float64Var(&s.Giveup, "giveup", s.Giveup, "contention: probability in [0, 1] that a client gives an acquisition up mid-round: it releases at a time uniform in [0, 2*RTT] after asking, "+
		"unless the lease came first, while the round's prepare or propose is still in flight (the request then counts as neither acquired nor failed)")
	fs.Float64Var(&s.Extend, "extend", s.Extend, "contention: probability in [0, 1] that a client extends a lease it acquired, at a time uniform in [0, half the time left] "+
		"or (half the leases it releases) within 2*RTT before the release; it still releases --hold after the acquisition (or lets the lease expire), "+
		"so the release may meet the extension in flight")
	fs.DurationVar(&s.RenewBefore, "renew-before", s.RenewBefore, "failover: the holder extends this long before its local expiry")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of everything random in a simulated run: same seed, same trace")
	fs.DurationVar(&s.Duration, "duration", s.Duration, "true time the contention and failover workloads run; for batch and single, the limit after which unfinished requests count as failed")
}

// addNetFlags: every link of the network.
func addNetFlags(fs *pflag.FlagSet, n *runner.NetSpec) {
	fs.DurationVar(&n.RTT, "rtt", n.RTT, "round-trip time of every link (one way is half); with --env udp added to the real one in user space, "+
		"each hop ending some tens of µs late on an idle machine (wake-up latency; see 'go test ./runner/udp -bench WakeTimer')")
	fs.DurationVar(&n.Jitter, "jitter", n.Jitter, "one-way delay is RTT/2 ± a uniform draw up to this; at most RTT/2 (a larger value is an error, not cut at zero)")
	fs.Float64Var(&n.Loss, "loss", n.Loss, "probability in [0, 1) that a message is dropped")
	fs.Float64Var(&n.Dup, "dup", n.Dup, "probability in [0, 1] that a message is delivered twice")
	fs.Float64Var(&n.Reorder, "reorder", n.Reorder, "probability in [0, 1] that a message is held back by up to 2*RTT extra")
	fs.Float64Var(&n.Stale, "stale", n.Stale, "simulator only: link stalls per directed link per minute (Poisson; 0: none); messages sent on a stalled link "+
		"arrive when the stall ends, in send order: stale messages, e.g. a Propose and its Release seconds late")
	fs.Float64Var(&n.StaleSpans, "stale-max", n.StaleSpans, "a link stall (--stale) lasts uniform in [0, this many lease spans (--lease-span)]")
	fs.Int64Var(&n.Bandwidth, "bandwidth", n.Bandwidth, "bytes/s that may leave each node (0: unlimited), for WAN experiments")
	fs.IntVar(&n.Datagram, "datagram", n.Datagram, fmt.Sprintf("affects only --env udp (the simulator has no datagrams and ignores it): "+
		"largest datagram in bytes; messages to the same peer share one up to this size (0: the environment's default, %d on loopback, "+
		"1400 otherwise; %d: one message per datagram; at most %d)", udp.LoopbackDatagram, runner.MinDatagram, runner.MaxDatagram))
}

// addClockFlags: the simulated clocks.
func addClockFlags(fs *pflag.FlagSet, c *runner.ClockSpec) {
	fs.Float64Var(&c.Drift, "drift", c.Drift,
		"ACTUAL rate error of the simulated clocks: each node's drawn uniformly in [-F, F] (0.001 = gains or loses 1 ms/s); compare --drift-bound, what the algorithms allow for")
	fs.DurationVar(&c.Skew, "skew", c.Skew, "clock offsets drawn uniformly in [-D/2, D/2]; a clock whose offset reaches ±D/2 turns its rate error round (slewed, as NTP does), "+
		"so two clocks differ by at most D for the whole run (0: no offsets, clocks run free)")
	fs.BoolVar(&c.Free, "free-clocks", c.Free, "clocks run free: each keeps its --drift rate error for the whole run, never slewed back; --skew then bounds only the offsets at the start")
	fs.BoolVar(&c.Edges, "clock-edges", c.Edges, "each clock's offset is -D/2 or +D/2 (--skew) and its rate error -F or +F (--drift), signs drawn, instead of uniform in between: the extremes")
}

// addFaultFlags: crashes and partitions.
func addFaultFlags(fs *pflag.FlagSet, f *runner.FaultSpec) {
	fs.Float64Var(&f.CrashRate, "crash-rate", f.CrashRate, "crashes per node per minute of true time (Poisson; 0: none)")
	fs.DurationVar(&f.Downtime, "downtime", f.Downtime, "a crashed node restarts after a time drawn uniformly in [D/2, D]")
	fs.Float64Var(&f.Partitions, "partitions", f.Partitions, "partition episodes per minute (each splits the nodes in two random groups; 0: none)")
	fs.DurationVar(&f.PartitionLen, "partition-len", f.PartitionLen, "a partition heals after a time drawn uniformly in [D/2, D]")
}

// addDiskFlags: stable storage (classic Paxos).
func addDiskFlags(fs *pflag.FlagSet, d *runner.DiskSpec) {
	fs.DurationVar(&d.FsyncLatency, "fsync-latency", d.FsyncLatency, "mean latency of one fsync on the simulated disk")
	fs.BoolVar(&d.GroupCommit, "group-commit", d.GroupCommit, "records arriving during a sync are written and synced together (--group-commit=false: one fsync per record)")
	fs.BoolVar(&d.Background, "background-writer", d.Background, "a background writer saturates the disk (FaTLease Fig. 10)")
	fs.StringVar(&d.Dir, "disk-dir", d.Dir, "udp environment: directory for the real log files (default: a temporary directory)")
}

// networkDefaults sets what follows the network unless its flag was given:
// the response timeout (runner.DefaultResponseTimeout: 1 s, or twice the
// worst round trip on a slow network). Call it after parsing, before
// validateSpec.
func networkDefaults(fs *pflag.FlagSet, s *runner.Spec) {
	if f := fs.Lookup("response-timeout"); f != nil && !f.Changed {
		s.Params.ResponseTimeout = runner.DefaultResponseTimeout(s.Net)
	}
}

// validateSpec checks s with runner.Spec.Validate and marks a failure as
// bad input (exit status 2).
func validateSpec(s runner.Spec) error {
	return badInput(s.Validate())
}

// parseFaults checks a --faults list: "all", or names from
// runner.FaultKinds.
func parseFaults(list []string) ([]string, error) {
	valid := "all, " + strings.Join(campaign.FaultKinds, ", ")
	if len(list) == 0 {
		return nil, usagef("--faults needs at least one of: %s", valid)
	}
	for _, f := range list {
		ok := f == "all"
		for _, k := range campaign.FaultKinds {
			ok = ok || f == k
		}
		if !ok {
			return nil, usagef("unknown fault kind %q (valid: %s)", f, valid)
		}
	}
	return list, nil
}

// specArgs returns the `leaselab run` flags that reproduce s: every spec
// flag whose value differs from runner.DefaultSpec(), plus --algo,
// --workload and --seed always, in declaration order. Values print exactly
// (floats round-trip), so the command re-runs the same simulation.
func specArgs(s runner.Spec) []string {
	def := runner.DefaultSpec()
	dfs := pflag.NewFlagSet("default", pflag.ContinueOnError)
	addSpecFlags(dfs, &def)
	sfs := pflag.NewFlagSet("spec", pflag.ContinueOnError)
	addSpecFlags(sfs, &s)
	sfs.SortFlags = false
	var args []string
	sfs.VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		always := f.Name == "algo" || f.Name == "workload" || f.Name == "seed"
		if !always && v == dfs.Lookup(f.Name).Value.String() {
			return
		}
		if f.Value.Type() == "stringSlice" {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		}
		args = append(args, "--"+f.Name+"="+v)
	})
	return args
}

// formatFlag is a --format value: it rejects anything but its choices at
// parse time, so a typo is a one-line usage error.
type formatFlag struct {
	value   string
	choices []string
}

func (f *formatFlag) String() string { return f.value }
func (f *formatFlag) Type() string   { return "format" }
func (f *formatFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.value = s
			return nil
		}
	}
	return fmt.Errorf("format must be one of %s", strings.Join(f.choices, ", "))
}

// addFormatFlag declares --format with the given choices (default: the
// first; with none, table, json and csv) and returns where the value lands.
func addFormatFlag(fs *pflag.FlagSet, choices ...string) *string {
	if len(choices) == 0 {
		choices = []string{"table", "json", "csv"}
	}
	f := &formatFlag{value: choices[0], choices: choices}
	fs.Var(f, "format", "output format: "+strings.Join(choices, ", "))
	return &f.value
}

// addQuietFlag declares --quiet: no progress display. Progress is shown
// only on a terminal anyway (see newProgress).
func addQuietFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("quiet", false, "no progress display on stderr (it is shown only when stderr is a terminal)")
}

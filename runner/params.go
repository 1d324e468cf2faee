package runner

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
)

// Param is one parameter of a run: one field of a Spec, with the one name
// every surface spells it by. The command line's flag is --Name, a
// scenario file's key is Name, an experiment sets and sweeps Name, a node
// process gets --Name, and the Spec's JSON key is JSONKey(): Name in
// snake_case with the unit JSON writes it in (durations in nanoseconds,
// "_ns").
type Param struct {
	Name  string
	Group Group
	// Default is the value DefaultSpec holds, of the field's own type
	// (nil: the zero value).
	Default any
	// Unit is the unit of the parameter as a number (Number, SetNumber:
	// the experiments' settings and sweeps). Durations are counted in
	// "ms" or "s"; "lease spans" counts in --lease-span (the JSON key ends
	// _spans); "" is a count, a probability or a fraction.
	Unit string
	// Label is a short title for chart axes and report tables.
	Label string
	// Help is the command line's description (see Usage).
	Help string
	// more, if set, completes Help when it is asked for (Usage).
	more func() string
	// field points into s at the parameter's field.
	field func(s *Spec) any
}

// Group says which part of a run a parameter belongs to; it orders the
// command line's flags, and the groups below GroupProtocol are the Spec's
// nested JSON objects.
type Group string

const (
	GroupAlgo     Group = "algo"
	GroupProtocol Group = "protocol"
	GroupWorkload Group = "workload"
	GroupNet      Group = "net"
	GroupClocks   Group = "clocks"
	GroupFaults   Group = "faults"
	GroupDisk     Group = "disk"
)

// defParams are the algorithms' defaults, the protocol group's.
var defParams = algorithms.DefaultParams()

// params is the table, in the order flags are declared and re-run
// commands are written.
var params = []Param{
	{Name: "algo", Group: GroupAlgo, Default: "paxoslease", Label: "algorithm",
		Help: "algorithm to run (see 'leaselab algos'): ",
		// Algorithms register from init, which may run after this table
		// is built.
		more:  func() string { return strings.Join(algorithms.Names(), ", ") },
		field: func(s *Spec) any { return &s.Algo }},
	{Name: "ablate", Group: GroupAlgo, Label: "ablations",
		Help:  "comma-separated rules of the algorithm to switch off, to see what each buys (names in 'leaselab algos')",
		field: func(s *Spec) any { return &s.Ablate }},
	{Name: "acceptors", Group: GroupAlgo, Default: 3, Label: "acceptors",
		Help:  "number of acceptors (nodes 0..N-1)",
		field: func(s *Spec) any { return &s.Acceptors }},
	{Name: "proposers", Group: GroupAlgo, Default: 3, Label: "proposers contending for one resource",
		Help:  "number of proposers (nodes 0..P-1; a node may be both)",
		field: func(s *Spec) any { return &s.Proposers }},
	{Name: "env", Group: GroupAlgo, Default: "sim", Label: "environment",
		Help:  "environment: sim (deterministic discrete-event simulation) or udp (real sockets on loopback)",
		field: func(s *Spec) any { return &s.Env }},

	{Name: "lease-span", Group: GroupProtocol, Default: defParams.LeaseSpan, Unit: "s", Label: "lease span T (s)",
		Help:  "T: how long one acquisition or extension holds (v in FaTLease); must be below --max-lease",
		field: func(s *Spec) any { return &s.Params.LeaseSpan }},
	{Name: "max-lease", Group: GroupProtocol, Default: defParams.MaxLease, Unit: "s", Label: "max lease M (s)",
		Help:  "M: no lease is longer; a restarted diskless node stays silent this long",
		field: func(s *Spec) any { return &s.Params.MaxLease }},
	{Name: "dmax", Group: GroupProtocol, Default: defParams.DMax, Unit: "ms", Label: "d_max (ms)",
		Help:  "d_max: the bound on any two clocks' difference that FaTLease and classic Paxos assume",
		field: func(s *Spec) any { return &s.Params.DMax }},
	{Name: "drift-bound", Group: GroupProtocol, Default: defParams.Drift, Label: "drift allowance (fraction)",
		Help:  "clock rate error the ALGORITHMS allow for (0.001 = 1000 ppm): holders end their lease this much early; compare --drift, the simulated clocks' actual error",
		field: func(s *Spec) any { return &s.Params.Drift }},
	{Name: "response-timeout", Group: GroupProtocol, Default: defParams.ResponseTimeout, Unit: "ms", Label: "response timeout (ms)",
		Help: "a phase without a majority by then times out and the round is retried; when not given: 1s, or 2 × (rtt + 2 × jitter) if that is longer; " +
			"given, it must be longer than rtt + 2 × jitter",
		field: func(s *Spec) any { return &s.Params.ResponseTimeout }},
	{Name: "max-rounds", Group: GroupProtocol, Default: defParams.MaxRounds, Label: "rounds before a lease fails",
		Help:  "an acquisition is abandoned (a failed lease) after this many failed rounds",
		field: func(s *Spec) any { return &s.Params.MaxRounds }},
	{Name: "backoff", Group: GroupProtocol, Default: defParams.Backoff, Unit: "ms", Label: "retry backoff bound (ms)",
		Help:  "upper bound of the random wait before a retry",
		field: func(s *Spec) any { return &s.Params.Backoff }},

	{Name: "workload", Group: GroupWorkload, Default: "contention", Label: "workload",
		Help: "workload: " + strings.Join(Workloads, ", ") +
			" (contention: P proposers loop acquire/hold/release/pause on one resource; batch: N leases on N resources at once; single: one lease; failover: the holder keeps extending, then crashes)",
		field: func(s *Spec) any { return &s.Workload }},
	{Name: "leases", Group: GroupWorkload, Default: 1000, Label: "batch size (leases)",
		Help:  "batch workload: number of leases (distinct resources) requested at once",
		field: func(s *Spec) any { return &s.Leases }},
	{Name: "rate", Group: GroupWorkload, Unit: "1/s", Label: "open-loop arrival rate (requests/s)",
		Help: "batch: an open-loop load: the --leases requests arrive as a Poisson process of this many per second (until --duration), " +
			"spread round-robin over the proposers, each for a resource of its own, whatever became of earlier ones; " +
			"latency counts from the arrival, so no coordinated omission (0: all at once from proposer 0)",
		field: func(s *Spec) any { return &s.Rate }},
	{Name: "hold", Group: GroupWorkload, Default: time.Second, Unit: "ms", Label: "hold time (ms)",
		Help:  "contention: how long a client keeps a lease before releasing it (0: let it expire)",
		field: func(s *Spec) any { return &s.Hold }},
	{Name: "pause", Group: GroupWorkload, Default: 2 * time.Second, Unit: "ms", Label: "think time bound (ms)",
		Help:  "contention: upper bound of the random think time before the next attempt",
		field: func(s *Spec) any { return &s.Pause }},
	{Name: "release", Group: GroupWorkload, Default: true, Label: "release after hold (0/1)",
		Help:  "contention: release after --hold (--release=false: let the lease expire)",
		field: func(s *Spec) any { return &s.Release }},
	{Name: "resources", Group: GroupWorkload, Label: "contended resources",
		Help:  "contention: each attempt is for a resource drawn uniformly among 0..N-1, so several resources are contended by several proposers (0 or 1: resource 0 only)",
		field: func(s *Spec) any { return &s.Resources }},
	{Name: "giveup", Group: GroupWorkload, Label: "give-up probability",
		Help: "contention: probability in [0, 1] that a client gives an acquisition up mid-round: it releases at a time uniform in [0, 2*RTT] after asking, " +
			"unless the lease came first, while the round's prepare or propose is still in flight (the request then counts as neither acquired nor failed)",
		field: func(s *Spec) any { return &s.Giveup }},
	{Name: "extend", Group: GroupWorkload, Label: "extension probability",
		Help: "contention: probability in [0, 1] that a client extends a lease it acquired, at a time uniform in [0, half the time left] " +
			"or (half the leases it releases) within 2*RTT before the release; it still releases --hold after the acquisition (or lets the lease expire), " +
			"so the release may meet the extension in flight",
		field: func(s *Spec) any { return &s.Extend }},
	{Name: "writes", Group: GroupWorkload, Unit: "ms", Label: "write period (ms)",
		Help: "contention and failover: a holder writes to the protected store (--store) every D while it believes it holds; " +
			"each write follows a check that the lease had at least D to run, made D earlier (0: no writes)",
		field: func(s *Spec) any { return &s.Writes }},
	{Name: "store", Group: GroupWorkload, Default: "plain", Label: "protected store",
		Help:  "what the protected store checks (with --writes): " + strings.Join(Stores, ", ") + " (fenced: rejects a write whose fencing token is below the highest it accepted)",
		field: func(s *Spec) any { return &s.Store }},
	{Name: "lock-delay", Group: GroupWorkload, Unit: "ms", Label: "lock-delay (ms)",
		Help: "Chubby's and Consul's lock-delay: an expired lease cannot be taken again for D (the holder's client is told its lease ends D early, " +
			"the acceptors keep it to the end; a release frees it at once); below the lease span",
		field: func(s *Spec) any { return &s.LockDelay }},
	{Name: "renew-before", Group: GroupWorkload, Default: time.Second, Unit: "ms", Label: "renewal lead (ms)",
		Help:  "failover: the holder extends this long before its local expiry",
		field: func(s *Spec) any { return &s.RenewBefore }},
	{Name: "seed", Group: GroupWorkload, Default: uint64(1), Label: "seed",
		Help:  "seed of everything random: in a simulated run, same seed, same trace; over UDP it seeds the nodes' draws (ballot jitter, backoff) and the emulated network, but real time is not reproducible",
		field: func(s *Spec) any { return &s.Seed }},
	{Name: "duration", Group: GroupWorkload, Default: 60 * time.Second, Unit: "s", Label: "run length (s)",
		Help:  "true time the contention and failover workloads run; for batch and single, the limit after which unfinished requests count as failed",
		field: func(s *Spec) any { return &s.Duration }},
	{Name: "settle", Group: GroupWorkload, Unit: "s", Label: "settle after the run (s)",
		Help: "contention, simulator: after --duration, up to D more of quiet (no fault starts, no message is lost, duplicated, reordered or held, " +
			"no client asks again or gives up waiting); the run ends once no client wants or holds a lease, and a request still unanswered " +
			"after D counts as unanswered, a liveness failure (0: none)",
		field: func(s *Spec) any { return &s.Settle }},

	{Name: "rtt", Group: GroupNet, Default: time.Millisecond, Unit: "ms", Label: "round-trip time (ms)",
		Help: "round-trip time of every link (one way is half); over UDP (--env udp, node processes) emulated on top of the real one in user space, " +
			"each hop ending some tens of µs late on an idle machine (wake-up latency; see 'go test ./runner/udp -bench WakeTimer')",
		field: func(s *Spec) any { return &s.Net.RTT }},
	{Name: "jitter", Group: GroupNet, Default: 200 * time.Microsecond, Unit: "ms", Label: "one-way jitter (ms)",
		Help:  "one-way delay is RTT/2 ± a uniform draw up to this; at most RTT/2 (a larger value is an error, not cut at zero)",
		field: func(s *Spec) any { return &s.Net.Jitter }},
	{Name: "loss", Group: GroupNet, Label: "message loss probability",
		Help:  "probability in [0, 1) that a message is dropped",
		field: func(s *Spec) any { return &s.Net.Loss }},
	{Name: "dup", Group: GroupNet, Label: "duplication probability",
		Help:  "probability in [0, 1] that a message is delivered twice",
		field: func(s *Spec) any { return &s.Net.Dup }},
	{Name: "reorder", Group: GroupNet, Label: "reordering probability",
		Help:  "probability in [0, 1] that a message is held back by up to 2*RTT extra",
		field: func(s *Spec) any { return &s.Net.Reorder }},
	{Name: "stale", Group: GroupNet, Unit: "1/min", Label: "link stalls per link per minute",
		Help: "simulator only: link stalls per directed link per minute (Poisson; 0: none); messages sent on a stalled link " +
			"arrive when the stall ends, in send order: stale messages, e.g. a Propose and its Release seconds late",
		field: func(s *Spec) any { return &s.Net.Stale }},
	{Name: "stale-max", Group: GroupNet, Default: 4.0, Unit: "lease spans", Label: "longest link stall (lease spans)",
		Help:  "a link stall (--stale) lasts, and a late message (--late) is held back, uniform in [0, this many lease spans (--lease-span)]",
		field: func(s *Spec) any { return &s.Net.StaleSpans }},
	{Name: "late", Group: GroupNet, Label: "late-message probability",
		Help: "simulator only: probability in [0, 1] that a message is held back alone, uniform in [0, --stale-max lease spans], " +
			"so later messages on its link overtake it (a datagram stuck in a queue or replayed, arriving after its sender crashed and restarted)",
		field: func(s *Spec) any { return &s.Net.Late }},
	{Name: "bandwidth", Group: GroupNet, Unit: "bytes/s", Label: "link bandwidth (bytes/s, 0 = unlimited)",
		Help:  "bytes/s that may leave each node (0: unlimited), for WAN experiments",
		field: func(s *Spec) any { return &s.Net.Bandwidth }},
	{Name: "datagram", Group: GroupNet, Unit: "bytes", Label: "largest datagram (bytes, 0 = the environment's default; udp only)",
		Help: fmt.Sprintf("affects only --env udp (the simulator has no datagrams and ignores it): "+
			"largest datagram in bytes; messages to the same peer share one up to this size (0: the environment's default, %d on loopback, "+
			"1400 otherwise; %d: one message per datagram; at most %d)", LoopbackDatagram, MinDatagram, MaxDatagram),
		field: func(s *Spec) any { return &s.Net.Datagram }},

	{Name: "drift", Group: GroupClocks, Label: "clock rate error (fraction)",
		Help:  "ACTUAL rate error of the simulated clocks: each node's drawn uniformly in [-F, F] (0.001 = gains or loses 1 ms/s); compare --drift-bound, what the algorithms allow for",
		field: func(s *Spec) any { return &s.Clocks.Drift }},
	{Name: "skew", Group: GroupClocks, Unit: "ms", Label: "clock skew (ms)",
		Help: "clock offsets drawn uniformly in [-D/2, D/2]; a clock whose offset reaches ±D/2 turns its rate error round (slewed, as NTP does), " +
			"so two clocks differ by at most D for the whole run (0: no offsets, clocks run free)",
		field: func(s *Spec) any { return &s.Clocks.Skew }},
	{Name: "free-clocks", Group: GroupClocks, Label: "clocks run free (0/1)",
		Help:  "clocks run free: each keeps its --drift rate error for the whole run, never slewed back; --skew then bounds only the offsets at the start",
		field: func(s *Spec) any { return &s.Clocks.Free }},
	{Name: "clock-edges", Group: GroupClocks, Label: "clocks at the edges (0/1)",
		Help:  "each clock's offset is -D/2 or +D/2 (--skew) and its rate error -F or +F (--drift), signs drawn, instead of uniform in between: the extremes",
		field: func(s *Spec) any { return &s.Clocks.Edges }},

	{Name: "clock-jumps", Group: GroupClocks, Unit: "1/min", Label: "clock jumps per node per minute",
		Help: "simulator only: clock-jump episodes per node per minute (Poisson; 0: none), Jepsen's clock nemesis: the clock steps by up to " +
			"±--clock-jump-max for --clock-jump-len, then back (bump), or there and back every --clock-strobe (strobe)",
		field: func(s *Spec) any { return &s.Clocks.Jumps }},
	{Name: "clock-jump-max", Group: GroupClocks, Default: time.Second, Unit: "ms", Label: "largest clock jump (ms)",
		Help:  "a clock jump's step is drawn uniformly in [-D, D] (forward and back)",
		field: func(s *Spec) any { return &s.Clocks.JumpMax }},
	{Name: "clock-jump-len", Group: GroupClocks, Default: 2 * time.Second, Unit: "s", Label: "clock-jump episode length (s)",
		Help:  "a clock-jump episode lasts uniformly in [D/2, D], then the clock steps back",
		field: func(s *Spec) any { return &s.Clocks.JumpLen }},
	{Name: "clock-strobe", Group: GroupClocks, Unit: "ms", Label: "clock strobe period (ms)",
		Help:  "0: every clock jump is a bump (step, stay, step back); D > 0: a strobe (step there and back every D for the episode)",
		field: func(s *Spec) any { return &s.Clocks.Strobe }},

	{Name: "crash-rate", Group: GroupFaults, Unit: "1/min", Label: "crashes per node per minute",
		Help:  "crashes per node per minute of true time (Poisson; 0: none)",
		field: func(s *Spec) any { return &s.Faults.CrashRate }},
	{Name: "downtime", Group: GroupFaults, Default: 2 * time.Second, Unit: "s", Label: "downtime after a crash (s)",
		Help:  "a crashed node restarts after a time drawn uniformly in [D/2, D]",
		field: func(s *Spec) any { return &s.Faults.Downtime }},
	{Name: "partitions", Group: GroupFaults, Unit: "1/min", Label: "partitions per minute",
		Help:  "partition episodes per minute (each splits the nodes in two random groups; 0: none)",
		field: func(s *Spec) any { return &s.Faults.Partitions }},
	{Name: "partition-len", Group: GroupFaults, Default: 3 * time.Second, Unit: "s", Label: "partition length (s)",
		Help:  "a partition heals after a time drawn uniformly in [D/2, D]",
		field: func(s *Spec) any { return &s.Faults.PartitionLen }},
	{Name: "pause-rate", Group: GroupFaults, Unit: "1/min", Label: "process pauses per node per minute",
		Help: "simulator only: process pauses per node per minute (Poisson; 0: none): a paused node handles nothing (timers, messages and inputs wait) " +
			"and resumes with its clock having run on",
		field: func(s *Spec) any { return &s.Faults.PauseRate }},
	{Name: "pause-max", Group: GroupFaults, Default: 10 * time.Second, Unit: "s", Label: "longest pause (s)",
		Help:  "a process pause lasts uniformly in [0, D]",
		field: func(s *Spec) any { return &s.Faults.PauseMax }},

	{Name: "fsync-latency", Group: GroupDisk, Default: 2 * time.Millisecond, Unit: "ms", Label: "fsync latency (ms)",
		Help:  "mean latency of one fsync on the simulated disk",
		field: func(s *Spec) any { return &s.Disk.FsyncLatency }},
	{Name: "group-commit", Group: GroupDisk, Default: true, Label: "group commit (0/1)",
		Help:  "records arriving during a sync are written and synced together (--group-commit=false: one fsync per record)",
		field: func(s *Spec) any { return &s.Disk.GroupCommit }},
	{Name: "background-writer", Group: GroupDisk, Label: "background disk writer (0/1)",
		Help:  "a background writer saturates the disk (FaTLease Fig. 10)",
		field: func(s *Spec) any { return &s.Disk.Background }},
	{Name: "disk-dir", Group: GroupDisk, Label: "log directory",
		Help:  "udp environment: directory for the real log files (default: a temporary directory)",
		field: func(s *Spec) any { return &s.Disk.Dir }},
}

// LoopbackDatagram is the udp environment's default datagram size on
// loopback (udp.LoopbackDatagram; it lives here for --datagram's help,
// since runner/udp imports this package).
const LoopbackDatagram = 16 << 10

// Params is the parameter table, in declaration order. The slice is a
// copy; its entries share the table's accessors.
func Params() []Param { return append([]Param(nil), params...) }

// ParamsOf lists the parameters of the given groups, in table order.
func ParamsOf(groups ...Group) []Param {
	var out []Param
	for _, p := range params {
		for _, g := range groups {
			if p.Group == g {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// ParamNames lists the names of ps, in their order.
func ParamNames(ps []Param) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// NamedParams are the named parameters, in that order; a name not in the
// table is a programming error (a panic).
func NamedParams(names ...string) []Param {
	ps := make([]Param, len(names))
	for i, n := range names {
		p, err := LookupParam(n, nil)
		if err != nil {
			panic(err)
		}
		ps[i] = p
	}
	return ps
}

// FormatParams writes the parameters ps of s as NAME=VALUE, separated by
// spaces: a scenario file's setup line (without its command) that
// SetParams reads back.
func FormatParams(s Spec, ps []Param) string {
	kv := make([]string, len(ps))
	for i, p := range ps {
		kv[i] = p.Name + "=" + p.Format(s)
	}
	return strings.Join(kv, " ")
}

// LookupParam finds a parameter by name among ps (nil: the whole table);
// an unknown name is an error that lists the valid ones.
func LookupParam(name string, ps []Param) (Param, error) {
	if ps == nil {
		ps = params
	}
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	return Param{}, fmt.Errorf("unknown parameter %q (valid: %s)", name, strings.Join(ParamNames(ps), ", "))
}

// Usage is the parameter's description for the command line's help.
func (p Param) Usage() string {
	if p.more != nil {
		return p.Help + p.more()
	}
	return p.Help
}

// Field is a pointer to the parameter's field in s: *string, *int,
// *int64, *uint64, *float64, *bool, *time.Duration or
// *algorithms.Ablations.
func (p Param) Field(s *Spec) any { return p.field(s) }

// Type names the value's type as the command line shows it.
func (p Param) Type() string {
	switch p.field(&Spec{}).(type) {
	case *string:
		return "string"
	case *algorithms.Ablations:
		return "strings"
	case *int:
		return "int"
	case *int64:
		return "int64"
	case *uint64:
		return "uint64"
	case *float64:
		return "float"
	case *bool:
		return "bool"
	case *time.Duration:
		return "duration"
	}
	panic("runner: parameter " + p.Name + " has a field of no known type")
}

// JSONKey is the parameter's key in the Spec's JSON: the name in
// snake_case, followed by the unit JSON counts it in where the name does
// not say it (durations are written in nanoseconds).
func (p Param) JSONKey() string {
	k := strings.ReplaceAll(p.Name, "-", "_")
	if p.Type() == "duration" {
		return k + "_ns"
	}
	switch p.Unit {
	case "1/min":
		return k + "_per_min"
	case "1/s":
		return k + "_per_sec"
	case "bytes/s":
		return k + "_bytes_per_sec"
	case "bytes":
		return k + "_bytes"
	case "lease spans":
		return k + "_spans"
	}
	return k
}

// JSONPath is the key's place in the Spec's JSON: inside the group's
// object for every group but algo and workload, whose keys are the Spec's
// own.
func (p Param) JSONPath() string {
	if p.Group == GroupAlgo || p.Group == GroupWorkload {
		return p.JSONKey()
	}
	return string(p.Group) + "." + p.JSONKey()
}

// Format writes the parameter's value in s as Set reads it back: floats
// exactly, durations as Go durations, lists comma-separated.
func (p Param) Format(s Spec) string {
	switch v := p.field(&s).(type) {
	case *string:
		return *v
	case *algorithms.Ablations:
		return strings.Join(*v, ",")
	case *int:
		return strconv.Itoa(*v)
	case *int64:
		return strconv.FormatInt(*v, 10)
	case *uint64:
		return strconv.FormatUint(*v, 10)
	case *float64:
		return strconv.FormatFloat(*v, 'g', -1, 64)
	case *bool:
		return strconv.FormatBool(*v)
	case *time.Duration:
		return v.String()
	}
	panic("runner: parameter " + p.Name + " has a field of no known type")
}

// Set parses text (as on the command line: "5ms", "0.001", "true",
// "a,b") into the parameter's field in s. Values are parsed, not
// validated: Spec.Validate says what is out of range.
func (p Param) Set(s *Spec, text string) error {
	var err error
	switch v := p.field(s).(type) {
	case *string:
		*v = text
	case *algorithms.Ablations:
		*v = nil
		if text != "" {
			*v = strings.Split(text, ",")
		}
	case *int:
		*v, err = strconv.Atoi(text)
	case *int64:
		*v, err = strconv.ParseInt(text, 10, 64)
	case *uint64:
		*v, err = strconv.ParseUint(text, 10, 64)
	case *float64:
		*v, err = strconv.ParseFloat(text, 64)
	case *bool:
		*v, err = strconv.ParseBool(text)
	case *time.Duration:
		*v, err = time.ParseDuration(text)
	}
	if err != nil {
		return fmt.Errorf("%s: %q is not a valid %s", p.Name, text, p.Type())
	}
	return nil
}

// scale is what one Unit of a duration parameter is.
func (p Param) scale() float64 {
	switch p.Unit {
	case "s":
		return float64(time.Second)
	case "ms":
		return float64(time.Millisecond)
	}
	return 1 // nanoseconds
}

// Numeric says whether the parameter is a number (Number, SetNumber):
// every one but the strings and lists. Booleans are 0 or 1.
func (p Param) Numeric() bool {
	t := p.Type()
	return t != "string" && t != "strings"
}

// Integer says whether only whole numbers are valid (SetNumber).
func (p Param) Integer() bool {
	switch p.Type() {
	case "int", "int64", "uint64", "bool":
		return true
	}
	return false
}

// Number reads the parameter from s as a number in its Unit.
func (p Param) Number(s Spec) (float64, error) {
	switch v := p.field(&s).(type) {
	case *int:
		return float64(*v), nil
	case *int64:
		return float64(*v), nil
	case *uint64:
		return float64(*v), nil
	case *float64:
		return *v, nil
	case *bool:
		if *v {
			return 1, nil
		}
		return 0, nil
	case *time.Duration:
		return float64(*v) / p.scale(), nil
	}
	return 0, fmt.Errorf("parameter %s is not a number", p.Name)
}

// SetNumber sets the parameter in s to x, in its Unit. x must be finite,
// not negative, and whole for an integer or boolean (0 or 1) parameter;
// nothing is rounded but a duration to the nanosecond.
func (p Param) SetNumber(s *Spec, x float64) error {
	switch {
	case !p.Numeric():
		return fmt.Errorf("parameter %s is not a number", p.Name)
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("parameter %s: %g is not a number", p.Name, x)
	case x < 0:
		return fmt.Errorf("parameter %s: %g is negative", p.Name, x)
	case p.Integer() && x != math.Trunc(x):
		return fmt.Errorf("parameter %s must be a whole number, got %g", p.Name, x)
	case p.Integer() && x > math.MaxInt32:
		return fmt.Errorf("parameter %s: %g is too large", p.Name, x)
	}
	switch v := p.field(s).(type) {
	case *int:
		*v = int(x)
	case *int64:
		*v = int64(x)
	case *uint64:
		*v = uint64(x)
	case *float64:
		*v = x
	case *bool:
		if x > 1 {
			return fmt.Errorf("parameter %s is 0 or 1, got %g", p.Name, x)
		}
		*v = x == 1
	case *time.Duration:
		*v = time.Duration(math.Round(x * p.scale()))
	}
	return nil
}

// setDefault puts p.Default into s. The table's defaults have their
// field's exact type (DefaultSpec sets every one, so a mismatch fails
// every test).
func (p Param) setDefault(s *Spec) {
	if p.Default == nil {
		return
	}
	f, d := reflect.ValueOf(p.field(s)).Elem(), reflect.ValueOf(p.Default)
	if f.Type() != d.Type() {
		panic(fmt.Sprintf("runner: parameter %s: default of type %s for a field of type %s", p.Name, d.Type(), f.Type()))
	}
	f.Set(d)
}

// SetParams sets key=value pairs (in order) of the parameters ps into s;
// what names the caller, for errors ("params", "disk").
func SetParams(s *Spec, what string, ps []Param, kv [][2]string) error {
	for _, e := range kv {
		p, err := LookupParam(e[0], ps)
		if err != nil {
			if hint := renamed[e[0]]; hint != "" {
				return fmt.Errorf("%s: unknown key %q: %s (valid: %s)", what, e[0], hint, strings.Join(ParamNames(ps), ", "))
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := p.Set(s, e[1]); err != nil {
			return fmt.Errorf("%s %w", what, err)
		}
	}
	return nil
}

// renamed names the parameter an earlier spelling now has, so a scenario
// file written before the table got one name per parameter fails with
// the fix in the message.
var renamed = map[string]string{
	"drift":   "the algorithms' allowance is drift-bound (drift is the clocks' actual rate error)",
	"timeout": "now response-timeout",
	"rounds":  "now max-rounds",
	"fsync":   "now fsync-latency",
}

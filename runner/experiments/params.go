package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"leaselab/runner"
)

// Setting sets one named parameter of a runner.Spec. Experiments are data:
// every sweep axis, facet and variant tweak is a list of Settings, and the
// table below is the only code that knows where a parameter lives in the
// Spec.
type Setting struct {
	Param string  `json:"param"`
	Value float64 `json:"value"`
}

// param is one entry of the parameter table.
type param struct {
	// Label is the axis title, with the unit.
	Label string
	// Integer: the value must be a whole number (no silent rounding).
	Integer bool
	// Min is the smallest valid value.
	Min float64
	set func(s *runner.Spec, v float64)
	get func(s runner.Spec) float64
	// Cost says how the simulator's work for one run grows with the
	// parameter (relative to its value at calibration): the run-time
	// estimate multiplies by Cost(v)/Cost(v0). nil: no effect.
	Cost func(v float64) float64
}

func linear(v float64) float64 { return math.Max(v, 1e-9) }

func ms(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }
func sec(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Second)))
}
func toMS(d time.Duration) float64  { return float64(d) / float64(time.Millisecond) }
func toSec(d time.Duration) float64 { return float64(d) / float64(time.Second) }
func flag(v float64) bool           { return v != 0 }
func unflag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// params is the table of everything an experiment may set or sweep.
var params = map[string]param{
	"leases": {Label: "batch size (leases)", Integer: true, Min: 1, Cost: linear,
		set: func(s *runner.Spec, v float64) { s.Leases = int(v) },
		get: func(s runner.Spec) float64 { return float64(s.Leases) }},
	"acceptors": {Label: "acceptors", Integer: true, Min: 1, Cost: linear,
		set: func(s *runner.Spec, v float64) { s.Acceptors = int(v) },
		get: func(s runner.Spec) float64 { return float64(s.Acceptors) }},
	"proposers": {Label: "proposers contending for one resource", Integer: true, Min: 1, Cost: linear,
		set: func(s *runner.Spec, v float64) { s.Proposers = int(v) },
		get: func(s runner.Spec) float64 { return float64(s.Proposers) }},
	"duration_s": {Label: "run length (s)", Min: 1e-9, Cost: linear,
		set: func(s *runner.Spec, v float64) { s.Duration = sec(v) },
		get: func(s runner.Spec) float64 { return toSec(s.Duration) }},
	"hold_ms": {Label: "hold time (ms)",
		set: func(s *runner.Spec, v float64) { s.Hold = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Hold) }},
	"pause_ms": {Label: "think time bound (ms)",
		set: func(s *runner.Spec, v float64) { s.Pause = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Pause) }},
	"release": {Label: "release after hold (0/1)", Integer: true,
		set: func(s *runner.Spec, v float64) { s.Release = flag(v) },
		get: func(s runner.Spec) float64 { return unflag(s.Release) }},
	"rtt_ms": {Label: "round-trip time (ms)",
		set: func(s *runner.Spec, v float64) { s.Net.RTT = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Net.RTT) }},
	"jitter_ms": {Label: "one-way jitter (ms)",
		set: func(s *runner.Spec, v float64) { s.Net.Jitter = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Net.Jitter) }},
	"bandwidth_kBps": {Label: "link bandwidth (kB/s, 0 = unlimited)",
		set: func(s *runner.Spec, v float64) { s.Net.Bandwidth = int64(math.Round(v * 1024)) },
		get: func(s runner.Spec) float64 { return float64(s.Net.Bandwidth) / 1024 }},
	"datagram_bytes": {Label: "largest datagram (bytes, 0 = the environment's default; udp only)", Integer: true,
		set: func(s *runner.Spec, v float64) { s.Net.Datagram = int(v) },
		get: func(s runner.Spec) float64 { return float64(s.Net.Datagram) }},
	"loss": {Label: "message loss probability",
		set: func(s *runner.Spec, v float64) { s.Net.Loss = v },
		get: func(s runner.Spec) float64 { return s.Net.Loss }},
	"dup": {Label: "duplication probability",
		set: func(s *runner.Spec, v float64) { s.Net.Dup = v },
		get: func(s runner.Spec) float64 { return s.Net.Dup }},
	"reorder": {Label: "reordering probability",
		set: func(s *runner.Spec, v float64) { s.Net.Reorder = v },
		get: func(s runner.Spec) float64 { return s.Net.Reorder }},
	"skew_ms": {Label: "clock skew (ms)",
		set: func(s *runner.Spec, v float64) { s.Clocks.Skew = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Clocks.Skew) }},
	"drift": {Label: "clock rate error (fraction)",
		set: func(s *runner.Spec, v float64) { s.Clocks.Drift = v },
		get: func(s runner.Spec) float64 { return s.Clocks.Drift }},
	"crash_rate": {Label: "crashes per node per minute",
		set: func(s *runner.Spec, v float64) { s.Faults.CrashRate = v },
		get: func(s runner.Spec) float64 { return s.Faults.CrashRate }},
	"downtime_s": {Label: "downtime after a crash (s)",
		set: func(s *runner.Spec, v float64) { s.Faults.Downtime = sec(v) },
		get: func(s runner.Spec) float64 { return toSec(s.Faults.Downtime) }},
	"partitions": {Label: "partitions per minute",
		set: func(s *runner.Spec, v float64) { s.Faults.Partitions = v },
		get: func(s runner.Spec) float64 { return s.Faults.Partitions }},
	"partition_len_s": {Label: "partition length (s)",
		set: func(s *runner.Spec, v float64) { s.Faults.PartitionLen = sec(v) },
		get: func(s runner.Spec) float64 { return toSec(s.Faults.PartitionLen) }},
	"fsync_ms": {Label: "fsync latency (ms)",
		set: func(s *runner.Spec, v float64) { s.Disk.FsyncLatency = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Disk.FsyncLatency) }},
	"group_commit": {Label: "group commit (0/1)", Integer: true,
		set: func(s *runner.Spec, v float64) { s.Disk.GroupCommit = flag(v) },
		get: func(s runner.Spec) float64 { return unflag(s.Disk.GroupCommit) }},
	"background_writer": {Label: "background disk writer (0/1)", Integer: true,
		set: func(s *runner.Spec, v float64) { s.Disk.Background = flag(v) },
		get: func(s runner.Spec) float64 { return unflag(s.Disk.Background) }},
	"lease_s": {Label: "lease span T (s)", Min: 1e-9,
		set: func(s *runner.Spec, v float64) { s.Params.LeaseSpan = sec(v) },
		get: func(s runner.Spec) float64 { return toSec(s.Params.LeaseSpan) }},
	"max_lease_s": {Label: "max lease M (s)", Min: 1e-9,
		set: func(s *runner.Spec, v float64) { s.Params.MaxLease = sec(v) },
		get: func(s runner.Spec) float64 { return toSec(s.Params.MaxLease) }},
	"dmax_ms": {Label: "d_max (ms)",
		set: func(s *runner.Spec, v float64) { s.Params.DMax = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Params.DMax) }},
	"drift_bound": {Label: "drift allowance (fraction)",
		set: func(s *runner.Spec, v float64) { s.Params.Drift = v },
		get: func(s runner.Spec) float64 { return s.Params.Drift }},
	"response_timeout_ms": {Label: "response timeout (ms)", Min: 1e-9,
		set: func(s *runner.Spec, v float64) { s.Params.ResponseTimeout = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Params.ResponseTimeout) }},
	"max_rounds": {Label: "rounds before a lease fails", Integer: true, Min: 1,
		set: func(s *runner.Spec, v float64) { s.Params.MaxRounds = int(v) },
		get: func(s runner.Spec) float64 { return float64(s.Params.MaxRounds) }},
	"backoff_ms": {Label: "retry backoff bound (ms)",
		set: func(s *runner.Spec, v float64) { s.Params.Backoff = ms(v) },
		get: func(s runner.Spec) float64 { return toMS(s.Params.Backoff) }},
}

// ParamNames lists the parameters an experiment may set, sorted.
func ParamNames() []string {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupParam(name string) (param, error) {
	p, ok := params[name]
	if !ok {
		return param{}, fmt.Errorf("unknown parameter %q (valid: %s)", name, strings.Join(ParamNames(), ", "))
	}
	return p, nil
}

// checkValue says what is wrong with v for parameter name, if anything.
func checkValue(name string, v float64) error {
	p, err := lookupParam(name)
	if err != nil {
		return err
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("parameter %s: %g is not a number", name, v)
	case v < p.Min:
		return fmt.Errorf("parameter %s: %g is below its minimum %g", name, v, p.Min)
	case p.Integer && v != math.Trunc(v):
		return fmt.Errorf("parameter %s must be a whole number, got %g", name, v)
	case p.Integer && v > math.MaxInt32:
		return fmt.Errorf("parameter %s: %g is too large", name, v)
	}
	return nil
}

// Apply applies settings to s in order; a later setting of the same
// parameter wins.
func Apply(s *runner.Spec, settings ...Setting) error {
	for _, st := range settings {
		if err := checkValue(st.Param, st.Value); err != nil {
			return err
		}
		params[st.Param].set(s, st.Value)
	}
	return nil
}

// Get reads parameter name from s.
func Get(s runner.Spec, name string) (float64, error) {
	p, err := lookupParam(name)
	if err != nil {
		return 0, err
	}
	return p.get(s), nil
}

// costRatio is how much more work a run at v is than one at v0, for the
// run-time estimate.
func costRatio(name string, v, v0 float64) float64 {
	p, ok := params[name]
	if !ok || p.Cost == nil {
		return 1
	}
	return p.Cost(v) / p.Cost(v0)
}

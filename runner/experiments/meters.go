package experiments

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"leaselab/runner"
)

// Meter is something an experiment plots: a JSON key of runner.Result
// ("leases_per_sec", "latency_ms.mean" for a nested field) or one of the
// derived meters below, scaled into the unit shown.
type Meter struct {
	Key   string  `json:"key"`
	Label string  `json:"label"` // panel title / table column, e.g. "throughput"
	Unit  string  `json:"unit"`  // e.g. "leases/s"; "" for counts
	Scale float64 `json:"scale"` // multiply the raw value (0: 1)
	LogY  bool    `json:"log_y"`
	// Sum: bars and tables show the total over repetitions instead of the
	// mean (e.g. violations found by a campaign).
	Sum bool `json:"sum,omitempty"`
	// Proportion: the values are 0 or 1 and the interval is Wilson's.
	Proportion bool `json:"proportion,omitempty"`
	// Max bounds the meter (in shown units, e.g. 100 for a percentage;
	// 0: none): charts clip intervals to [0, Max], since every meter here
	// is non-negative and a t interval from a few runs can leave the range.
	Max float64 `json:"max,omitempty"`
	// TableOnly: in the tables and CSV, not in the chart.
	TableOnly bool `json:"table_only,omitempty"`
}

// AxisLabel is the y-axis title: label and unit.
func (m Meter) AxisLabel() string {
	if m.Unit == "" {
		return m.Label
	}
	return m.Label + " (" + m.Unit + ")"
}

func (m Meter) scale() float64 {
	if m.Scale == 0 {
		return 1
	}
	return m.Scale
}

// derived meters are computed from several fields of a Result.
var derived = map[string]struct {
	doc string
	f   func(r runner.Result) float64
}{
	"availability": {"1 - blocked_fraction: share of wanted time during which someone held the lease",
		func(r runner.Result) float64 { return 1 - r.BlockedFraction }},
	"violated": {"1 if the run had any violation of the lease invariant, else 0",
		func(r runner.Result) float64 {
			if r.Violations > 0 {
				return 1
			}
			return 0
		}},
	"handoffs_per_sec": {"owner changes (a resource acquired by another node than its last holder) / seconds of the run",
		func(r runner.Result) float64 {
			if r.SimulatedNS <= 0 {
				return math.NaN()
			}
			return r.HandoffsPerSec
		}},
	"handoff_share": {"owner changes / leases acquired: the share of acquisitions that moved the lease to another node",
		func(r runner.Result) float64 {
			if r.LeasesAcquired == 0 {
				return math.NaN()
			}
			return float64(r.OwnerChanges) / float64(r.LeasesAcquired)
		}},
	"preemptions_per_lease": {"pre-empted rounds per lease acquired",
		func(r runner.Result) float64 {
			if r.LeasesAcquired == 0 {
				return math.NaN()
			}
			return float64(r.Preemptions) / float64(r.LeasesAcquired)
		}},
	"fsyncs_per_sec": {"fsyncs / simulated seconds",
		func(r runner.Result) float64 { return perSec(float64(r.Fsyncs), r.SimulatedNS) }},
	"net_bytes_per_sec": {"messages * wire size / simulated seconds: network bytes per second, averaged over the run",
		func(r runner.Result) float64 { return perSec(float64(r.Messages)*runner.WireSize, r.SimulatedNS) }},
	"preemption_chain_max": {"longest pre-emption chain (rounds lost in a row to higher ballots)",
		func(r runner.Result) float64 {
			m := 0
			for k, n := range r.PreemptionChains {
				if n > 0 && k > m {
					m = k
				}
			}
			return float64(m)
		}},
	"preemption_chain_mean": {"mean pre-emption chain length over acquisitions and abandoned attempts",
		func(r runner.Result) float64 {
			var sum, n float64
			for k, c := range r.PreemptionChains {
				sum += float64(k) * float64(c)
				n += float64(c)
			}
			if n == 0 {
				return 0
			}
			return sum / n
		}},
}

func perSec(v float64, ns int64) float64 {
	if ns <= 0 {
		return math.NaN()
	}
	return v / (float64(ns) / 1e9)
}

// column is one numeric column of the per-run CSV: a JSON key of
// runner.Result, found by reflection so that a meter added to Result shows
// up here without a change.
type column struct {
	key   string
	index []int // field path in runner.Result
}

// skipped are Result fields that are not per-run numbers (or not
// reproducible, like wall time) and so stay out of the CSV; the JSON
// output keeps all of them.
var skipped = map[string]bool{
	"algo": true, "workload": true, "env": true, "seed": true, "trace_hash": true,
	"params": true, "violation_list": true, "preemption_chains": true, "wall_ms": true,
}

var resultColumns = func() []column {
	var cols []column
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("json"), ",")[0]
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			key := prefix + tag
			if skipped[key] {
				continue
			}
			idx := append(append([]int{}, index...), i)
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(f.Type, key+".", idx)
			case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64, reflect.Uint64:
				cols = append(cols, column{key: key, index: idx})
			}
		}
	}
	walk(reflect.TypeOf(runner.Result{}), "", nil)
	return cols
}()

// derivedKeys is the derived meters in a fixed order.
var derivedKeys = sortedKeys(derived)

// MeterKeys lists every key a Meter may name: Result's numeric JSON keys
// (nested ones dotted), then the derived meters.
func MeterKeys() []string {
	ks := make([]string, 0, len(resultColumns)+len(derivedKeys))
	for _, c := range resultColumns {
		ks = append(ks, c.key)
	}
	return append(ks, derivedKeys...)
}

var columnIndex = func() map[string][]int {
	m := map[string][]int{}
	for _, c := range resultColumns {
		m[c.key] = c.index
	}
	return m
}()

// Value extracts meter key from r (raw, unscaled).
func Value(r runner.Result, key string) (float64, error) {
	if d, ok := derived[key]; ok {
		return d.f(r), nil
	}
	idx, ok := columnIndex[key]
	if !ok {
		return 0, fmt.Errorf("unknown meter %q (valid: %s)", key, strings.Join(MeterKeys(), ", "))
	}
	v := reflect.ValueOf(r).FieldByIndex(idx)
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int()), nil
	case reflect.Uint64:
		return float64(v.Uint()), nil
	default:
		return v.Float(), nil
	}
}

func checkMeterKey(key string) error {
	if _, ok := derived[key]; ok {
		return nil
	}
	if _, ok := columnIndex[key]; ok {
		return nil
	}
	return fmt.Errorf("unknown meter %q (valid: %s)", key, strings.Join(MeterKeys(), ", "))
}

// CheckMeter says whether key names a meter (MeterKeys).
func CheckMeter(key string) error { return checkMeterKey(key) }

// Measure is meter key of a result as the statistics see it: the raw
// value, or NaN where the meter does not apply (an unknown key, or the
// "none" of a meter that has one: no lease, no failover).
func Measure(r runner.Result, key string) float64 {
	v, err := Value(r, key)
	if err != nil || noneIfNegative[key] && v < 0 {
		return math.NaN()
	}
	return v
}

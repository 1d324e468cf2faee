// Package faults is the simulated world's randomness and the fault-kind
// table: the clock model, the named per-purpose random streams of a seed,
// the draws that decide what the network and the fault schedule do, and
// (kinds.go, choice.go) every fault kind with its parameters, the
// environments that can inject it, its scenario commands, explorer
// budget, trace kinds and exercised counters, and how a campaign seed
// draws it. Every draw takes its stream explicitly (no package state), so
// concurrent runs can share the package. It imports runner (the table
// refers to the Spec and the Result), and runner none of it.
package faults

import (
	"math"
	"math/bits"

	"leaselab/algorithms"
)

// Clock is a simulated node clock:
//
//	local(t) = Offset + t + floor(t * RatePPB / 1e9)
//
// with t the true time in ns. The rate error is kept in parts per billion
// and all arithmetic is integer (128-bit products), so the mapping is exact
// and identical on every platform: no floating point, no fused
// multiply-add differences between architectures.
type Clock struct {
	Offset  int64 // ns
	RatePPB int64 // rate error in parts per billion; > -5e8 (Spec.Validate keeps drift < 0.5)
}

// NewClock builds a clock from an offset and a fractional rate error
// (0.001 = gains 1 ms per second), rounding the rate to whole ppb.
func NewClock(offset int64, rate float64) Clock {
	return Clock{Offset: offset, RatePPB: int64(math.Round(rate * 1e9))}
}

// mulDivFloor returns floor(a*b/1e9) for any int64 a, b whose result fits.
func mulDivFloor(a, b int64) int64 {
	neg := (a < 0) != (b < 0)
	ua, ub := uabs(a), uabs(b)
	hi, lo := bits.Mul64(ua, ub)
	const d = 1_000_000_000
	if hi >= d {
		// The quotient would not fit in 64 bits: saturate. Only reachable
		// for times of centuries.
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	var q, r uint64
	if hi == 0 {
		// The usual case (|a*b| below 2^64): a division by a constant,
		// which compiles to a multiplication, where Div64 is the
		// processor's slow 128-bit divide. Same quotient and remainder.
		q, r = lo/d, lo%d
	} else {
		q, r = bits.Div64(hi, lo, d)
	}
	if q > math.MaxInt64 {
		q = math.MaxInt64
	}
	if neg {
		if r != 0 {
			q++ // floor of a negative quotient
		}
		return -int64(q)
	}
	return int64(q)
}

func uabs(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// Local returns the clock's reading at true time t.
func (c Clock) Local(t int64) algorithms.Local {
	if c.RatePPB == 0 {
		// A clock without rate error (the default spec's): no product
		// to take, and the same reading.
		return algorithms.Local(c.Offset + t)
	}
	return algorithms.Local(c.Offset + t + mulDivFloor(t, c.RatePPB))
}

// TrueAt returns the first true time t at which the clock reads l or more.
// local(t) is non-decreasing and grows by at least 1 every few ns (the rate
// is above 0.5), so the answer exists; it is found from an estimate and
// corrected by a few steps.
func (c Clock) TrueAt(l algorithms.Local) int64 {
	target := int64(l) - c.Offset // t + floor(t*r/1e9) >= target
	if int64(l) > clockHorizon || target > clockHorizon {
		return math.MaxInt64 // "never": far beyond any run
	}
	if int64(l) < -clockHorizon || target < -clockHorizon {
		return -clockHorizon
	}
	if c.RatePPB == 0 {
		return target // local(t) = Offset + t: exact, no estimate to correct
	}
	// Estimate t = target * 1e9 / (1e9 + r), then walk to the exact first
	// instant: local(t) >= l and local(t-1) < l.
	t := estimateDiv(target, 1_000_000_000+c.RatePPB)
	for int64(c.Local(t)) < int64(l) {
		t++
	}
	for int64(c.Local(t-1)) >= int64(l) {
		t--
	}
	return t
}

// clockHorizon bounds the readings TrueAt converts exactly (about 73
// years); beyond it a deadline is "never".
const clockHorizon = 1 << 61

// estimateDiv returns about target*1e9/den (|target| <= clockHorizon, den
// in (5e8, 1.5e9)) using 128-bit arithmetic.
func estimateDiv(target, den int64) int64 {
	neg := target < 0
	hi, lo := bits.Mul64(uabs(target), 1_000_000_000)
	q, _ := bits.Div64(hi, lo, uint64(den))
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// Slewing: a disciplined clock's offset from true time drifts at its rate
// error until it reaches the skew bound, then the rate error turns round
// (the simulator schedules the turn).

// UntilBound returns how long (ns of true time) after now c's offset takes
// to reach the bound (±bound) it is heading for; false if it never does
// within any run (no rate error, no bound, or too far).
func (c Clock) UntilBound(now, bound int64) (int64, bool) {
	if c.RatePPB == 0 || bound == 0 {
		return 0, false
	}
	off := int64(c.Local(now)) - now
	dist := bound - off // heading up
	if c.RatePPB < 0 {
		dist = off + bound // heading down
	}
	if dist < 0 {
		dist = 0
	}
	hi, lo := bits.Mul64(uint64(dist), 1_000_000_000)
	rate := uint64(uabs(c.RatePPB))
	if hi >= rate {
		return 0, false // beyond any run
	}
	dt, rem := bits.Div64(hi, lo, rate)
	if rem != 0 {
		dt++
	}
	if dt == 0 {
		dt = 1 // turn round at the next instant, never twice at one
	}
	if dt > math.MaxInt64/2 {
		return 0, false
	}
	return int64(dt), true
}

// Stopped is c with no rate error from true time now on, its reading
// continuous there.
func (c Clock) Stopped(now int64) Clock {
	return Clock{Offset: int64(c.Local(now)) - now}
}

// Turned returns c with its rate error turned round at true time now,
// reading the same there.
func (c Clock) Turned(now int64) Clock {
	local := int64(c.Local(now))
	nc := Clock{RatePPB: -c.RatePPB}
	nc.Offset = local - now - mulDivFloor(now, nc.RatePPB)
	return nc
}

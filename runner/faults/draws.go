package faults

import (
	"math"
	"math/rand/v2"
	"time"
)

// DrawClocks draws the clocks of n nodes from seed's clock stream: offset
// uniform in [-skew/2, skew/2] ns and rate error uniform in [-drift,
// drift] (kept in parts per billion), or, with edges, each at one end of
// its range, the sign drawn.
func DrawClocks(seed uint64, n int, skew time.Duration, drift float64, edges bool) []Clock {
	crng := Rand(seed, StreamClock)
	sk := int64(skew)
	dr := int64(math.Round(drift * 1e9))
	clocks := make([]Clock, n)
	for i := range clocks {
		var off, rate int64
		switch {
		case edges:
			off, rate = sk/2, dr
			if crng.IntN(2) == 0 {
				off = -off
			}
			if crng.IntN(2) == 0 {
				rate = -rate
			}
		default:
			if sk > 0 {
				off = crng.Int64N(sk+1) - sk/2
			}
			if dr > 0 {
				rate = crng.Int64N(2*dr+1) - dr
			}
		}
		clocks[i] = Clock{Offset: off, RatePPB: rate}
	}
	return clocks
}

// Link is what the network does to messages between two distinct nodes.
type Link struct {
	RTT, Jitter time.Duration
	// Loss, Dup, Reorder: the probability that a message is lost,
	// duplicated, or held back by up to max(2*RTT, 1 ms).
	Loss, Dup, Reorder float64
	// Stale: stall episodes per minute of each directed link, each lasting
	// uniform [0, StaleMax] ns.
	Stale    float64
	StaleMax int64
	// Late: the probability that a message is held back alone, uniform
	// [0, StaleMax] ns on top of its delay: later messages on its link
	// overtake it.
	Late float64
}

// Net draws, message by message, what the network does, from one stream
// (seed's StreamNet). A draw is taken only where the Link asks for it
// (Loss > 0, ...), so a link without a fault draws nothing for it. A Net
// is one run's stream: use it from one goroutine at a time (a concurrent
// environment draws under its lock, or keeps one Net per link or node).
type Net struct {
	Link
	rng *rand.Rand
}

// NewNet returns the network draws of a run with seed.
func NewNet(seed uint64, l Link) *Net { return &Net{Link: l, rng: Rand(seed, StreamNet)} }

// Lost draws whether a message is lost. The draws without their fault
// (zero probability, the usual case) return at once, inlined into the
// simulator's send path; the draw itself is a call of its own.
func (n *Net) Lost() bool { return n.Loss > 0 && n.below(n.Loss) }

// Duplicated draws whether a delivered message gets a second copy.
func (n *Net) Duplicated() bool { return n.Dup > 0 && n.below(n.Dup) }

// below draws whether a uniform [0, 1) draw falls below p. Not inlined,
// so that its callers' no-fault tests are.
//
//go:noinline
func (n *Net) below(p float64) bool { return n.rng.Float64() < p }

// Delay draws one message's one-way delay: RTT/2 + uniform [-Jitter,
// +Jitter] (floored at 0), plus, with probability Reorder, uniform [0,
// max(2*RTT, 1 ms)].
func (n *Net) Delay() int64 {
	d, _ := n.DelayHeld()
	return d
}

// DelayHeld is Delay that also says whether the message was held back
// (the Reorder draw came up), with the same draws in the same order.
func (n *Net) DelayHeld() (int64, bool) {
	d := int64(n.RTT) / 2
	if j := int64(n.Jitter); j > 0 {
		d += n.rng.Int64N(2*j+1) - j
		if d < 0 {
			d = 0
		}
	}
	if n.Reorder > 0 && n.rng.Float64() < n.Reorder {
		extra := 2 * int64(n.RTT)
		if extra < 1_000_000 {
			extra = 1_000_000
		}
		d += n.rng.Int64N(extra + 1)
		return d, true
	}
	return d, false
}

// LateHold draws whether a message is held back alone (Late) and for how
// long; no draw without Late.
func (n *Net) LateHold() (int64, bool) {
	if n.Late == 0 {
		return 0, false
	}
	return n.lateHold()
}

func (n *Net) lateHold() (int64, bool) {
	if n.below(n.Late) {
		return n.rng.Int64N(n.StaleMax + 1), true
	}
	return 0, false
}

// Stall is a link's stall episode, [Start, End).
type Stall struct{ Start, End int64 }

// NextStall draws a link's next stall episode after true time from.
func (n *Net) NextStall(from int64) Stall {
	start := from + int64(n.rng.ExpFloat64()*60e9/n.Stale)
	return Stall{Start: start, End: start + 1 + n.rng.Int64N(n.StaleMax+1)}
}

// Schedule draws the fault schedule (crashes, downtimes, partitions) from
// one stream (seed's StreamFault); like Net, one goroutine at a time.
type Schedule struct{ rng *rand.Rand }

// NewSchedule returns the fault-schedule draws of a run with seed.
func NewSchedule(seed uint64) *Schedule { return &Schedule{rng: Rand(seed, StreamFault)} }

// NewStreamSchedule returns fault-schedule draws from another of seed's
// streams (StreamPause, StreamJump): a fault kind with a stream of its own
// leaves the draws of the others as they were.
func NewStreamSchedule(seed, stream uint64) *Schedule { return &Schedule{rng: Rand(seed, stream)} }

// Upto draws uniformly in [0, d].
func (s *Schedule) Upto(d int64) int64 { return s.rng.Int64N(d + 1) }

// Gap draws a Poisson process's next gap (ns) for rate events per minute.
func (s *Schedule) Gap(perMinute float64) int64 {
	return int64(s.rng.ExpFloat64() * 60e9 / perMinute)
}

// Length draws how long a crash or a partition lasts: uniform in [d/2, d].
func (s *Schedule) Length(d int64) int64 {
	return d/2 + s.rng.Int64N(d-d/2+1)
}

// Split puts every node on side 0 or 1 of a partition at random, both
// sides non-empty (len(side) > 1).
func (s *Schedule) Split(side []uint8) {
	a, b := 0, 0
	for i := range side {
		side[i] = uint8(s.rng.IntN(2))
		if side[i] == 0 {
			a++
		} else {
			b++
		}
	}
	if a == 0 || b == 0 {
		// Everyone landed on one side: move one random node across.
		k := s.rng.IntN(len(side))
		side[k] ^= 1
	}
}

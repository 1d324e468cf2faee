package udp

import (
	"time"

	"leaselab/algorithms"
)

// Clock is a node's local clock over the process's monotonic clock.
//
// True time is time.Since(Start) in nanoseconds: when all nodes share one
// process (and so one Start) it is the common reference the checker needs.
// A node's local clock may be offset and run at a different rate, to
// emulate loosely synchronised hosts on one machine (Spec.Clocks):
//
//	local = Offset + true * (1 + Rate)
//
// Offset and Rate are zero for a real node process, whose local clock is
// then simply its own monotonic clock since it started.
type Clock struct {
	Start  time.Time
	Offset int64
	Rate   float64
}

// True is the current true time in ns since Start.
func (c *Clock) True() int64 { return int64(time.Since(c.Start)) }

// LocalAt converts a true time to the node's local reading.
func (c *Clock) LocalAt(t int64) algorithms.Local {
	if c.Rate == 0 {
		return algorithms.Local(c.Offset + t)
	}
	return algorithms.Local(c.Offset + t + int64(float64(t)*c.Rate))
}

// TrueAt converts a local reading to the true time at which the node's
// clock shows it (used to arm timers and to end hold intervals).
func (c *Clock) TrueAt(l algorithms.Local) int64 {
	if c.Rate == 0 {
		return int64(l) - c.Offset
	}
	return int64(float64(int64(l)-c.Offset) / (1 + c.Rate))
}

// Now returns true time and the local reading at that instant.
func (c *Clock) Now() (int64, algorithms.Local) {
	t := c.True()
	return t, c.LocalAt(t)
}

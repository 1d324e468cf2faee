package udp

import (
	"time"

	"leaselab/algorithms"
	"leaselab/runner/faults"
)

// Clock is a node's local clock over the process's monotonic clock.
//
// True time is time.Since(Start) in nanoseconds: when all nodes share one
// process (and so one Start) it is the common reference the checker needs.
// A node's local clock may be offset and run at a different rate (Map, the
// runner's exact integer clock model, the same one the simulator uses), to
// emulate loosely synchronised hosts on one machine (Spec.Clocks). The zero
// Map reads true time, as a real node process does.
type Clock struct {
	Start time.Time
	Map   faults.Clock
}

// True is the current true time in ns since Start.
func (c *Clock) True() int64 { return int64(time.Since(c.Start)) }

// LocalAt converts a true time to the node's local reading.
func (c *Clock) LocalAt(t int64) algorithms.Local {
	if c.Map == (faults.Clock{}) {
		return algorithms.Local(t)
	}
	return c.Map.Local(t)
}

// TrueAt is the first true time at which the node's clock reads l (used to
// arm timers and to end hold intervals).
func (c *Clock) TrueAt(l algorithms.Local) int64 {
	if c.Map == (faults.Clock{}) {
		return int64(l)
	}
	return c.Map.TrueAt(l)
}

// Now returns true time and the local reading at that instant.
func (c *Clock) Now() (int64, algorithms.Local) {
	t := c.True()
	return t, c.LocalAt(t)
}

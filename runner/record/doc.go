// Package record turns what happens in a run into its Result, the same way
// in every environment: the Recorder (meters, the static-deadlock
// detector, the holds CSV; it feeds the lease-invariant checker,
// runner/checker, and observes it), the Tracer (the trace, its ring of
// recent records and its hash, Result.TraceHash), the Clocks interface
// they convert local deadlines with, and the percentile helpers.
package record

// Package record turns what happens in a run into its Result and its
// trace, the same way in every environment and for the etcd peer:
//
//   - the Recorder (recorder.go): pending requests and what became of
//     them, hold intervals (it feeds the lease-invariant checker,
//     runner/checker, and observes it), wanted and blocked time, static
//     deadlocks; it tells its meters (meters.go), each a few Result
//     fields, every happening they have a hook for;
//   - the protected store (store.go): writes and what a fenced or plain
//     store does with them, and the double-belief meter, which a paused
//     node's belief extends;
//   - the Tracer (trace.go): hashes every trace record
//     (Result.TraceHash) and hands it to its observers (runner.Observer);
//   - the sinks (sinks.go), observers that write records out: JSON lines,
//     the holds CSV, the window before a violation;
//   - the views (views.go), observers that in-process views share: the
//     hold intervals and the crash/restart/partition state machine;
//   - the Clocks interface the Recorder converts local deadlines with, and
//     the percentile helpers.
package record

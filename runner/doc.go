// Package runner runs lease algorithms (see package algorithms) on
// workloads, measures them and checks the lease invariant.
//
// Entry points: Run (one experiment), Check (a seeded fault campaign),
// Replay (a scenario file, see testdata/README.md).
//
// The pieces, and who uses them:
//
//   - the simulator (sim.go, disk.go, clock.go, evqueue.go): a
//     discrete-event simulation in virtual true time, driven by one seed,
//     with per-link latency, jitter, loss, duplication, reordering,
//     bandwidth, partitions, crashes and restarts, drifting clocks and a
//     disk model. Same spec and seed, same trace (Result.TraceHash).
//   - environment-independent parts that every environment reuses: the
//     workload Driver (workload.go), the Recorder that turns happenings
//     into Result meters (recorder.go), the lease-invariant Checker
//     (checker.go) and the Tracer (trace.go). An environment implements
//     Env (env.go) and feeds them; the udp environment (runner/udp) does
//     so over real sockets and registers itself with RegisterEnv.
//
// Randomness: every random choice of a simulated run comes from
// math/rand/v2 PCG streams seeded with Spec.Seed: one for the network, one
// for faults, one for clocks, one for the disk, one for the workload
// driver, and one per node incarnation (Config.Rand). The simulator is
// single-threaded and never lets map order or scheduling reach a result,
// so GOMAXPROCS does not matter; Check runs seeds in parallel but sums
// them in seed order. Results are reproducible on one platform; floating
// point inside math.Log/Exp (fault and fsync draws) could differ across
// CPU architectures.
//
// Local clocks: node i reads offset_i + t + floor(t*rate_i) at true time t
// (Clock). Local readings start near 0 and may be negative by up to
// Skew/2; algorithms must not treat any particular Local value as special.
package runner

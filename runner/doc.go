// Package runner runs lease algorithms (see package algorithms) on
// workloads, measures them and checks the lease invariant.
//
// This package is the public API only: Spec (what to run), Plan (a Spec
// resolved), Result (what a run measured), Options (optional outputs),
// Run, the environment registry (RegisterEnv, Envs), ErrBadSpec, Meta
// (provenance), and the trace record (TraceRec) that Options.Observers see
// as a run happens. Resolve validates a spec and looks its names up once
// (the algorithm, the environment, the workload), where the spec enters
// the program; Run resolves and hands the Plan to its environment, and
// everything below takes the Plan, never a name. Environments register
// themselves from init, so a program imports each one it offers
// (runner/sim for "sim", runner/udp for "udp").
//
// The tree, each package importing only those listed after it:
//
//   - runner/experiments: the papers' evaluations, with plots (the only
//     package here that imports package plots).
//   - runner/peer/etcd: etcd as a peer (build tag etcd): the workloads
//     against etcd sessions and mutexes, measured by the same meters and
//     checker; not an environment, since etcd is not a Node.
//   - runner/campaign: seeded fault campaigns in the simulator (`leaselab
//     check`).
//   - runner/explore: explicit-state search over the scenario semantics.
//   - runner/htmlview: the interactive timeline page of a trace.
//   - runner/replaytest: runs a directory of scenario files as tests.
//   - runner/udp: the real-network environment ("udp"); its codec is
//     runner/udp/wire and its write-ahead log runner/udp/wal. It draws
//     clocks, partitions and network faults from runner/faults as the
//     simulator does, so one seed gives one fault schedule in both.
//   - runner/sim: the discrete-event simulator ("sim") and the scenario
//     interpreter (Replay, format in runner/sim/testdata/README.md).
//   - runner/workload: the Env interface environments implement, and the
//     workload Driver that plays the clients against it.
//   - runner/host: one node as every environment runs it (its lives and
//     restart counter, timers by key, group commit and durable records,
//     carrying out a step's Output); the simulator, UDP nodes and
//     algorithms/explorabletest embed it.
//   - runner/record: the Recorder and its meters (static deadlocks
//     among them), the Tracer (Result.TraceHash, and the observers of the
//     trace: the JSON-lines, holds-CSV and violation-window sinks, the
//     hold and fault views that the timeline and the page share), the
//     Clocks interface.
//   - runner (this package): Spec, Plan, Result, Run, TraceRec and
//     Observer, and the datagram bounds (MinDatagram, MaxDatagram) that
//     runner/udp/wire's layout must match.
//   - runner/faults: the clock model (Clock), the per-purpose random
//     streams of a seed, and the network and fault-schedule draws.
//   - runner/checker: the lease-invariant checker, hold intervals in,
//     overlaps (Violation) out.
//   - runner/restable, runner/timeq: a resource-id index and a time queue.
//   - runner/internal/pool, runner/internal/slab: the one bounded
//     parallel loop (campaign seeds, experiment runs, explorer chunks) and
//     the one slot array with a free list (simulator, checker).
//
// The simulator's, the campaigns' and the explorer's tests run the example
// lease server "central" (algorithms/example) and switch its planted
// faults on by ablation (grant-once, deadline, full-grant, restart-wait),
// so that each shows the checker catching a broken rule.
//
// An environment implements workload.Env and feeds the Driver and the
// Recorder, which feeds the checker (see workload.Env for the duties);
// host.Host.Step steps a node and carries out its output in the order the
// simulator, the scenario interpreter and the explorer share.
//
// Randomness: every random choice of a simulated run comes from
// math/rand/v2 PCG streams seeded with Spec.Seed: one for the network, one
// for faults, one for clocks, one for the disk, one for the workload
// driver, and one per node incarnation (Config.Rand); runner/faults names
// them. The simulator is single-threaded and never lets map order or
// scheduling reach a result, so GOMAXPROCS does not matter; a campaign runs
// seeds in parallel but sums them in seed order. Results are reproducible
// on one platform; floating point inside math.Log/Exp (fault and fsync
// draws) could differ across CPU architectures.
//
// Local clocks: node i reads offset_i + t + floor(t*rate_i) at true time t
// (faults.Clock). Local readings start near 0 and may be negative by up to
// Skew/2; algorithms must not treat any particular Local value as special.
package runner

// Package sim is the deterministic discrete-event simulator (sim.go,
// evqueue.go, disk.go, pause.go: process pauses and clock jumps, run.go)
// and the scenario interpreter (scenario.go, scenario_faults.go: Replay,
// format in testdata/README.md). Each node runs on a host.Host
// (its lives, timers, disk, and Step, with the simulator as its
// host.Env); the simulator owns time, the event queue, the network and
// the fsync latencies. It implements workload.Env, feeds the recorder
// (runner/record), draws its clocks and faults from runner/faults, and
// registers itself with runner.RegisterEnv as the environment "sim":
// import it (for its side effect, at least) wherever runner.Run should
// simulate.
package sim

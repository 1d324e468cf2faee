package experiments

import "fmt"

// Exposes says how to show what switching off ablation of algo breaks:
// a `leaselab check` command line and, where there is one, a scenario file
// for `leaselab replay`; for a rule that guards liveness, which meters to
// compare (starting with "liveness"). "" if the table has no entry
// (TestEveryAblationHasExposure keeps it complete).
//
// The algorithm packages describe their rules in words
// (algorithms.Ablation); the command lines live here, beside the
// experiments that run them, and `go test ./cmd/leaselab/` runs each.
func Exposes(algo, ablation string) string {
	return exposes[algo+"/"+ablation]
}

// exposes is keyed by "algorithm/ablation".
var exposes = func() map[string]string {
	m := map[string]string{
		"paxoslease/restart-wait":       "leaselab check --algo paxoslease --faults crash --ablate restart-wait; scenario paxoslease/testdata/paxoslease-restart-wait.txt",
		"paxoslease/drift-margin":       "leaselab check --algo paxoslease --faults drift --ablate drift-margin; scenario paxoslease/testdata/paxoslease-drift-margin.txt",
		"paxoslease/backoff":            "liveness: the contention workload with several proposers shows more preemptions (longer duelling chains) without backoff than with it, on the same seeds",
		"paxoslease/ballot-learning":    "liveness: contention and crash campaigns show more failed leases",
		"paxoslease/late-timer":         "scenario paxoslease/testdata/paxoslease-late-timer.txt (leaselab replay; the scenario sets ResponseTimeout above the quarantine, since the phase timer otherwise ends a prepare phase before the forgetful acceptor rejoins)",
		"paxoslease/count-by-message":   "leaselab check --algo paxoslease --faults dup --ablate count-by-message; scenario paxoslease/testdata/paxoslease-count-by-message.txt",
		"paxoslease/owner-only-release": "leaselab check --algo paxoslease --ablate owner-only-release --faults reorder --lease-span 100ms --max-lease 150ms --response-timeout 50ms --backoff 10ms --rtt 20ms --jitter 10ms --hold 30ms --pause 50ms (leases short against message delays); scenario paxoslease/testdata/paxoslease-owner-only-release.txt",
		"paxoslease/stale-owner-open":   "scenario paxoslease/testdata/paxoslease-stale-owner-open.txt (leaselab replay, with abandon-release also ablated)",
		"paxoslease/abandon-release":    "scenario paxoslease/testdata/paxoslease-abandon-release.txt (leaselab replay); also leaselab explore --algo paxoslease --ablate abandon-release --acceptors 1 --proposers 3 --inputs 4 --max-pending 0 and leaselab check --algo paxoslease --faults all --ablate abandon-release --seeds 2000",
		"paxoslease/rtt-backoff":        "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate rtt-backoff (owner changes per second fall: waiters sleep a fraction of Backoff, sized for the slowest network, and the releasing holder wins the lease back)",
		"paxoslease/release-promise":    "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate release-promise (owner changes per second fall); scenario paxoslease/testdata/handoff-release-promise-no-release-promise.txt (leaselab replay: no hand-off without a new prepare round)",
		"paxoslease/head-start":         "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate head-start (on this workload within a few per cent of the rule in force: the re-promised proposer rarely meets a woken waiter's prepare)",
		"paxoslease/failed-release":     "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate failed-release (split accepts wait out the acceptors' timers: a few acquisitions per second); scenario paxoslease/testdata/handoff-split-accept-no-failed-release.txt (leaselab replay: the split accept waits for the acceptors' timers)",
		"paxoslease/promise-guard":      "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate promise-guard (owner changes per second fall, pre-emptions rise); scenario paxoslease/testdata/handoff-release-promise-no-promise-guard.txt (leaselab replay: the newcomer preempts the re-promised proposer)",
		"paxoslease/queue-behind":       "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate queue-behind (owner changes per second fall: the releasing holder wins the lease back); scenario paxoslease/testdata/handoff-queue-behind-no-queue-behind.txt (leaselab replay)",
		"paxoslease/split-retry":        "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate split-retry (re-sent promises split among waiters stall the lease for Backoff or longer); scenario paxoslease/testdata/handoff-split-retry-no-split-retry.txt (leaselab replay)",
		"paxoslease/release-hints":      "liveness: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate release-hints (messages per lease fall about fourfold, and so do hand-offs and fairness: one contender takes almost every lease, Jain's index near 1/16; TestReleaseHintsFairness in cmd/leaselab checks it)",

		"paxoslease/cross-life-ballots": "scenario paxoslease/testdata/paxoslease-cross-life-ballots.txt (leaselab replay: a Propose and a Release of the holder's earlier life, delayed past its crash and quarantine, replace and clear its new lease at one acceptor); no seeded campaign of --faults all finds it",

		"fatlease/reused-ballots":     "scenario fatlease/testdata/reused-ballots.txt (leaselab replay); also leaselab explore --algo fatlease --ablate reused-ballots --acceptors 1 --proposers 2 --crashes 0 --inputs 4 --max-pending 0 (about 50k states)",
		"classicpaxos/reused-ballots": "scenario classicpaxos/testdata/reused-ballots.txt (leaselab replay); also leaselab explore --algo classicpaxos --ablate reused-ballots --acceptors 1 --proposers 2 --crashes 0 --inputs 4 --max-pending 0",

		"fatlease/restart-wait":            "leaselab check --algo fatlease --faults crash --ablate restart-wait (more often with --crash-rate 20 --downtime 10ms)",
		"fatlease/safety-period":           "leaselab check --algo fatlease --faults drift --ablate safety-period",
		"fatlease/previous-instance-check": "leaselab check --algo fatlease --faults crash,partition --ablate previous-instance-check",
		"fatlease/drift-margin":            "leaselab check --algo fatlease --faults all --ablate drift-margin --seeds 500 (free-running clocks, kind freeclock)",

		"classicpaxos/fsync": "leaselab check --algo classicpaxos --faults crash --crash-rate 20 --downtime 10ms --fsync-latency 500ms --ablate fsync (the default mix of `--faults all` with a 2 ms fsync rarely hits it)",

		"fairq/restart-wait":       "leaselab check --algo fairq --faults crash --ablate restart-wait; scenario paxoslease/fairq/testdata/fairq-restart-wait.txt; also leaselab explore --algo fairq --ablate restart-wait (3 acceptors, 2 proposers, 1 crash)",
		"fairq/drift-margin":       "leaselab check --algo fairq --faults drift --ablate drift-margin; scenario paxoslease/fairq/testdata/fairq-drift-margin.txt; also leaselab explore --algo fairq --ablate drift-margin --clocks drift",
		"fairq/late-timer":         "leaselab check --algo fairq --faults stale --ablate late-timer; scenario paxoslease/fairq/testdata/fairq-late-timer.txt; also leaselab explore --algo fairq --ablate late-timer",
		"fairq/count-by-message":   "leaselab check --algo fairq --faults dup,loss --ablate count-by-message (with duplicates alone a waiter is queued behind the holder and a duplicated grant only repeats a majority); scenario paxoslease/fairq/testdata/fairq-count-by-message.txt; also leaselab explore --algo fairq --ablate count-by-message --dups 1",
		"fairq/owner-only-release": "leaselab check --algo fairq --faults stale --ablate owner-only-release; scenario paxoslease/fairq/testdata/fairq-owner-only-release.txt; also leaselab explore --algo fairq --ablate owner-only-release --acceptors 1 --proposers 2 --inputs 4",
		"fairq/cross-life-ballots": "leaselab check --algo fairq --faults swarm --ablate cross-life-ballots --first-seed 91 --seeds 10 (seed 98; 3 of seeds 1 to 2,000 break, none of --faults all); scenario paxoslease/fairq/testdata/fairq-cross-life-ballots.txt (leaselab replay: a release of a proposer-only node's earlier life, delayed past its crash, clears its new life's record); also leaselab explore --algo fairq --ablate cross-life-ballots --acceptors 1 --proposers 2 --inputs 5 --max-pending 0",
		"fairq/keep-others":        "leaselab check --algo fairq --faults stale --ablate keep-others; scenario paxoslease/fairq/testdata/fairq-keep-others.txt; also leaselab explore --algo fairq --ablate keep-others --acceptors 1 --proposers 2 --inputs 4 --max-pending 0",
		"fairq/dead-ballots":       "leaselab check --algo fairq --faults stale --ablate dead-ballots; scenario paxoslease/fairq/testdata/fairq-dead-ballots.txt (it needs three proposers, a split and a timed-out round: leaselab explore found none within 1.5 M states in five configurations of 3 proposers or 2 acceptors)",
		"fairq/hold-guard":         "leaselab check --algo fairq --faults extend --ablate hold-guard; scenario paxoslease/fairq/testdata/fairq-hold-guard.txt; also leaselab explore --algo fairq --ablate hold-guard --acceptors 1 --proposers 2 --inputs 4",
		"fairq/named-successor":    "liveness: leaselab run --algo fairq --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --rtt 50us --jitter 10us --ablate named-successor (hand-offs per second collapse, 6,744 to 0.2 in the simulator: acceptors whose queues differ in order hand the lease to different waiters, every split waits a response time, and the passes that resolve it, naming nobody either, split it again); scenario paxoslease/fairq/testdata/handoff-named-successor-no-named-successor.txt (leaselab replay)",

		"central/restart-wait":       "leaselab check --algo central --acceptors 1 --faults crash --ablate restart-wait",
		"central/cross-life-ballots": "scenario algorithms/example/testdata/central-cross-life-ballots.txt (leaselab replay: a release of the client's earlier life, delayed past its crash, clears its new grant)",
		"central/drift-margin":       "leaselab check --algo central --acceptors 1 --faults drift --ablate drift-margin; scenario algorithms/example/testdata/central-drift-margin.txt",
		"central/grant-once":         "leaselab check --algo central --acceptors 1 --ablate grant-once",
		"central/deadline":           "leaselab check --algo central --acceptors 1 --ablate deadline",
		"central/full-grant":         "leaselab check --algo central --acceptors 1 --ablate full-grant",
	}
	// The two naive variants share their rules; each command names its own.
	for _, v := range []string{"naive", "naive-undo"} {
		m[v+"/restart-wait"] = fmt.Sprintf("leaselab check --algo %s --faults crash --ablate restart-wait", v)
		m[v+"/drift-margin"] = fmt.Sprintf("leaselab check --algo %s --faults drift --ablate drift-margin", v)
		m[v+"/count-by-message"] = fmt.Sprintf("leaselab check --algo %s --faults dup --ablate count-by-message", v)
		m[v+"/cross-life-ballots"] = fmt.Sprintf("scenario naive/testdata/%s-cross-life-ballots.txt (leaselab replay: an extension request and a Release of the holder's earlier life, delayed past its crash and silence, rename and clear its new grant at one acceptor)", v)
		m[v+"/owner-only-release"] = fmt.Sprintf("leaselab check --algo %s --faults dup,reorder --pause 1ms --hold 10ms --duration 60s --proposers 3 --ablate owner-only-release (quick re-acquisition with late messages)", v)
	}
	return m
}()

package main

import (
	"encoding/json"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// runJSON runs leaselab with args and --format json and decodes the
// result.
func runJSON(t *testing.T, args ...string) runner.Result {
	t.Helper()
	code, stdout, stderr := leaselab(append(args, "--format", "json")...)
	var res runner.Result
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return res
}

// Issue 23's runs: five contenders whose holders pause (up to 12 s, twice
// a minute per node) while writing every 50 ms. With a plain store a
// paused holder's late write lands after its successor's, and two nodes
// believe they hold; the fenced store rejects every such write.
func TestPausedHoldersWriteLate(t *testing.T) {
	for _, algo := range []string{"paxoslease", "fatlease", "naive-undo", "classicpaxos"} {
		args := []string{"run", "--algo", algo, "--workload", "contention", "--proposers", "5", "--duration", "120s",
			"--pause-rate", "2", "--pause-max", "12s", "--writes", "50ms", "--seed", "3"}
		plain := runJSON(t, append(args, "--store", "plain")...)
		fenced := runJSON(t, append(args, "--store", "fenced")...)
		if plain.DoubleBeliefMS <= 0 || plain.StaleWrites == 0 || plain.FencedRejects != 0 || plain.Violations != 0 {
			t.Errorf("%s, plain store: double belief %.1f ms, stale writes %d, rejects %d, violations %d",
				algo, plain.DoubleBeliefMS, plain.StaleWrites, plain.FencedRejects, plain.Violations)
		}
		if fenced.StaleWrites != 0 || fenced.FencedRejects == 0 || fenced.LiveRejects != 0 || fenced.Writes != plain.Writes {
			t.Errorf("%s, fenced store: stale writes %d, rejects %d (%d of current leases), writes %d (plain %d)",
				algo, fenced.StaleWrites, fenced.FencedRejects, fenced.LiveRejects, fenced.Writes, plain.Writes)
		}
	}
}

// Lock-delay: a client told its lease ends D early holds less, so with
// leases that expire the wanted time nobody held grows, and pauses leave
// two believers for less time (summed over seeds: the delay moves every
// later hand-off, so one seed can go either way).
func TestLockDelay(t *testing.T) {
	var blocked, double [2]float64
	for i, d := range []string{"0s", "1s"} {
		for _, seed := range []string{"1", "2", "3"} {
			r := runJSON(t, "run", "--algo", "paxoslease", "--proposers", "3", "--duration", "300s", "--release=false", "--hold", "0",
				"--pause-rate", "10", "--pause-max", "4s", "--seed", seed, "--lock-delay", d)
			if r.Violations != 0 {
				t.Fatalf("lock-delay %s seed %s: %d violations", d, seed, r.Violations)
			}
			blocked[i] += r.BlockedFraction
			double[i] += r.DoubleBeliefMS
		}
	}
	if blocked[1] <= blocked[0] || double[1] >= double[0] || double[0] == 0 {
		t.Errorf("lock-delay 1s: blocked %.3f (was %.3f), double belief %.1f ms (was %.1f), over three seeds", blocked[1], blocked[0], double[1], double[0])
	}
}

// Every registered algorithm says what its fencing token is, and its
// holders' writes carry one.
func TestEveryAlgorithmFences(t *testing.T) {
	for _, name := range algorithms.Names() {
		a, _ := algorithms.Lookup(name)
		if a.Fencing == "" {
			t.Errorf("%s: no Fencing", name)
		}
		s := runner.DefaultSpec()
		s.Algo, s.Duration, s.Writes = name, 20*time.Second, 50*time.Millisecond
		if _, err := runner.Resolve(s); err != nil {
			s.Acceptors = 1 // one lease server (central)
		}
		var writes, zero int
		obs := observerFunc(func(r *runner.TraceRec) {
			if r.Kind == runner.TraceWrite {
				writes++
				if r.X == 0 && r.Ballot == 0 {
					zero++
				}
			}
		})
		if _, err := runner.Run(s, runner.Options{Observers: []runner.Observer{obs}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if writes == 0 || zero > 0 {
			t.Errorf("%s: %d writes, %d of them without a fencing token (Event.Token of its Acquired events)", name, writes, zero)
		}
	}
}

type observerFunc func(r *runner.TraceRec)

func (f observerFunc) Observe(r *runner.TraceRec) { f(r) }

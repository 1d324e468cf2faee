package sim

import (
	"fmt"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/paxoslease"
	"leaselab/runner"
)

// afterEnd keeps the trace records after true time end.
type afterEnd struct {
	end  int64
	recs []runner.TraceRec
}

func (a *afterEnd) Observe(r *runner.TraceRec) {
	if r.T > a.end {
		a.recs = append(a.recs, *r)
	}
}

// In the settle stretch no fault starts and no message is lost or
// duplicated, free clocks stop drifting, no client asks again, and the
// run ends once nothing is left to answer, with every request answered.
func TestSettleIsQuiet(t *testing.T) {
	s := runner.DefaultSpec()
	s.Algo, s.Workload, s.Proposers = "paxoslease", "contention", 5
	s.Duration, s.Settle = time.Minute, 5*time.Minute
	s.Net.Loss, s.Net.Dup, s.Net.Reorder, s.Net.Late, s.Net.Stale = 0.1, 0.1, 0.2, 0.05, 2
	s.Faults.CrashRate, s.Faults.Downtime = 4, 2*time.Second
	s.Faults.Partitions, s.Faults.PartitionLen = 4, 3*time.Second
	s.Faults.PauseRate, s.Faults.PauseMax = 4, time.Second
	s.Clocks.Jumps, s.Clocks.Free, s.Clocks.Drift, s.Clocks.Skew = 4, true, 0.0005, 100*time.Millisecond
	s.Params.DMax = 500 * time.Millisecond
	for seed := uint64(1); seed <= 5; seed++ {
		s.Seed = seed
		obs := &afterEnd{end: int64(s.Duration)}
		res, err := Run(s, runner.Options{Observers: []runner.Observer{obs}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unanswered != 0 || !res.DrainMS.Valid() || res.SimulatedNS >= int64(s.Duration+s.Settle) {
			t.Fatalf("seed %d: %d unanswered, drained after %v ms, ended at %v", seed, res.Unanswered, res.DrainMS, time.Duration(res.SimulatedNS))
		}
		if res.Pauses == 0 || res.ClockJumps == 0 || res.LeasesAcquired == 0 {
			t.Fatalf("seed %d: %d pauses, %d clock jumps, %d leases: the run exercised too little", seed, res.Pauses, res.ClockJumps, res.LeasesAcquired)
		}
		for _, r := range obs.recs {
			bad := ""
			switch {
			case r.Kind == runner.TraceCrash, r.Kind == runner.TracePartition, r.Kind == runner.TracePause, r.Kind == runner.TraceDup:
				bad = r.Kind.String()
			case r.Kind == runner.TraceDrop && r.Sub == runner.DropLoss:
				bad = "loss"
			case r.Kind == runner.TraceClock && r.Y != 0:
				bad = fmt.Sprintf("a clock drifting at %d ppb", r.Y)
			case r.Kind == runner.TraceInput && r.Sub == uint8(algorithms.Acquire):
				bad = "a new request"
			}
			if bad != "" {
				t.Fatalf("seed %d: %s at %v, in the settle stretch", seed, bad, time.Duration(r.T))
			}
		}
	}
}

// Settle 0 is no settle stretch: the run ends at Duration and judges
// nothing (drain_ms null, no request counted unanswered).
func TestNoSettle(t *testing.T) {
	s := runner.DefaultSpec()
	s.Algo, s.Workload, s.Proposers = "paxoslease", "contention", 5
	res, err := Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.DrainMS.Valid() || res.Unanswered != 0 || res.SimulatedNS != int64(s.Duration) {
		t.Fatalf("drain %v ms, %d unanswered, ended at %v: want none, none, %v", res.DrainMS, res.Unanswered, time.Duration(res.SimulatedNS), s.Duration)
	}
}

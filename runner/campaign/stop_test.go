package campaign

import (
	"bytes"
	"reflect"
	"testing"

	"leaselab/algorithms/example"
	"leaselab/runner"
)

// StopAtFirst ends at the lowest violating seed, runs every seed before
// it, and gives the same summary whatever the number of workers.
func TestCheckStopAtFirst(t *testing.T) {
	cs := centralCampaign(example.AblateGrantOnce)
	full, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.ViolatingSeeds) == 0 {
		t.Fatal("the planted fault was not found")
	}
	cs.StopAtFirst = true
	var got []CheckResult
	for _, procs := range []int{1, 2, 4} {
		r, err := checkOn(procs, cs)
		if err != nil {
			t.Fatal(err)
		}
		r.WallMS = 0
		got = append(got, r)
	}
	first := full.ViolatingSeeds[0]
	r := got[0]
	if r.Seeds != int(first) || !reflect.DeepEqual(r.ViolatingSeeds, []uint64{first}) {
		t.Fatalf("stopped after %d seeds with violating %v; want %d seeds ending at seed %d", r.Seeds, r.ViolatingSeeds, first, first)
	}
	for i := 1; i < len(got); i++ {
		if !reflect.DeepEqual(got[i], r) {
			t.Fatalf("summary depends on the number of workers:\n%+v\n%+v", r, got[i])
		}
	}
}

// Options.Stop: a campaign interrupted sums the seeds that ran to their
// end from the first one on, says so, and re-runs nothing.
func TestCheckInterrupted(t *testing.T) {
	cs := centralCampaign(example.AblateGrantOnce)
	stop := make(chan struct{})
	close(stop)
	var trace bytes.Buffer
	r, err := Check(cs, runner.Options{Stop: stop, Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Seeds >= cs.Seeds || trace.Len() != 0 {
		t.Errorf("interrupted %v after %d of %d seeds, %d bytes of trace", r.Interrupted, r.Seeds, cs.Seeds, trace.Len())
	}
	if r.FirstSeed != cs.FirstSeed || r.Params.Algo != cs.Base.Algo || r.First == nil || r.ViolatingSpecs == nil || r.Swarm == nil {
		t.Errorf("every key must be there: %+v", r)
	}
}

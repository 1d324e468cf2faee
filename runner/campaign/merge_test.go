package campaign

import (
	"reflect"
	"testing"
	"time"

	"leaselab/algorithms/example"
	"leaselab/runner"
	"leaselab/runner/shard"
)

// checkParts runs cs split in n parts as check --shard i/n does.
func checkParts(t *testing.T, cs CheckSpec, n int) []CheckResult {
	t.Helper()
	parts := make([]CheckResult, n)
	for i := range parts {
		lo, hi := shard.Spec{Index: i, Count: n}.Range(cs.Seeds)
		p := cs
		p.FirstSeed, p.Seeds = cs.FirstSeed+uint64(lo), hi-lo
		r, err := Check(p, runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = r
	}
	return parts
}

// The parts of a campaign, merged, give the whole campaign's result: for
// a fixed mix, a swarm and a campaign stopped at its first violation, split
// evenly, unevenly and one seed a part. The planted fault violates in more
// than 20 seeds, so the first violations are cut as one process cuts them.
func TestMergeCheckEqualsWhole(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   func() CheckSpec
	}{
		{"all", func() CheckSpec { return centralCampaign(example.AblateGrantOnce) }},
		{"swarm", func() CheckSpec {
			cs := centralCampaign(example.AblateGrantOnce)
			cs.Faults = []string{Swarm}
			return cs
		}},
		{"clean", func() CheckSpec { return centralCampaign() }},
		{"pauses and writes", func() CheckSpec {
			// Paused holders write late: stale writes and double belief
			// to sum (double_belief_ms to the bit).
			base := runner.DefaultSpec()
			base.Algo = "paxoslease"
			base.Writes = 200 * time.Millisecond
			return CheckSpec{Base: base, Faults: []string{"pause", "crash"}, Seeds: 24, FirstSeed: 1, Vary: Vary{Workload: true, Downtime: true}}
		}},
		{"stop-at-first", func() CheckSpec {
			// Seeds 7 and 8 are clean, 9 violates.
			cs := restartCampaign("restart-wait")
			cs.FirstSeed, cs.Seeds, cs.StopAtFirst = 7, 12, true
			return cs
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.cs()
			whole, err := Check(cs, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.name == "clean" && whole.Violations != 0:
				t.Fatalf("central with every rule violates: %v", whole.ViolatingSeeds)
			case tc.name == "pauses and writes" && (whole.StaleWrites == 0 || len(whole.StaleWriteSeeds) < 2 || whole.DoubleBeliefMS == 0):
				t.Fatalf("%d stale writes in seeds %v, %v ms of double belief: the test needs them in more than one part",
					whole.StaleWrites, whole.StaleWriteSeeds, whole.DoubleBeliefMS)
			case tc.name == "stop-at-first" && whole.Seeds != 3:
				t.Fatalf("stopped after %d seeds, want 3: the test needs the first violation in a later part", whole.Seeds)
			case (tc.name == "all" || tc.name == "swarm") && len(whole.ViolatingSeeds) <= maxFirst:
				t.Fatalf("%d violating seeds: the test needs more than %d", len(whole.ViolatingSeeds), maxFirst)
			}
			whole.WallMS = 0
			for _, n := range []int{1, 3, 7, cs.Seeds} {
				merged, err := MergeCheck(cs, checkParts(t, cs, n))
				if err != nil {
					t.Fatal(err)
				}
				merged.WallMS = 0
				if !reflect.DeepEqual(merged, whole) {
					t.Errorf("%d parts merged:\n%+v\nwhole:\n%+v", n, merged, whole)
				}
			}
		})
	}
}

// Every counter of Exercised is summed by a merge, the named Counts key
// by key (a key only one side has included); a field that is neither an
// integer count nor a map of them fails here (merge would have to be told
// how to combine it).
func TestExercisedMergeSumsEveryField(t *testing.T) {
	var a, b Exercised
	av, bv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range av.NumField() {
		f := av.Field(i)
		switch {
		case f.CanInt():
			f.SetInt(int64(i + 1))
			bv.Field(i).SetInt(int64(100 * (i + 1)))
		case f.Kind() == reflect.Map && f.Type().Key().Kind() == reflect.String && f.Type().Elem().Kind() == reflect.Int64:
			f.Set(reflect.ValueOf(map[string]int64{"both": int64(i + 1), "a": 7}))
			bv.Field(i).Set(reflect.ValueOf(map[string]int64{"both": int64(100 * (i + 1)), "b": 9}))
		default:
			t.Fatalf("Exercised.%s is %s, not an integer count or a map of them", av.Type().Field(i).Name, f.Type())
		}
	}
	a.merge(b)
	for i := range av.NumField() {
		f := av.Field(i)
		if f.Kind() == reflect.Map {
			want := map[string]int64{"both": int64(101 * (i + 1)), "a": 7, "b": 9}
			if got := f.Interface(); !reflect.DeepEqual(got, want) {
				t.Errorf("Exercised.%s merged to %v, want %v", av.Type().Field(i).Name, got, want)
			}
		} else if got := f.Int(); got != int64(101*(i+1)) {
			t.Errorf("Exercised.%s merged to %d, want %d", av.Type().Field(i).Name, got, 101*(i+1))
		}
	}
	var empty Exercised
	empty.merge(b)
	if !reflect.DeepEqual(empty, b) {
		t.Errorf("merged into an empty Exercised: %+v, want %+v", empty, b)
	}
}

// MergeCheck keeps every part's counterexample, the earliest violation
// first (then the lower seed), and refuses parts out of order.
func TestMergeCheckCounterexamplesAndOrder(t *testing.T) {
	cs := centralCampaign(example.AblateGrantOnce)
	parts := checkParts(t, cs, 3)
	cx := func(seed uint64, start int64) *Counterexample {
		c := &Counterexample{File: "cx", ShrinkResult: ShrinkResult{Seed: seed}}
		c.RunViolation.StartNS = start
		return c
	}
	parts[0].Counterexample = cx(2, 900)
	parts[1].Counterexample = cx(15, 100)
	parts[2].Counterexample = cx(30, 100)
	m, err := MergeCheck(cs, parts)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []uint64
	for _, c := range m.Counterexamples {
		seeds = append(seeds, c.Seed)
	}
	if m.Counterexample == nil || m.Counterexample.Seed != 15 || !reflect.DeepEqual(seeds, []uint64{15, 30, 2}) {
		t.Errorf("counterexample %+v, all by seed %v; want seed 15 first, then 30 and 2", m.Counterexample, seeds)
	}
	parts[0], parts[2] = parts[2], parts[0]
	if _, err := MergeCheck(cs, parts); err == nil {
		t.Error("parts out of index order merged")
	}
}

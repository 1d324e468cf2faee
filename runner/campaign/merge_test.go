package campaign

import (
	"reflect"
	"testing"

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
		{"all", func() CheckSpec { return toyCampaign("test-double-grant") }},
		{"swarm", func() CheckSpec {
			cs := toyCampaign("test-double-grant")
			cs.Faults = []string{Swarm}
			return cs
		}},
		{"clean", func() CheckSpec { return toyCampaign("test-lock") }},
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
				t.Fatalf("the correct toy violates: %v", whole.ViolatingSeeds)
			case tc.name == "stop-at-first" && whole.Seeds != 3:
				t.Fatalf("stopped after %d seeds, want 3: the test needs the first violation in a later part", whole.Seeds)
			case tc.name != "clean" && !cs.StopAtFirst && len(whole.ViolatingSeeds) <= maxFirst:
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

// Every counter of Exercised is summed by a merge; a field that is not an
// integer count fails here (merge would have to be told how to combine
// it).
func TestExercisedMergeSumsEveryField(t *testing.T) {
	var a, b Exercised
	av, bv := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range av.NumField() {
		if !av.Field(i).CanInt() {
			t.Fatalf("Exercised.%s is %s, not an integer count", av.Type().Field(i).Name, av.Field(i).Kind())
		}
		av.Field(i).SetInt(int64(i + 1))
		bv.Field(i).SetInt(int64(100 * (i + 1)))
	}
	a.merge(b)
	for i := range av.NumField() {
		if got := av.Field(i).Int(); got != int64(101*(i+1)) {
			t.Errorf("Exercised.%s merged to %d, want %d", av.Type().Field(i).Name, got, 101*(i+1))
		}
	}
}

// MergeCheck keeps every part's counterexample, the earliest violation
// first (then the lower seed), and refuses parts out of order.
func TestMergeCheckCounterexamplesAndOrder(t *testing.T) {
	cs := toyCampaign("test-double-grant")
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

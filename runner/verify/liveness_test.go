package verify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/runner/internal/planted"
)

// A campaign whose seeds leave a request unanswered after their faults
// stop ends there with the liveness verdict, names the seed to re-run,
// and the battery goes on with the next configuration; the safety
// verdict stays clean (the planted bug only does less).
func TestBatteryJudgesLiveness(t *testing.T) {
	r, err := Run(Config{Algo: planted.Forgetful, Only: []string{"C1", "C3"}, Budget: 4 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations != 0 || r.Ran != 2 {
		t.Fatalf("%d violations, %d configurations ran: want 0 and 2", r.Violations, r.Ran)
	}
	if r.Unanswered == 0 || r.UnansweredBy != "C1" || r.UnansweredSpec == nil || r.UnansweredSpec.Settle == 0 {
		t.Fatalf("unanswered %d by %q (spec %v): want some, by C1, with its settle stretch", r.Unanswered, r.UnansweredBy, r.UnansweredSpec)
	}
	for _, c := range r.Configurations {
		if c.Stopped != StopUnanswered || c.Unanswered == 0 || c.Leases == 0 {
			t.Errorf("%s: stopped %s, %d unanswered, %d leases: want %s, some, some", c.ID, c.Stopped, c.Unanswered, c.Leases, StopUnanswered)
		}
	}
}

// A search with --liveness that comes to rest with a request unanswered,
// or in which a holder answers an Acquire of its lease late, fails the
// battery with the search's command and the path as a scenario; the
// safety verdict stays clean, and the configuration is not vacuous (it
// judged states at rest).
func TestBatterySearchJudgesLiveness(t *testing.T) {
	es, err := Matrix(planted.DeafHolder)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range es {
		if slices.Contains(e.Args, "--liveness=true") {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		t.Fatal("the matrix has no search with --liveness")
	}
	// A holder that never answers (at rest), and one that answers late
	// (the late-answer judgement alone).
	for _, algo := range []string{planted.DeafHolder, planted.LateHolder} {
		r, err := Run(Config{Algo: algo, Only: ids[:1], Budget: 4 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Configurations[0]
		if r.Violations != 0 || r.Unanswered == 0 || r.UnansweredBy != ids[0] || !strings.Contains(r.UnansweredRun, "--liveness=true") || r.UnansweredScenario == "" {
			t.Fatalf("%s: %d violations, %d unanswered by %q (%q): want 0, some, by %s", algo, r.Violations, r.Unanswered, r.UnansweredBy, r.UnansweredRun, ids[0])
		}
		if !c.Liveness || c.RestStates == 0 || c.Unanswered == 0 {
			t.Fatalf("%s %s: liveness %v, %d at rest, %d unanswered", algo, c.ID, c.Liveness, c.RestStates, c.Unanswered)
		}
		if n, _ := r.Vacuous(); n != 0 {
			t.Fatalf("%s: %d vacuous configurations", algo, n)
		}
	}
	// The same search of PaxosLease itself: states at rest, none stuck.
	clean, err := Run(Config{Algo: "paxoslease", Only: ids[:1], Budget: 4 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cc := clean.Configurations[0]; clean.Unanswered != 0 || cc.RestStates == 0 {
		t.Fatalf("paxoslease %s: %d unanswered, %d at rest", cc.ID, clean.Unanswered, cc.RestStates)
	}
}

// A restarted node's Release that gives up another resource's
// acquisition (the planted bug) leaves that Acquire unanswered, and only
// a liveness search with a crash and two resources, acquire and release
// reaches it: the battery has one (E28), and it fails the battery. The
// liveness searches without both (E24-E27) pass the same algorithm.
func TestBatterySearchReachesDeferredRequests(t *testing.T) {
	es, err := Matrix(planted.ReleaseDropsOther)
	if err != nil {
		t.Fatal(err)
	}
	var both, others []string
	for _, e := range es {
		if !slices.Contains(e.Args, "--liveness=true") {
			continue
		}
		if strings.Contains(e.Flags(), "--resources 2") && strings.Contains(e.Flags(), "--crashes 1") && strings.Contains(e.Flags(), "release") {
			both = append(both, e.ID)
		} else {
			others = append(others, e.ID)
		}
	}
	if len(both) != 1 {
		t.Fatalf("liveness searches with a crash, two resources and release: %v, want one", both)
	}
	r, err := Run(Config{Algo: planted.ReleaseDropsOther, Only: both, Budget: 4 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations != 0 || r.Unanswered == 0 || r.UnansweredBy != both[0] || r.UnansweredScenario == "" {
		t.Fatalf("%s: %d violations, %d unanswered by %q: want 0, some, by %s with a scenario", both[0], r.Violations, r.Unanswered, r.UnansweredBy, both[0])
	}
	if n, _ := r.Vacuous(); n != 0 {
		t.Fatalf("%d vacuous configurations", n)
	}
	rest, err := Run(Config{Algo: planted.ReleaseDropsOther, Only: others, Budget: 4 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Unanswered != 0 || rest.Violations != 0 {
		t.Fatalf("%v: %d unanswered (by %s), %d violations: the other liveness searches cannot reach the bug, want 0", others, rest.Unanswered, rest.UnansweredBy, rest.Violations)
	}
}

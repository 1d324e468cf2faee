package verify

import (
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

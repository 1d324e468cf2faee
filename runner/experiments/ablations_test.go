package experiments

import (
	"strings"
	"testing"

	"leaselab/algorithms"
	_ "leaselab/algorithms/example" // "central" has ablations too
	_ "leaselab/paxoslease/fairq"   // and "fairq"
)

// TestEveryAblationHasExposure: every rule a registered algorithm lets a
// run switch off has a way to show what it breaks, and the table holds
// nothing for rules that no longer exist.
func TestEveryAblationHasExposure(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range algorithms.Names() {
		a, err := algorithms.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Summary == "test stand-in" {
			continue // registered by this package's other tests (exp_test.go)
		}
		for _, ab := range a.Ablations {
			key := name + "/" + ab.Name
			seen[key] = true
			e := Exposes(name, ab.Name)
			switch {
			case e == "":
				t.Errorf("%s: no entry in exposes", key)
			case strings.HasPrefix(ab.Breaks, "liveness") != strings.HasPrefix(e, "liveness"):
				t.Errorf("%s: a liveness rule is shown by meters, a safety rule by a command or scenario: breaks %q, exposed by %q", key, ab.Breaks, e)
			case !strings.HasPrefix(e, "liveness") && !strings.Contains(e, "--algo "+name+" ") && !strings.Contains(e, name+"/testdata/") && !strings.Contains(e, "testdata/"+name):
				t.Errorf("%s: %q names neither a command for %s nor its scenario", key, e, name)
			}
		}
	}
	for key := range exposes {
		if !seen[key] {
			t.Errorf("exposes has %s, which no registered algorithm offers", key)
		}
	}
}

package fairq_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/paxoslease/fairq"
)

// TestScenarioFilesCoverAblations: every safety ablation has its
// counterexample, testdata/fairq-NAME.txt, which ablates NAME and
// expects a violation, and its control, fairq-NAME-kept.txt, the same
// interleaving with the rule in force, which expects none. A liveness
// ablation (its Breaks says "liveness") has handoff-NAME.txt and
// handoff-NAME-no-NAME.txt instead. The files are replayed, and their
// transcripts compared with the .out files beside them, by
// cmd/leaselab's TestGolden, where every algorithm is registered.
func TestScenarioFilesCoverAblations(t *testing.T) {
	alg, err := algorithms.Lookup(fairq.Name)
	if err != nil {
		t.Fatal(err)
	}
	violation := regexp.MustCompile(`(?m)^expect violations [1-9]`)
	none := regexp.MustCompile(`(?m)^expect violations 0\b`)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Errorf("%v", err)
		}
		return string(b)
	}
	ablates := func(s, name string) bool {
		return regexp.MustCompile(`(?m)^ablate .*\b` + regexp.QuoteMeta(name) + `\b`).MatchString(s)
	}
	for _, ab := range alg.Ablations {
		if strings.HasPrefix(ab.Breaks, "liveness") {
			on, off := read("handoff-"+ab.Name+".txt"), read("handoff-"+ab.Name+"-no-"+ab.Name+".txt")
			if ablates(on, ab.Name) || !ablates(off, ab.Name) || !none.MatchString(on) || !none.MatchString(off) {
				t.Errorf("handoff-%s[-no-%s].txt: want the rule in force in the first, ablated in the second, and no violation in either", ab.Name, ab.Name)
			}
			continue
		}
		bad := read("fairq-" + ab.Name + ".txt")
		if !ablates(bad, ab.Name) || !violation.MatchString(bad) {
			t.Errorf("fairq-%s.txt: want an 'ablate %s' line and 'expect violations N' with N > 0", ab.Name, ab.Name)
		}
		kept := read("fairq-" + ab.Name + "-kept.txt")
		if ablates(kept, ab.Name) || !none.MatchString(kept) {
			t.Errorf("fairq-%s-kept.txt: want %s in force and 'expect violations 0'", ab.Name, ab.Name)
		}
	}
}

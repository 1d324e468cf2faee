package paxoslease_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"leaselab/algorithms"
	"leaselab/paxoslease"
)

// TestScenarioFilesCoverAblations: every safety ablation has its
// counterexample, testdata/paxoslease-NAME.txt, which ablates NAME (first)
// and expects a violation, and its control, paxoslease-NAME-kept.txt, the
// same interleaving with the rule in force, which expects none. The files
// themselves are replayed, and their transcripts compared with the .out
// files beside them, by cmd/leaselab's TestGolden, where every algorithm
// is registered.
func TestScenarioFilesCoverAblations(t *testing.T) {
	alg, err := algorithms.Lookup(paxoslease.Name)
	if err != nil {
		t.Fatal(err)
	}
	violation := regexp.MustCompile(`(?m)^expect violations [1-9]`)
	none := regexp.MustCompile(`(?m)^expect violations 0\b`)
	for _, ab := range alg.Ablations {
		if ab.Name == paxoslease.AblateBackoff || ab.Name == paxoslease.AblateBallotLearning || ab.Name == paxoslease.AblateReleaseHints || handoffRules[ab.Name] {
			continue // liveness rules: no violation to show
		}
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Errorf("%s: no counterexample scenario: %v", ab.Name, err)
			}
			return string(b)
		}
		bad := read("paxoslease-" + ab.Name + ".txt")
		if !regexp.MustCompile(`(?m)^ablate `+regexp.QuoteMeta(ab.Name)+`\b`).MatchString(bad) || !violation.MatchString(bad) {
			t.Errorf("paxoslease-%s.txt: want an 'ablate %s' line and 'expect violations N' with N > 0", ab.Name, ab.Name)
		}
		kept := read("paxoslease-" + ab.Name + "-kept.txt")
		if regexp.MustCompile(`(?m)^ablate .*\b`+regexp.QuoteMeta(ab.Name)+`\b`).MatchString(kept) || !none.MatchString(kept) {
			t.Errorf("paxoslease-%s-kept.txt: want %s in force and 'expect violations 0'", ab.Name, ab.Name)
		}
	}
}

// handoffRules are the liveness rules for contended hand-off; none of
// them guards safety, so no paxoslease-*.txt file shows a violation
// without one. testdata/handoff-*.txt show what they do instead, and
// handoff-*-no-RULE.txt the same interleaving with RULE ablated.
var handoffRules = map[string]bool{
	paxoslease.AblateRTTBackoff:     true,
	paxoslease.AblateReleasePromise: true,
	paxoslease.AblateHeadStart:      true,
	paxoslease.AblateFailedRelease:  true,
	paxoslease.AblatePromiseGuard:   true,
	paxoslease.AblateQueueBehind:    true,
	paxoslease.AblateSplitRetry:     true,
}

package paxoslease_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/paxoslease"
	"leaselab/runner"
)

// TestScenarioFiles replays every testdata/paxoslease-*.txt through the
// runner's simulator and checker, twice: as written, with its ablation,
// the checker must report a violation and every expectation must hold;
// with the ablate line removed (all rules in force) the same interleaving
// must end without a violation, and someone must still have acquired the
// lease (so the check is not vacuous). Together the files cover every
// safety ablation. A file may ablate further rules after its own
// ("ablate stale-owner-open,abandon-release"): those stay ablated in the
// strict replay, which then shows that the file's own rule alone stops
// the violation.
func TestScenarioFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/paxoslease-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var ablation string
			var strict []string
			for _, line := range strings.Split(string(data), "\n") {
				fields := strings.Fields(strings.SplitN(line, "#", 2)[0])
				switch {
				case len(fields) == 2 && fields[0] == "ablate":
					names := strings.Split(fields[1], ",")
					ablation = names[0]
					if len(names) > 1 {
						strict = append(strict, "ablate "+strings.Join(names[1:], ","))
					}
					continue
				case len(fields) > 1 && fields[0] == "expect" && fields[1] == "violations":
					continue
				}
				strict = append(strict, line)
			}
			if want := "paxoslease-" + ablation + ".txt"; filepath.Base(f) != want {
				t.Fatalf("file ablates %q; name it %s", ablation, want)
			}
			covered[ablation] = true

			var out bytes.Buffer
			res, err := runner.Replay(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, out.String())
			}
			if len(res.Failed) > 0 || len(res.Violations) == 0 {
				t.Fatalf("with --ablate %s: %d violations, failed expectations %v; want a violation and none failed\n%s",
					ablation, len(res.Violations), res.Failed, out.String())
			}
			v := res.Violations[0]
			t.Logf("ablate %s: the checker reports r%d held by %s and %s for %.3f ms", ablation, v.Resource, v.Owners[0], v.Owners[1], float64(v.OverlapNS)/1e6)

			out.Reset()
			res, err = runner.Replay(strings.NewReader(strings.Join(strict, "\n")), &out)
			if err != nil {
				t.Fatalf("replay without the ablation: %v\n%s", err, out.String())
			}
			if len(res.Violations) != 0 {
				t.Fatalf("all rules in force: %d violations\n%s", len(res.Violations), out.String())
			}
			if !strings.Contains(out.String(), "event      acquired") {
				t.Fatalf("all rules in force: nobody acquired, the scenario shows nothing\n%s", out.String())
			}
		})
	}
	alg, err := algorithms.Lookup(paxoslease.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, ab := range alg.Ablations {
		liveness := ab.Name == paxoslease.AblateBackoff || ab.Name == paxoslease.AblateBallotLearning || handoffRules[ab.Name]
		if !liveness && !covered[ab.Name] {
			t.Errorf("no scenario file shows what %s protects", ab.Name)
		}
	}
}

// handoffRules are the liveness rules for contended hand-off; none of
// them guards safety, so no paxoslease-*.txt file shows a violation
// without one. testdata/handoff-*.txt show what they do instead.
var handoffRules = map[string]bool{
	paxoslease.AblateRTTBackoff:     true,
	paxoslease.AblateReleasePromise: true,
	paxoslease.AblateHeadStart:      true,
	paxoslease.AblateFailedRelease:  true,
	paxoslease.AblatePromiseGuard:   true,
}

// TestHandoffScenarios replays testdata/handoff-*.txt: every expectation
// holds with every rule in force, and with the rule a file is about
// switched off the same interleaving misses its hand-off (an
// expectation fails) and still shows no violation.
func TestHandoffScenarios(t *testing.T) {
	for _, tc := range []struct{ file, ablation string }{
		{"handoff-split-accept.txt", paxoslease.AblateFailedRelease},
		{"handoff-release-promise.txt", paxoslease.AblateReleasePromise},
		{"handoff-release-promise.txt", paxoslease.AblatePromiseGuard},
	} {
		t.Run(tc.file+"/"+tc.ablation, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			res, err := runner.Replay(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, out.String())
			}
			if len(res.Failed) > 0 || len(res.Violations) > 0 {
				t.Fatalf("every rule in force: failed expectations %v, %d violations\n%s", res.Failed, len(res.Violations), out.String())
			}
			ablated := strings.Replace(string(data), "\nparams ", "\nablate "+tc.ablation+"\nparams ", 1)
			out.Reset()
			res, err = runner.Replay(strings.NewReader(ablated), &out)
			if err != nil {
				t.Fatalf("replay with --ablate %s: %v\n%s", tc.ablation, err, out.String())
			}
			if len(res.Failed) == 0 || len(res.Violations) > 0 {
				t.Fatalf("with --ablate %s: failed expectations %v, %d violations; want a missed hand-off and no violation\n%s",
					tc.ablation, res.Failed, len(res.Violations), out.String())
			}
			t.Logf("with --ablate %s: %v", tc.ablation, res.Failed)
		})
	}
}

package naive_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/runner"
)

// TestDeadlockScenarios replays testdata/deadlock-*.txt, scripted
// interleavings that pin the runner's static-deadlock meter for this
// algorithm: each states how many episodes it must count and how long
// they last, and every expectation must hold.
func TestDeadlockScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/deadlock-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/deadlock-*.txt")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "expect static-deadlocks") {
				t.Fatal("the scenario checks no static-deadlock count")
			}
			var out bytes.Buffer
			res, err := runner.Replay(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, out.String())
			}
			if len(res.Failed) > 0 || len(res.Violations) > 0 {
				t.Fatalf("failed expectations %v, %d violations\n%s", res.Failed, len(res.Violations), out.String())
			}
		})
	}
}

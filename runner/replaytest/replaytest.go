// Package replaytest replays scenario files from a package's tests: the
// one loop that every algorithm package's testdata/*.txt checks share.
package replaytest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/runner/sim"
)

// Files replays every file matching pattern as a subtest. Each file must
// mention every string in mustSay (so a file cannot drop the check it is
// there for), replay without error, hold every expectation, and end with
// no lease-invariant violation. It fails the test if nothing matches.
func Files(t *testing.T, pattern string, mustSay ...string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range mustSay {
				if !strings.Contains(string(data), s) {
					t.Fatalf("the scenario has no %q line", s)
				}
			}
			var out bytes.Buffer
			res, err := sim.Replay(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("replay: %v\n%s", err, out.String())
			}
			if len(res.Failed) > 0 || len(res.Violations) > 0 {
				t.Fatalf("failed expectations %v, %d violations\n%s", res.Failed, len(res.Violations), out.String())
			}
		})
	}
}

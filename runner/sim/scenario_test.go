package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "leaselab/naive" // scenario files use the real naive algorithm
)

// TestScenarios replays every testdata/*.txt. A file whose name contains
// "-violation" or whose script says "expect violations N" with N > 0 is
// expected to end with violations; every expectation must hold.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("only %d scenario files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			res, err := Replay(bytes.NewReader(data), &out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if len(res.Failed) > 0 {
				t.Fatalf("expectations failed: %v\n%s", res.Failed, out.String())
			}
			if testing.Verbose() {
				t.Log("\n" + out.String())
			}
			if !strings.Contains(out.String(), "verdict:") {
				t.Fatalf("no verdict printed")
			}
		})
	}
}

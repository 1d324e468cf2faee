package runner_test

import (
	"strings"
	"testing"

	"leaselab/runner/replaytest"
)

// TestToyGolden checks the transcripts of testdata/toy-*.txt, which use the
// test-only algorithms of toy_test.go (registered only in this package's
// test binary). The other scenario files are checked, with every real
// algorithm registered, by cmd/leaselab's TestGolden.
func TestToyGolden(t *testing.T) {
	replaytest.Golden(t, "testdata", func(name string) bool { return !strings.HasPrefix(name, "toy-") })
}

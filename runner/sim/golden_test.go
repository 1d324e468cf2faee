package sim_test

import (
	"io"
	"strings"
	"testing"

	_ "leaselab/algorithms/example" // central
	"leaselab/runner/sim"
)

// repeat runs its commands N times over; bad counts, empty commands and
// nested repeats are errors with the line number.
func TestRepeat(t *testing.T) {
	const head = "algo central\ncluster acceptors=1 proposers=3\nparams lease-span=2s max-lease=3s drift-bound=0 backoff=0s\n"
	var tx strings.Builder
	res, err := sim.ReplayWith(strings.NewReader(head+"acquire n1 r0\nrepeat 2 deliver all ; advance 1ms\nexpect holder r0 n1\nrepeat 3 advance 1s\nexpect holder r0 none\n"),
		io.Discard, sim.ReplayOptions{Transcript: &tx})
	if err != nil || len(res.Failed) != 0 {
		t.Fatalf("err %v, failed %v\n%s", err, res.Failed, tx.String())
	}
	if !strings.Contains(tx.String(), "\n> repeat 3 advance 1s\n") || !strings.Contains(tx.String(), "\nverdict: 0 violation(s), 0 failed expectation(s)\n") {
		t.Errorf("transcript:\n%s", tx.String())
	}
	for _, tc := range []struct{ line, want string }{
		{"repeat 0 advance 1s", "line 4: repeat: want a count from 1 to 100000"},
		{"repeat x advance 1s", "want a count"},
		{"repeat 2", "usage: repeat N"},
		{"repeat 2 advance 1s ;", "empty command"},
		{"repeat 2 repeat 2 advance 1s", "do not nest"},
		{"repeat 2 frobnicate", `unknown command "frobnicate"`},
	} {
		_, err := sim.Replay(strings.NewReader(head+tc.line+"\n"), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.line, err, tc.want)
		}
	}
}

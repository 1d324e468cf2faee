package udp

import (
	"testing"

	"leaselab/algorithms"
)

// TestTakeMsgs: a step's messages written in place after the group's
// buffer extend it without a copy; messages the step had to put elsewhere
// (it outgrew the room) are appended; either way the buffer ends with
// them.
func TestTakeMsgs(t *testing.T) {
	msg := func(r int) algorithms.Message { return algorithms.Message{Resource: algorithms.ResourceID(r)} }
	for _, tc := range []struct {
		name  string
		steps int // messages the step sends
	}{{"none", 0}, {"in place", 3}, {"outgrown", 9}} {
		buf := make([]algorithms.Message, 2, 6)
		buf[0], buf[1] = msg(100), msg(101)
		out := buf[len(buf):len(buf)]
		for i := 0; i < tc.steps; i++ {
			out = append(out, msg(i))
		}
		got := takeMsgs(buf, out)
		if len(got) != 2+tc.steps || got[0] != msg(100) || got[1] != msg(101) {
			t.Fatalf("%s: %d messages, want %d after the group's 2", tc.name, len(got), 2+tc.steps)
		}
		for i := 0; i < tc.steps; i++ {
			if got[2+i] != msg(i) {
				t.Fatalf("%s: message %d is %v", tc.name, i, got[2+i])
			}
		}
		if inPlace := tc.steps > 0 && tc.steps <= 4; inPlace && &got[0] != &buf[0] {
			t.Fatalf("%s: the buffer was copied, not extended", tc.name)
		}
	}
}

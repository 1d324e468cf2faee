package host

import (
	"testing"

	"leaselab/algorithms"
)

// BenchmarkOrderedRounds drives an Ordered set as a UDP proposer of the
// million-lease batch does: 4096 acquisitions in flight, each setting its
// round timer (prepare), setting it again (propose) and cancelling it
// (acquired), in a steady pipeline, with a look for due timers after every
// step. One op is one lease (three settings and a cancel's worth of
// work).
func BenchmarkOrderedRounds(b *testing.B) {
	const window, span = 4096, 50_000_000
	tm := &Timers{}
	tm.Ordered()
	now := algorithms.Local(0)
	key := func(r int) algorithms.TimerKey {
		return algorithms.TimerKey{Resource: algorithms.ResourceID(r), Kind: 1}
	}
	r := 0
	for b.Loop() {
		now += 300
		tm.Set(key(r), now+span)
		if r >= window/2 {
			tm.Set(key(r-window/2), now+span)
		}
		if r >= window {
			tm.Cancel(key(r - window))
		}
		if _, ok := tm.Due(now); ok {
			b.Fatal("a round timer fell due")
		}
		tm.Next()
		r++
	}
}

package sim

import (
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Clocks with a skew bound drift but stay within it for the whole run (as
// FaTLease's d_max assumes), never run backwards, and do so identically for
// the same seed. Without the bound they drift apart.
func TestClockSlewKeepsSkewBound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		skew    time.Duration
		bounded bool
	}{
		{"bounded", 200 * time.Millisecond, true},
		{"free-running", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := centralSpec()
			spec.Duration = 30 * time.Minute
			spec.Clocks = runner.ClockSpec{Skew: tt.skew, Drift: 0.002}
			// Step the event loop for slews only and sample every clock
			// once a second of true time.
			p, err := runner.Resolve(spec)
			if err != nil {
				t.Fatal(err)
			}
			s2 := newSim(p, nil, false)
			if err := s2.boot(); err != nil {
				t.Fatal(err)
			}
			last := make([]algorithms.Local, len(s2.clock))
			for i := range last {
				last[i] = s2.clock[i].Local(0)
			}
			maxSpread := int64(0)
			step := int64(time.Second)
			for now := step; now <= int64(spec.Duration); now += step {
				for {
					e, ok := s2.next(now)
					if !ok {
						break
					}
					if e.kind == evSlew {
						s2.now = e.t
						s2.slew(e.node)
					}
				}
				s2.now = now
				lo, hi := int64(1<<62), int64(-1<<62)
				for i, c := range s2.clock {
					l := c.Local(now)
					if l < last[i] {
						t.Fatalf("node %d clock ran backwards at %v", i, time.Duration(now))
					}
					last[i] = l
					off := int64(l) - now
					lo, hi = min(lo, off), max(hi, off)
				}
				maxSpread = max(maxSpread, hi-lo)
			}
			if tt.bounded && maxSpread > int64(tt.skew)+2 {
				t.Errorf("clocks spread %v apart, bound %v", time.Duration(maxSpread), tt.skew)
			}
			if !tt.bounded && maxSpread < int64(time.Second) {
				t.Errorf("free-running clocks spread only %v in %v at drift 0.002", time.Duration(maxSpread), spec.Duration)
			}
		})
	}
}

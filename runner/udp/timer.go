package udp

import "time"

// timer is one pending wake-up of an event loop: on the kernel-resolution
// wake timer when the wait must be precise and the kernel gave us one, on
// a Go timer otherwise (a Go timer costs no syscall to arm, but its
// sub-millisecond waits last about a millisecond: see wakeTimer). The loop
// selects on both channels; a stale expiry of the wake timer (armed for a
// deadline that input overtook) only costs one more turn of the loop.
type timer struct {
	wake   *wakeTimer
	goTime *time.Timer
	onGo   bool          // the Go timer is armed
	WakeC  chan struct{} // the wake timer's expiries; nil (never ready) without one
}

func newTimer() *timer {
	t := &timer{goTime: time.NewTimer(time.Hour), wake: newWakeTimer()}
	t.goTime.Stop()
	if t.wake != nil {
		t.WakeC = t.wake.C
	}
	return t
}

// GoC is the Go timer's channel.
func (t *timer) GoC() <-chan time.Time { return t.goTime.C }

// Arm sets the wake-up d from now (d >= 0).
func (t *timer) Arm(d time.Duration, precise bool) {
	if precise && t.wake != nil && t.wake.Reset(d) {
		return
	}
	t.goTime.Reset(d)
	t.onGo = true
}

// Disarm stops the Go timer if Arm used it; call after each wait.
func (t *timer) Disarm() {
	if t.onGo {
		t.goTime.Stop()
		t.onGo = false
	}
}

// Close stops the Go timer and releases the wake timer.
func (t *timer) Close() {
	t.goTime.Stop()
	if t.wake != nil {
		t.wake.Close()
	}
}

//go:build linux

package udp

import (
	"slices"
	"testing"
	"time"
)

// The wake timer fires, never before its time, and again after a re-arm
// that replaces a pending setting. (How late it fires is a measurement:
// see BenchmarkWakeTimer.)
func TestWakeTimer(t *testing.T) {
	w := newWakeTimer()
	if w == nil {
		t.Skip("timerfd not available")
	}
	defer w.Close()
	for _, d := range []time.Duration{time.Microsecond, 200 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		if !w.Reset(d) {
			t.Fatalf("Reset(%v) refused", d)
		}
		select {
		case <-w.C:
		case <-time.After(5 * time.Second):
			t.Fatalf("Reset(%v): no expiry within 5 s", d)
		}
		if got := time.Since(start); got < d {
			t.Errorf("Reset(%v) fired after %v, early", d, got)
		}
	}
	// A re-arm replaces the earlier setting: one expiry, at the later time.
	start := time.Now()
	w.Reset(time.Hour)
	w.Reset(time.Millisecond)
	select {
	case <-w.C:
	case <-time.After(5 * time.Second):
		t.Fatal("re-armed timer did not fire")
	}
	if got := time.Since(start); got < time.Millisecond {
		t.Errorf("re-armed timer fired after %v, early", got)
	}
}

// Closing the timer ends its reader, and a closed timer refuses Reset.
func TestWakeTimerClose(t *testing.T) {
	w := newWakeTimer()
	if w == nil {
		t.Skip("timerfd not available")
	}
	w.Close()
	if w.Reset(time.Millisecond) {
		t.Error("Reset on a closed timer succeeded")
	}
}

// BenchmarkWakeTimer measures how late a wait of 100 µs ends with the
// wake timer and with a Go timer in a select, as the node loop waits (the
// Go runtime rounds sub-millisecond timer waits up to its 1 ms epoll
// timeout). It reports the median and 90th percentile lateness.
func BenchmarkWakeTimer(b *testing.B) {
	const d = 100 * time.Microsecond
	idle := make(chan struct{})
	report := func(b *testing.B, late []time.Duration) {
		slices.Sort(late)
		b.ReportMetric(float64(late[len(late)/2])/1e3, "late-p50-µs")
		b.ReportMetric(float64(late[len(late)*9/10])/1e3, "late-p90-µs")
	}
	b.Run("timerfd", func(b *testing.B) {
		w := newWakeTimer()
		if w == nil {
			b.Skip("timerfd not available")
		}
		defer w.Close()
		late := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			w.Reset(d)
			select {
			case <-w.C:
			case <-idle:
			}
			late = append(late, time.Since(start)-d)
		}
		report(b, late)
	})
	b.Run("go-timer", func(b *testing.B) {
		tm := time.NewTimer(time.Hour)
		defer tm.Stop()
		late := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			tm.Reset(d)
			select {
			case <-tm.C:
			case <-idle:
			}
			late = append(late, time.Since(start)-d)
		}
		report(b, late)
	})
}

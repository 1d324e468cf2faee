//go:build !linux

package udp

import "time"

// wakeTimer exists only on Linux (timerfd); elsewhere the event loops wait for
// every wake-up on a Go timer, with the runtime's resolution.
type wakeTimer struct{ C chan struct{} }

func newWakeTimer() *wakeTimer { return nil }

func (w *wakeTimer) Reset(time.Duration) bool { return false }

func (w *wakeTimer) Close() {}

//go:build linux

package udp

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// wakeTimer is a one-shot timer with the kernel's resolution, for waits
// under a few milliseconds: the emulated network's delays, the workload's
// holds and pauses, and algorithm timers due soon. The Go runtime waits for its timers in
// epoll_wait, whose timeout is in whole milliseconds: a timer due in under
// a millisecond sleeps a full one (runtime/netpoll_epoll.go rounds any
// positive delay below 1 ms up to 1 ms; golang/go#53824 asks for
// epoll_pwait2), so a 0.1 ms emulated hop took about 1.1 ms on an idle
// node. A timerfd is a file descriptor that becomes readable when its
// hrtimer expires; the runtime's poller watches it like a socket, and
// readiness wakes epoll_wait at once, whatever its timeout. Arming it is
// one syscall, which is why the node keeps Go timers for deadlines further
// away (see Node.loop).
type wakeTimer struct {
	f  *os.File
	rc syscall.RawConn // the descriptor, safe against use after Close
	C  chan struct{}   // a value after each expiry (capacity 1; may be stale)
}

// itimerspec is struct itimerspec of timerfd_settime(2).
type itimerspec struct {
	interval, value syscall.Timespec
}

const clockMonotonic = 1 // CLOCK_MONOTONIC, the clock of Go's time.Since

// newWakeTimer returns a timer, or nil if the kernel refuses one (the node
// then falls back to a Go timer).
func newWakeTimer() *wakeTimer {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil
	}
	// NewFile on a non-blocking descriptor registers it with the
	// runtime's poller, so the reader below parks instead of holding a
	// thread in read(2).
	w := &wakeTimer{f: os.NewFile(fd, "timerfd"), C: make(chan struct{}, 1)}
	var err error
	if w.rc, err = w.f.SyscallConn(); err != nil {
		w.f.Close()
		return nil
	}
	go w.read()
	return w
}

func (w *wakeTimer) read() {
	var b [8]byte // the expiry count, which we do not need
	for {
		if _, err := w.f.Read(b[:]); err != nil {
			return // closed
		}
		select {
		case w.C <- struct{}{}:
		default:
		}
	}
}

// Reset arms the timer to expire d from now (d > 0), replacing any earlier
// setting. It reports false if the kernel refused, and the caller must
// wait some other way.
func (w *wakeTimer) Reset(d time.Duration) bool {
	its := itimerspec{value: syscall.NsecToTimespec(int64(max(d, 1)))}
	var errno syscall.Errno
	// Control fails on a closed file instead of using a descriptor
	// number that may since belong to another file.
	err := w.rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
	})
	return err == nil && errno == 0
}

// Close releases the descriptor and ends the reader.
func (w *wakeTimer) Close() { w.f.Close() }

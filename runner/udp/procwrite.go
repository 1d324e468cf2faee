package udp

import (
	"sync"
	"time"

	"leaselab/algorithms"
)

// A node process's writer (ProcessConfig.Writes, `leaselab node
// --writes D`): while the node holds a lease, it checks the lease on the
// node's clock, works for D and writes, in a goroutine of its own,
// reporting each write as a line {"type":"write","resource":R,
// "token_major":M,"token_minor":m,"local_ns":...} to whoever plays the
// protected store (`leaselab cluster`). The write goes out only if the
// check found at least D left on the lease; the node's Lost event stops
// the loop, expiry stops it at the next check. It is the process's own:
// SIGSTOP stops it with the node, and a write whose check came before the
// stop goes out when the process runs again, whatever the lease is by
// then: a pause between the check and the write.
type procWriter struct {
	every   time.Duration
	clock   *Clock
	id      algorithms.NodeID
	lines   chan<- ProcessLine
	done    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	leases  map[algorithms.ResourceID]*procLease
	stopped bool
}

type procLease struct {
	token   algorithms.Token
	until   algorithms.Local
	gen     uint64
	running bool
}

func newProcWriter(every time.Duration, clock *Clock, id algorithms.NodeID, lines chan<- ProcessLine) *procWriter {
	return &procWriter{every: every, clock: clock, id: id, lines: lines, done: make(chan struct{}),
		leases: map[algorithms.ResourceID]*procLease{}}
}

// event notes what an event of the node says of its leases.
func (w *procWriter) event(ev algorithms.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	l := w.leases[ev.Resource]
	switch ev.Kind {
	case algorithms.Acquired:
		if l == nil {
			l = &procLease{}
			w.leases[ev.Resource] = l
		}
		l.token, l.until = ev.Token, ev.Until
		if !l.running {
			l.running = true
			l.gen++
			w.wg.Add(1)
			go w.loop(ev.Resource, l.gen)
		}
	case algorithms.Lost:
		if l != nil {
			l.gen++
			l.running = false
		}
	}
}

// loop checks, works and writes under the lease on res while it is the
// loop of generation gen and the lease has a period to run.
func (w *procWriter) loop(res algorithms.ResourceID, gen uint64) {
	defer w.wg.Done()
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	for {
		w.mu.Lock()
		l := w.leases[res]
		_, now := w.clock.Now()
		if l.gen != gen || now.Add(w.every) > l.until {
			if l.gen == gen {
				l.running = false
			}
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		tm.Reset(w.every) // the work
		select {
		case <-w.done:
			return
		case <-tm.C:
		}
		w.mu.Lock()
		ok, tok := l.gen == gen, l.token
		w.mu.Unlock()
		if !ok {
			return
		}
		_, local := w.clock.Now()
		select {
		case <-w.done:
			return
		case w.lines <- ProcessLine{Type: "write", Node: int(w.id), Resource: uint64(res), TokenMajor: tok.Major, TokenMinor: tok.Minor, LocalNS: int64(local)}:
		}
	}
}

// stop ends every loop; after it returns none sends a line.
func (w *procWriter) stop() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.stopped = true
	w.mu.Unlock()
	close(w.done)
	w.wg.Wait()
}

package udp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/timeq"
)

// Netem is user-space network emulation on the sending side, for LAN and
// WAN experiments on one machine (the kernel's netem is not available
// here). It acts on what a node sends to other nodes:
//
//   - Loss drops each message independently with this probability, before
//     batching, so loss is per message as in the simulator.
//   - Delay holds each datagram RTT/2 plus a uniform [0, Jitter] before it is
//     written to the socket; messages batched together share a datagram
//     and so a delay, as they would on a real link. An idle node waits for
//     the next due datagram on a timerfd (wakeTimer, Linux), not on a Go
//     timer, which would round every sub-millisecond wait up to about
//     1.1 ms. What remains is the machine's wake-up latency: measured on
//     the 2-core VM this was written on, a 0.1 ms wait ends 35 to 60 µs
//     late (BenchmarkWakeTimer), and a single FaTLease acquisition over a
//     0.2 ms round trip takes about 0.3 ms more than its two round trips
//     (four hops, each also waking an idle receiver).
//   - Bandwidth (bytes/s, 0 = unlimited) serialises datagrams leaving the
//     node: each one departs when the previous one has been "transmitted".
type Netem struct {
	RTT       time.Duration
	Jitter    time.Duration
	Loss      float64
	Bandwidth int64
}

// Validate says what is wrong with n.
func (n Netem) Validate() error {
	switch {
	case n.RTT < 0 || n.Jitter < 0:
		return fmt.Errorf("udp: rtt and jitter must not be negative (rtt %v, jitter %v)", n.RTT, n.Jitter)
	case math.IsNaN(n.Loss) || n.Loss < 0 || n.Loss >= 1:
		return fmt.Errorf("udp: loss must be in [0, 1), got %g", n.Loss)
	case n.Bandwidth < 0:
		return fmt.Errorf("udp: bandwidth must not be negative, got %d", n.Bandwidth)
	}
	return nil
}

type netem struct {
	cfg       Netem
	rng       *rand.Rand
	q         timeq.Queue[delayed] // by due time, FIFO among equal times
	pool      [][]byte
	busyUntil int64
}

type delayed struct {
	to  algorithms.NodeID
	buf []byte
}

func newNetem(cfg Netem, seed uint64, id algorithms.NodeID) *netem {
	return &netem{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x6e6574656d00+uint64(id)))}
}

func (e *netem) drop() bool {
	return e.cfg.Loss > 0 && e.rng.Float64() < e.cfg.Loss
}

func (e *netem) delays() bool {
	return e.cfg.RTT > 0 || e.cfg.Jitter > 0 || e.cfg.Bandwidth > 0
}

func (e *netem) schedule(n *Node, to algorithms.NodeID, p []byte) {
	t := n.clock.True()
	depart := t
	if e.cfg.Bandwidth > 0 {
		if e.busyUntil > depart {
			depart = e.busyUntil
		}
		depart += int64(float64(len(p)) * 1e9 / float64(e.cfg.Bandwidth))
		e.busyUntil = depart
	}
	due := depart + int64(e.cfg.RTT/2)
	if e.cfg.Jitter > 0 {
		due += e.rng.Int64N(int64(e.cfg.Jitter) + 1)
	}
	var buf []byte
	if k := len(e.pool); k > 0 {
		buf, e.pool = e.pool[k-1][:0], e.pool[:k-1]
	}
	e.q.Push(due, delayed{to: to, buf: append(buf, p...)})
}

func (e *netem) next() (int64, bool) {
	return e.q.Next()
}

// sendDue writes every delayed datagram whose time has come.
func (e *netem) sendDue(n *Node, t int64) {
	for {
		if due, ok := e.q.Next(); !ok || due > t {
			break
		}
		_, d := e.q.Pop()
		n.write(d.to, d.buf)
		e.pool = append(e.pool, d.buf)
	}
}

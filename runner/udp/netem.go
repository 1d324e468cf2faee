package udp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/timeq"
	"leaselab/runner/udp/wire"
)

// Netem is user-space network emulation on the sending side, for LAN and
// WAN experiments on one machine (the kernel's netem is not available
// here). It acts on what a node sends to other nodes, with the meaning the
// simulator gives the same NetSpec fields (runner/sim/sim.go):
//
//   - Loss drops each message independently with this probability, before
//     batching, so loss is per message as in the simulator.
//   - Delay holds each datagram RTT/2 plus a uniform [-Jitter, +Jitter]
//     (never less than no delay; the simulator's law, so a jittered link
//     has the same mean in both environments) before it is written to the
//     socket; messages batched together share a datagram
//     and so a delay, as they would on a real link. An idle node waits for
//     the next due datagram on a timerfd (wakeTimer, Linux), not on a Go
//     timer, which would round every sub-millisecond wait up to about
//     1.1 ms. What remains is the machine's wake-up latency, which
//     BenchmarkWakeTimer measures: on a small virtual machine a short wait
//     ends tens of microseconds late, and each of the four hops of an
//     acquisition also wakes an idle receiver.
//   - Reorder holds a message back, with this probability, by a uniform
//     [0, max(2*RTT, 1ms)] more than its delay, as the simulator does. Such
//     a message travels in a datagram of its own: the messages of a
//     datagram share one delay, so a held-back message cannot stay in its
//     batch without holding back its neighbours too (or overtaking
//     nothing).
//   - Dup sends, with this probability, a second copy of a message. The
//     copy travels in a datagram of its own, with its own delay (and its
//     own chance to be held back by Reorder), like the simulator's second
//     copy, which has its own delay draw: it may arrive before or after
//     the original, not always right behind it as a copy in the same
//     datagram would. A duplicated datagram would duplicate every message
//     in it, which is not per-message duplication.
//   - Bandwidth (bytes/s, 0 = unlimited) serialises datagrams leaving the
//     node: each one departs when the previous one has been "transmitted".
//
// Partitions (Partition) are not part of Netem: they are one state that all
// nodes of a process share, not a property of each node's link.
type Netem struct {
	RTT       time.Duration
	Jitter    time.Duration
	Loss      float64
	Dup       float64
	Reorder   float64
	Bandwidth int64
}

// NetemOf is the emulation of a runner NetSpec (its Datagram is not
// emulation but the node's datagram size: see NodeConfig.MaxDatagram).
func NetemOf(n runner.NetSpec) Netem {
	return Netem{RTT: n.RTT, Jitter: n.Jitter, Loss: n.Loss, Dup: n.Dup, Reorder: n.Reorder, Bandwidth: n.Bandwidth}
}

// Validate says what is wrong with n. Dup and Reorder may be 1 (every
// message duplicated, or held back: harsh but meaningful, and the
// simulator's Spec allows it); Loss may not (nothing would arrive).
func (n Netem) Validate() error {
	switch {
	case n.RTT < 0 || n.Jitter < 0:
		return fmt.Errorf("udp: rtt and jitter must not be negative (rtt %v, jitter %v)", n.RTT, n.Jitter)
	case math.IsNaN(n.Loss) || n.Loss < 0 || n.Loss >= 1:
		return fmt.Errorf("udp: loss must be in [0, 1), got %g", n.Loss)
	case math.IsNaN(n.Dup) || n.Dup < 0 || n.Dup > 1:
		return fmt.Errorf("udp: dup must be a probability in [0, 1], got %g", n.Dup)
	case math.IsNaN(n.Reorder) || n.Reorder < 0 || n.Reorder > 1:
		return fmt.Errorf("udp: reorder must be a probability in [0, 1], got %g", n.Reorder)
	case n.Bandwidth < 0:
		return fmt.Errorf("udp: bandwidth must not be negative, got %d", n.Bandwidth)
	}
	return nil
}

// Partition is a network partition shared by the nodes of one process (the
// runner's udp environment): while it is split, a message from a node to
// a node on the other side is dropped when it is sent, as in the simulator
// (messages already on their way, batched or delayed, still arrive). The
// zero value is healed. Nodes read it once per message they send, so the
// state is one atomic pointer: nil while healed, else the sides.
type Partition struct {
	sides atomic.Pointer[[]uint8]
}

// Split puts node i on side sides[i] (0 or 1); sides is copied.
func (p *Partition) Split(sides []uint8) {
	s := append([]uint8(nil), sides...)
	p.sides.Store(&s)
}

// Heal ends the split.
func (p *Partition) Heal() { p.sides.Store(nil) }

// Apart reports whether a and b are on different sides of an active split.
// A node the split does not cover (outside sides) is on side 0.
func (p *Partition) Apart(a, b algorithms.NodeID) bool {
	s := p.sides.Load()
	if s == nil {
		return false
	}
	return side(*s, a) != side(*s, b)
}

func side(s []uint8, n algorithms.NodeID) uint8 {
	if int(n) < len(s) {
		return s[n]
	}
	return 0
}

type netem struct {
	cfg Netem
	cut *Partition // nil: never split
	// faulty: some per-message fault is on (loss, dup, reorder, a
	// partition). Without one a message goes straight into its batch, and
	// the send path costs what it cost before any of them existed.
	faulty    bool
	rng       *rand.Rand
	q         timeq.Queue[delayed] // by due time, FIFO among equal times
	pool      [][]byte
	busyUntil int64
	one       [1]algorithms.Message // alone's datagram, without an allocation
}

type delayed struct {
	to  algorithms.NodeID
	buf []byte
}

func newNetem(cfg Netem, cut *Partition, seed uint64, id algorithms.NodeID) *netem {
	return &netem{cfg: cfg, cut: cut,
		faulty: cfg.Loss > 0 || cfg.Dup > 0 || cfg.Reorder > 0 || cut != nil,
		rng:    rand.New(rand.NewPCG(seed, 0x6e6574656d00+uint64(id)))}
}

// delays reports whether datagrams may wait in the queue for a later
// instant (and so the node needs the precise wake timer).
func (e *netem) delays() bool {
	return e.cfg.RTT > 0 || e.cfg.Jitter > 0 || e.cfg.Bandwidth > 0 || e.cfg.Reorder > 0
}

// fault applies the per-message faults to m, a message to another node,
// in the simulator's order: partition, loss, then delivery with the
// chance of being held back, and the chance of a second copy. It
// reports whether m still goes into its batch; otherwise it has been
// dropped or sent in a datagram of its own.
func (e *netem) fault(n *Node, m *algorithms.Message) (batch bool) {
	if e.cut != nil && e.cut.Apart(n.id, m.To) {
		n.meters.MsgsPartitioned++
		return false
	}
	if e.cfg.Loss > 0 && e.rng.Float64() < e.cfg.Loss {
		n.meters.MsgsDropped++
		return false
	}
	batch = true
	if extra, ok := e.holdBack(); ok {
		n.meters.MsgsReordered++
		e.alone(n, m, extra)
		batch = false
	}
	if e.cfg.Dup > 0 && e.rng.Float64() < e.cfg.Dup {
		n.meters.MsgsDuplicated++
		extra, ok := e.holdBack()
		if ok {
			n.meters.MsgsReordered++
		}
		e.alone(n, m, extra)
	}
	return batch
}

// holdBack draws whether a message is held back, and by how much more
// than its delay: uniform [0, max(2*RTT, 1ms)], as in the simulator.
func (e *netem) holdBack() (int64, bool) {
	if e.cfg.Reorder == 0 || e.rng.Float64() >= e.cfg.Reorder {
		return 0, false
	}
	extra := max(2*int64(e.cfg.RTT), int64(time.Millisecond))
	return e.rng.Int64N(extra + 1), true
}

// alone sends m in a datagram of its own, extra ns later than the link's
// delay would. It goes through the queue even when it is due at once (a
// copy on a link without delay): the loop writes it at its next sendDue,
// which may be before or after the batch of the original leaves.
func (e *netem) alone(n *Node, m *algorithms.Message, extra int64) {
	e.one[0] = *m
	buf, err := wire.AppendDatagram(e.buffer(), n.id, e.one[:])
	if err != nil {
		e.pool = append(e.pool, buf)
		n.meters.EncodeErrors++ // a message the decoder would reject: a bug of the algorithm
		return
	}
	n.meters.MsgsSent++
	e.q.Push(e.due(n, len(buf))+extra, delayed{to: m.To, buf: buf})
}

// due is when a datagram of size bytes handed to the link now leaves the
// node: after the link is free (Bandwidth) and the one-way delay.
func (e *netem) due(n *Node, size int) int64 {
	depart := n.clock.True()
	if e.cfg.Bandwidth > 0 {
		if e.busyUntil > depart {
			depart = e.busyUntil
		}
		depart += int64(float64(size) * 1e9 / float64(e.cfg.Bandwidth))
		e.busyUntil = depart
	}
	return depart + e.delay()
}

// delay draws a one-way delay: RTT/2 plus uniform [-Jitter, +Jitter], cut
// at zero.
func (e *netem) delay() int64 {
	d := int64(e.cfg.RTT / 2)
	if j := int64(e.cfg.Jitter); j > 0 {
		d = max(d+e.rng.Int64N(2*j+1)-j, 0)
	}
	return d
}

func (e *netem) buffer() []byte {
	if k := len(e.pool); k > 0 {
		var buf []byte
		buf, e.pool = e.pool[k-1][:0], e.pool[:k-1]
		return buf
	}
	return nil
}

// schedule queues a copy of the datagram p (a batch's bytes, reused by
// the caller) until its due time.
func (e *netem) schedule(n *Node, to algorithms.NodeID, p []byte) {
	due := e.due(n, len(p))
	e.q.Push(due, delayed{to: to, buf: append(e.buffer(), p...)})
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

// Package udp is leaselab's real-network environment: every node has its
// own UDP socket, its own monotonic clock and timer heap, and runs the same
// algorithm state machine as the simulator, unchanged.
//
// A Node is two goroutines: a reader that blocks on the socket and hands
// whole datagrams to the event loop, and the event loop, which is the only
// goroutine that touches the algorithm. The loop steps every input it can
// get without blocking, collects outgoing messages per peer into datagrams
// (wire.Batch), and sends them when it runs out of input or a datagram is
// full: under load datagrams fill up by themselves, and an idle node sends
// at once. One goroutine per timer would not survive a million leases, so
// timers live in one heap per node and the loop sleeps until the earliest.
// A durable node (classic Paxos) has a third goroutine, its log writer
// (disk.go). With Spec.Disk.Background a run also has one background disk
// writer (background.go) streaming to the run's disk directory, the
// FaTLease paper's IOzone. In the runner's environment the loop steps under the
// environment's lock, so that every event is stamped with the clock
// reading its step used, in true-time order (see env.Begin).
package udp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/ipv4"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/host"
	"leaselab/runner/udp/wal"
	"leaselab/runner/udp/wire"
)

// Observer sees what nodes do. Its methods are called on the node's event
// loop goroutine, so they must be quick and, when nodes share an observer,
// safe for concurrent use. An observer may call Node.Enqueue (and only that
// method of the node) to feed the node more input.
type Observer interface {
	// Event: node n emitted ev at true time t (ns), local time now.
	Event(n *Node, t int64, now algorithms.Local, ev algorithms.Event)
}

// StepObserver is an Observer that wants each whole Output instead of
// single events: the runner's environment takes one lock per step for
// the events and the messages handed to the network. If it reports false
// the node has been crashed meanwhile and must do nothing with out.
type StepObserver interface {
	// Begin is called before a group of steps, End after it; Stepped only
	// between them. The environment takes its lock in Begin and lets go in
	// End, so the node reads its clock, steps and reports under the lock.
	// If Begin reports false the node has been crashed (or the run is
	// over): it must not step, and End is not called.
	Begin(n *Node) bool
	End(n *Node)
	// Stepped: the node stepped input in at true time t (the clock
	// reading it stepped with, taken under the lock), local time now.
	Stepped(n *Node, t int64, now algorithms.Local, in algorithms.Input, out *algorithms.Output) bool
	// Disk: the node's log writer wrote bytes and, if fsyncNS is not
	// empty, made them durable with fsyncs of those latencies (ns).
	Disk(n *Node, t int64, bytes int64, fsyncNS []int64)
}

// NodeConfig says how to run one node.
type NodeConfig struct {
	ID   algorithms.NodeID
	Algo algorithms.Algorithm
	// Node is the algorithm's configuration; ID and Cluster are taken from
	// here. Rand defaults to a source seeded with Seed and the id.
	Node algorithms.Config
	Seed uint64
	// Conn is the node's bound socket; the node owns it from Start on.
	Conn *net.UDPConn
	// Peers[i] is the address of node i (Peers[ID] is not used).
	Peers []netip.AddrPort
	Clock *Clock
	// MaxDatagram bounds the datagrams the node sends, in bytes.
	MaxDatagram int
	// Net is user-space delay, jitter, loss, duplication, reordering and
	// bandwidth on send (netem.go); its Datagram, Stale and StaleSpans are
	// not used (MaxDatagram is the node's datagram size).
	Net runner.NetSpec
	// Draws, if set, are the network draws the node shares with the other
	// nodes of its process (the runner's udp environment); nil gives the
	// node a faults.Net of its own from Seed.
	Draws *NetDraws
	// Partition, if set, is the split the node's messages must respect
	// (shared with the other nodes of the process; the runner's udp
	// environment splits and heals it). Nil: never split.
	Partition *Partition
	// Storage, if set, makes Output.Persist durable (classic Paxos; see
	// disk.go): a log opened with OpenLog, whose recovered records go in
	// Node.Recovered. The node owns it from Start on and closes it when
	// its loop ends; a node that never started leaves it to the caller.
	Storage wal.Storage
	// SyncEach turns group commit off: every Output's records get their
	// own write and fsync (one per record), one Output after the other.
	SyncEach bool
	// Key, if set, is the secret the cluster's nodes share (at least
	// wire.MinKeySize bytes): the node signs every datagram it sends and
	// accepts only datagrams that come from the address of the node their
	// header names (one of Peers) and carry a valid tag. Without it the
	// node reads whatever arrives and trusts the sender it names.
	Key []byte
	// ReadBuffer is the socket receive buffer to ask for (0: 4 MiB).
	ReadBuffer int
	Observer   Observer
	// Window bounds the Acquire requests the node works on at once (0: no
	// bound); further ones wait in its queue, in order, and are admitted as
	// earlier ones end (Acquired or Failed). A client that hands a node a
	// million requests at once would otherwise have them all turned into
	// messages in one burst, overflowing the receivers' socket buffers; the
	// queue keeps the kernel's queues bounded, as a real lease server's
	// request queue would.
	Window int
}

// Meters are a node's counters. They are written by its event loop only;
// read them after Stop (or accept a racy snapshot for progress).
type Meters struct {
	// MsgsSent: messages to other nodes put into datagrams, after
	// injected loss and partitions, each injected duplicate counted too.
	MsgsSent    int64
	MsgsLocal   int64 // messages to itself, delivered without the socket
	MsgsDropped int64 // messages dropped by injected loss
	// MsgsPartitioned: messages dropped because sender and receiver were
	// on different sides of a partition when it was sent.
	MsgsPartitioned int64
	// MsgsDuplicated: extra copies injected (NetSpec.Dup); MsgsReordered:
	// messages (originals or copies) held back (NetSpec.Reorder).
	MsgsDuplicated int64
	MsgsReordered  int64
	DatagramsSent  int64
	BytesSent      int64 // UDP payload bytes
	// SendErrors: datagrams the kernel refused to send (ENOBUFS and the
	// like), i.e. lost; FirstSendError is the first such error. Writes
	// that fail because the node was killed are not counted.
	SendErrors     int64
	FirstSendError string
	// EncodeErrors: messages that could not be put into a datagram (the
	// encoder rejected them, or they name no node of the cluster): a bug
	// of the algorithm, never the network.
	EncodeErrors  int64
	MsgsRecv      int64
	DatagramsRecv int64
	BytesRecv     int64
	// BadDatagrams: datagrams the decoder rejected (malformed, an
	// unregistered kind, a message not from the sender or not for this
	// node). Unauthenticated: with a key, datagrams dropped because they
	// came from an address that is not the peer they name, or carried no
	// valid tag. Neither reaches the algorithm.
	BadDatagrams    int64
	Unauthenticated int64
	Steps           int64
	Fsyncs          int64
	DiskBytes       int64
	FsyncNS         []int64 // latency of every fsync
}

// Node is one running node.
type Node struct {
	cfg   NodeConfig
	id    algorithms.NodeID
	host  host.Host // the algorithm's node, its timers and its disk
	clock *Clock
	obs   Observer

	conn  *net.UDPConn
	peers []netip.AddrPort
	// For writeBatch (made at its first use): the socket as x/net's
	// batching PacketConn, the peers' addresses in its form, and the
	// batch's messages.
	pc        *ipv4.PacketConn
	peerAddrs []*net.UDPAddr
	wms       []ipv4.Message

	out     algorithms.Output
	grp     group         // Outputs of the group being stepped
	batch   []*wire.Batch // per peer
	dirty   []algorithms.NodeID
	disk    *logWriter // nil without storage
	local   fifo       // self-addressed messages and enqueued inputs
	admitQ  fifo       // Acquire requests waiting for the window
	flight  map[algorithms.ResourceID]struct{}
	stepObs StepObserver
	dead    bool // the step observer said the node was crashed
	// haveRead: the group being stepped has read the clock, at readT (true)
	// and readLocal (the node's local time then).
	haveRead  bool
	readT     int64
	readLocal algorithms.Local
	inbox     inbox
	rxMsgs    []algorithms.Message
	net       *netem

	in   chan rx
	free chan []byte
	key  *wire.Key // nil: datagrams are neither signed nor checked
	// rejected counts BadDatagrams and Unauthenticated as they happen,
	// so that Rejected can be read from any goroutine while the node runs.
	rejected [2]atomic.Int64
	stop     chan struct{}
	kill     sync.Once
	wg       sync.WaitGroup
	done     chan struct{}
	timer    *timer // the loop's wake-up: timers and delayed datagrams (nil until Start)
	meters   Meters
	err      error // first fatal error (storage)
}

// NewNode builds a node (the algorithm is constructed here) without
// starting it.
func NewNode(cfg NodeConfig) (*Node, error) {
	if cfg.Conn == nil {
		return nil, errors.New("udp: node needs a socket")
	}
	if cfg.Clock == nil {
		return nil, errors.New("udp: node needs a clock")
	}
	c := cfg.Node.Cluster
	if len(cfg.Peers) != c.Nodes {
		return nil, fmt.Errorf("udp: %d peer addresses for a cluster of %d nodes", len(cfg.Peers), c.Nodes)
	}
	if int(cfg.ID) >= c.Nodes {
		return nil, fmt.Errorf("udp: node id %d outside a cluster of %d nodes", cfg.ID, c.Nodes)
	}
	if cfg.MaxDatagram == 0 {
		cfg.MaxDatagram = DefaultDatagram(cfg.Peers)
	}
	if err := ValidNet(cfg.Net); err != nil {
		return nil, err
	}
	cfg.Node.ID = cfg.ID
	if cfg.Node.Rand == nil {
		cfg.Node.Rand = rand.New(rand.NewPCG(cfg.Seed, 0x6c6561736500+uint64(cfg.ID)))
	}
	alg, err := cfg.Algo.New(cfg.Node)
	if err != nil {
		return nil, fmt.Errorf("udp: node %d: %w", cfg.ID, err)
	}
	n := &Node{
		cfg: cfg, id: cfg.ID, clock: cfg.Clock, obs: cfg.Observer,
		conn: cfg.Conn, peers: cfg.Peers,
		batch:  make([]*wire.Batch, c.Nodes),
		in:     make(chan rx, 64),
		free:   make(chan []byte, 80),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		flight: make(map[algorithms.ResourceID]struct{}),
		net:    newNetem(cfg.Net, cfg.Partition, cfg.Draws, cfg.Seed, c.Nodes),
	}
	n.inbox.wake = make(chan struct{}, 1)
	n.stepObs, _ = cfg.Observer.(StepObserver)
	n.host = host.Host{ID: cfg.ID, Restarts: cfg.Node.Restarts}
	n.host.Timers.Ordered()
	n.host.Disk.Ordered = true
	n.host.Disk.Each = cfg.SyncEach
	n.host.Run(alg, nil)
	if cfg.Storage != nil {
		n.disk = newLogWriter(cfg.Storage, cfg.SyncEach)
	}
	if cfg.Window < 0 {
		return nil, fmt.Errorf("udp: window must not be negative, got %d", cfg.Window)
	}
	newBatch := wire.NewBatch
	if cfg.Key != nil {
		if n.key, err = wire.NewKey(cfg.Key); err != nil {
			return nil, err
		}
		newBatch = wire.NewSignedBatch
	}
	for i := range n.batch {
		if n.batch[i], err = newBatch(cfg.ID, cfg.MaxDatagram); err != nil {
			return nil, err
		}
	}
	rb := cfg.ReadBuffer
	if rb == 0 {
		rb = 4 << 20
	}
	// Best effort: the kernel caps it at net.core.rmem_max; a smaller
	// buffer only means the batch pacing must be gentler.
	_ = cfg.Conn.SetReadBuffer(rb)
	_ = cfg.Conn.SetWriteBuffer(rb)
	return n, nil
}

// DefaultDatagram is the datagram size for a set of peers: 1400 bytes
// (below a 1500-byte Ethernet MTU, no IP fragmentation) unless every peer
// is on loopback, whose 64 KiB MTU lets a datagram carry up to a thousand
// messages: fewer syscalls per message, which is what bounds throughput.
func DefaultDatagram(peers []netip.AddrPort) int {
	for _, p := range peers {
		if !p.Addr().IsLoopback() {
			return 1400
		}
	}
	return LoopbackDatagram
}

// LoopbackDatagram is the default datagram size on loopback (see
// BenchmarkLoopbackBatch, which compares 1400 bytes, 16 KiB and 64 KiB).
const LoopbackDatagram = runner.LoopbackDatagram

// ID is the node's id.
func (n *Node) ID() algorithms.NodeID { return n.id }

// Addr is the node's socket address.
func (n *Node) Addr() netip.AddrPort { return n.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Clock is the node's clock.
func (n *Node) Clock() *Clock { return n.clock }

// Meters returns the node's counters; call after Stop.
func (n *Node) Meters() Meters {
	m := n.meters
	m.BadDatagrams, m.Unauthenticated = n.Rejected()
	return m
}

// Rejected returns how many datagrams the node has dropped so far as
// malformed (Meters.BadDatagrams) and as unauthenticated
// (Meters.Unauthenticated); safe to call while the node runs.
func (n *Node) Rejected() (bad, unauthenticated int64) {
	return n.rejected[0].Load(), n.rejected[1].Load()
}

// rx is a datagram as read, with the address it came from.
type rx struct {
	buf  []byte
	from netip.AddrPort
}

// Err is the first fatal error the node met (a storage failure stops it).
func (n *Node) Err() error { return n.err }

// Start steps the node's Start input and runs its goroutines.
func (n *Node) Start() {
	for i := 0; i < cap(n.free); i++ {
		n.free <- make([]byte, wire.MaxDatagram+1)
	}
	n.timer = newTimer()
	n.wg.Add(2)
	if n.disk != nil {
		go n.disk.writer()
	}
	go n.read()
	go n.loop()
	go func() {
		n.wg.Wait()
		close(n.done)
	}()
}

// reserve makes room for k client requests in the node's inbox and its
// admission queue; call before Start.
func (n *Node) reserve(k int) {
	n.inbox.items = slices.Grow(n.inbox.items, k)
	n.admitQ.buf = slices.Grow(n.admitQ.buf, k)
}

// Submit hands inputs (client requests) to the node from any goroutine. It
// never blocks: the inputs wait in the node's inbox.
func (n *Node) Submit(in ...algorithms.Input) { n.inbox.put(in) }

// inbox is where other goroutines leave inputs for the node. A mutex and
// a slice, not a channel: a sender must never block (the runner's
// environment submits while holding the lock the node may be waiting for).
type inbox struct {
	mu    sync.Mutex
	items []algorithms.Input
	spare []algorithms.Input
	wake  chan struct{}
}

func (b *inbox) put(in []algorithms.Input) {
	b.mu.Lock()
	b.items = append(b.items, in...)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take returns everything in the inbox; the slice is valid until the next
// take.
func (b *inbox) take() []algorithms.Input {
	b.mu.Lock()
	items := b.items
	b.items = b.spare[:0]
	b.spare = items
	b.mu.Unlock()
	return items
}

// Enqueue queues an input to be stepped by the node soon. It may only be
// called on the node's own goroutine, i.e. from an Observer callback.
func (n *Node) Enqueue(in algorithms.Input) { n.local.push(in) }

// Kill ends the node without waiting: the loop returns at its next
// turn, the socket is closed at once and pending outgoing messages are
// dropped, as in a crash. Storage is closed when the loop has ended.
func (n *Node) Kill() {
	n.kill.Do(func() {
		close(n.stop)
		n.conn.Close()
	})
}

// Done is closed when the node's goroutines have ended after Kill.
func (n *Node) Done() <-chan struct{} { return n.done }

// Stop kills the node and waits for it.
func (n *Node) Stop() {
	n.Kill()
	if n.timer != nil { // started
		<-n.done
	}
}

// readBatch is the most datagrams the reader takes from the socket in
// one system call (recvmmsg on Linux; one elsewhere).
const readBatch = 16

func (n *Node) read() {
	defer n.wg.Done()
	pc := ipv4.NewPacketConn(n.conn)
	ms := make([]ipv4.Message, readBatch)
	var bufs [][]byte // free buffers held for the next read
	for {
		// At least one buffer (waiting for one), then as many more as
		// are free right now.
		if len(bufs) == 0 {
			select {
			case buf := <-n.free:
				bufs = append(bufs, buf)
			case <-n.stop:
				return
			}
		}
	more:
		for len(bufs) < readBatch {
			select {
			case buf := <-n.free:
				bufs = append(bufs, buf)
			default:
				break more
			}
		}
		// Each buffer is one byte larger than the largest valid datagram
		// so that an oversized one shows as such instead of being
		// truncated to something that might decode.
		for i, buf := range bufs {
			ms[i].Buffers = [][]byte{buf[:cap(buf)]}
			ms[i].Addr = nil
		}
		k, err := pc.ReadBatch(ms[:len(bufs)], 0)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. ECONNREFUSED from an ICMP; UDP goes on
		}
		for i := 0; i < k; i++ {
			var from netip.AddrPort
			if a, ok := ms[i].Addr.(*net.UDPAddr); ok {
				from = a.AddrPort()
			}
			select {
			case n.in <- rx{buf: bufs[i][:ms[i].N], from: from}:
			case <-n.stop:
				return
			}
		}
		bufs = bufs[:copy(bufs, bufs[k:])]
	}
}

func (n *Node) loop() {
	defer n.wg.Done()
	defer n.timer.Close()
	var diskDone <-chan diskDone
	if n.disk != nil {
		diskDone = n.disk.done
		defer func() {
			// After a kill, records still queued here are lost (a crash);
			// the writer finishes the write it is doing.
			if err := n.disk.stop(); err != nil && n.err == nil {
				n.err = err
			}
		}()
	}
	if n.begin() {
		n.step(algorithms.Input{Kind: algorithms.Start})
		n.end()
	}
	for {
		// Step everything that is ready without blocking; send only when
		// nothing is left, so messages of a burst share datagrams.
		n.drain()
		select {
		case p := <-n.in:
			n.recv(p)
			continue
		case <-n.inbox.wake:
			n.command(n.inbox.take())
			continue
		case r := <-diskDone:
			n.diskDone(r)
			continue
		case <-n.stop:
			return
		default:
		}
		n.fire()
		if n.local.len() > 0 {
			continue
		}
		if n.flush() {
			continue
		}
		if n.err != nil {
			<-n.stop
			return
		}
		// A Go timer's sub-millisecond wait lasts about a millisecond (see
		// wakeTimer). A delayed datagram stands for a network whose delay
		// is what the experiment asked for, and an algorithm timer due
		// within preciseBelow (a backoff scaled to a loopback round trip,
		// say) means what it says, so both wait on the kernel-resolution
		// wake timer; later deadlines use a Go timer, which costs no
		// syscall to arm.
		wake, isNet, ok := n.nextWake()
		if ok {
			d := time.Duration(wake - n.clock.True())
			if d <= 0 {
				continue
			}
			n.timer.Arm(d, isNet || d < preciseBelow)
		}
		select {
		case p := <-n.in:
			n.recv(p)
		case <-n.inbox.wake:
			n.command(n.inbox.take())
		case r := <-diskDone:
			n.diskDone(r)
		case <-n.timer.GoC():
		case <-n.timer.WakeC:
		case <-n.stop:
			return
		}
		n.timer.Disarm()
	}
}

// nextWake is the true time of the earliest timer or delayed datagram,
// and whether it is a delayed datagram.
func (n *Node) nextWake() (wake int64, isNet, ok bool) {
	if at, has := n.host.Timers.Next(); has {
		wake, ok = n.clock.TrueAt(at)+1, true
	}
	if due, has := n.net.next(); has && (!ok || due < wake) {
		wake, isNet, ok = due, true, true
	}
	return wake, isNet, ok
}

// Steps come in groups (a datagram's messages, a batch of local work,
// admissions, one due timer), each between begin and end. With a
// StepObserver (the runner's environment) begin takes the observer's lock,
// so that the node reads its clock, steps and reports the Outputs under
// that one lock: the instant stamped on an Output's events is the reading
// the node stepped with (a hold is never dated later than the belief
// began), and stamps reach the shared checker in true-time order (see
// env.Begin). The clock is read once a group, at its first step: every
// input of the group was there before that reading (a datagram's messages
// had arrived, local work was queued), and nothing else is reported until
// the group ends, so one reading serves every step of it as well as a
// reading per step would (clock reads were 5-7% of the million-lease
// batch's profile, one a step). What the Outputs ask of the node itself (timers,
// messages, records, the admission window) is applied after end, in step
// order, so the lock covers little more than the algorithm's Step; the
// sockets, the decoding and the disk stay outside it too.

// stepRec says where one step's Output ends in the group's buffers.
type stepRec struct {
	timers, msgs, persist, done int
	noSync                      bool
}

// group holds the Outputs of the steps of one group until apply.
type group struct {
	steps   []stepRec
	timers  []algorithms.Timer
	msgs    []algorithms.Message
	persist []algorithms.Record
	done    []algorithms.ResourceID // Acquire requests that ended (window)
}

// begin opens a group of steps; false means the node was crashed (or the
// run is over) and must not step.
func (n *Node) begin() bool {
	n.haveRead = false
	if n.dead {
		return false
	}
	if n.stepObs != nil && !n.stepObs.Begin(n) {
		n.dead = true
		return false
	}
	return true
}

// end closes a group that begin opened and applies its Outputs.
func (n *Node) end() {
	if n.stepObs != nil {
		n.stepObs.End(n)
	}
	n.apply()
}

// drain steps queued local work; under load it also fires due timers and
// sends full datagrams as it goes (the batches send themselves when full).
func (n *Node) drain() {
	for n.local.len() > 0 {
		if !n.begin() {
			n.local = fifo{}
			return
		}
		for i := 0; i < 256 && n.local.len() > 0; i++ {
			n.step(n.local.pop())
		}
		n.end()
		n.fire()
	}
}

func (n *Node) command(c []algorithms.Input) {
	if !n.begin() {
		return
	}
	for _, in := range c {
		if in.Kind == algorithms.Acquire && n.cfg.Window > 0 {
			n.admitQ.push(in)
			continue
		}
		n.step(in)
	}
	n.end()
	n.fire()
}

func (n *Node) recv(r rx) {
	p := r.buf
	n.meters.DatagramsRecv++
	n.meters.BytesRecv += int64(len(p))
	body := p
	var err error
	if n.key != nil {
		// The address first (it costs nothing), then the tag: a datagram
		// must come from the address of the node its header names, and a
		// key holder must have written it. Decode checks the sender named
		// in every message against the header.
		if len(p) < wire.HeaderSize || !n.fromPeer(wire.SenderOf(p), r.from) {
			err = wire.ErrAuth
		} else {
			body, err = n.key.Verify(p)
		}
	}
	if err == nil {
		_, n.rxMsgs, err = wire.Decode(body, n.rxMsgs[:0])
	}
	n.free <- p[:cap(p)]
	switch {
	case errors.Is(err, wire.ErrAuth):
		n.rejected[1].Add(1)
		return
	case err != nil:
		n.rejected[0].Add(1)
		return
	}
	n.meters.MsgsRecv += int64(len(n.rxMsgs))
	if !n.begin() {
		return
	}
	// The group's clock reading comes after the datagram arrived: every
	// message in it was sent before that instant, so no lease can be
	// dated earlier than the message that started it.
	for i := range n.rxMsgs {
		if n.rxMsgs[i].To != n.id {
			n.rejected[0].Add(1)
			continue
		}
		n.step(algorithms.Input{Kind: algorithms.Recv, Msg: n.rxMsgs[i]})
	}
	n.end()
	n.fire()
}

// fromPeer reports whether from is the address of node id (the peer a
// datagram's header names). An IPv4 address may arrive mapped into IPv6.
func (n *Node) fromPeer(id algorithms.NodeID, from netip.AddrPort) bool {
	if int(id) >= len(n.peers) || id == n.id {
		return false
	}
	want := n.peers[id]
	return want.Port() == from.Port() && want.Addr().Unmap() == from.Addr().Unmap()
}

// fire admits queued requests the window has room for, steps every timer
// that is due and sends delayed datagrams that are due; called between
// inputs so that none of them starves under load. It checks for work
// before it takes the observer's lock, so an idle turn of the loop does
// not. Each timer is a group of its own: a timer's step may cancel or
// replace another due timer, which then must not fire.
func (n *Node) fire() {
	for !n.dead {
		if n.admitQ.len() > 0 && len(n.flight) < n.cfg.Window {
			if !n.begin() {
				break
			}
			for n.admitQ.len() > 0 && len(n.flight) < n.cfg.Window && !n.dead {
				in := n.admitQ.pop()
				n.flight[in.Resource] = struct{}{}
				n.step(in)
			}
			n.end()
			continue
		}
		key, ok := n.host.Timers.Due(n.clock.LocalAt(n.clock.True()))
		if !ok {
			break
		}
		if !n.begin() {
			break
		}
		n.step(algorithms.Input{Kind: algorithms.Fire, Timer: key})
		n.end()
	}
	n.net.sendDue(n, n.clock.True())
}

// step steps one input at the group's clock reading (taken at its first
// step); within a group.
func (n *Node) step(in algorithms.Input) {
	if n.dead {
		return
	}
	if !n.haveRead {
		n.readT, n.readLocal = n.clock.Now()
		n.haveRead = true
	}
	t, now := n.readT, n.readLocal
	n.meters.Steps++
	o := &n.out
	o.Reset()
	g := &n.grp
	// The step appends its messages straight to the group's (Msgs is the
	// unused end of its buffer): copying them after every step was a
	// twentieth of the proposer's time in the million-lease batch.
	if cap(g.msgs)-len(g.msgs) < minSpareMsgs {
		g.msgs = slices.Grow(g.msgs, 16*minSpareMsgs)
	}
	o.Msgs = g.msgs[len(g.msgs):len(g.msgs)]
	n.host.Node.Step(now, in, o)
	if n.stepObs != nil && !n.stepObs.Stepped(n, t, now, in, o) {
		n.dead = true
		return
	}
	if n.obs != nil && n.stepObs == nil {
		for _, ev := range o.Events {
			n.obs.Event(n, t, now, ev)
		}
	}
	if n.cfg.Window > 0 {
		for _, ev := range o.Events {
			if ev.Kind == algorithms.Acquired || ev.Kind == algorithms.Failed {
				g.done = append(g.done, ev.Resource)
			}
		}
	}
	g.timers = append(g.timers, o.Timers...)
	g.msgs = takeMsgs(g.msgs, o.Msgs)
	g.persist = append(g.persist, o.Persist...)
	g.steps = append(g.steps, stepRec{timers: len(g.timers), msgs: len(g.msgs), persist: len(g.persist), done: len(g.done), noSync: o.NoSync})
}

// minSpareMsgs: a step starts with room for this many messages in the
// group's buffer.
const minSpareMsgs = 16

// takeMsgs adds a step's messages m to the group's buf: m is already in
// place after buf's end unless the step outgrew the room it was given.
func takeMsgs(buf, m []algorithms.Message) []algorithms.Message {
	k := len(buf)
	if len(m) == 0 {
		return buf
	}
	if cap(buf) > k && &buf[:k+1][k] == &m[0] {
		return buf[:k+len(m)]
	}
	return append(buf, m...)
}

// apply does what the group's Outputs ask of the node, step by step:
// timers, the admission window, records for the disk, then messages (held
// back while records they depend on are not durable).
func (n *Node) apply() {
	g := &n.grp
	var ti, mi, pi, di int
	for _, s := range g.steps {
		for ; ti < s.timers; ti++ {
			tm := &g.timers[ti]
			if tm.Cancel {
				n.host.Timers.Cancel(tm.Key)
			} else {
				n.host.Timers.Set(tm.Key, tm.At)
			}
		}
		for ; di < s.done; di++ {
			delete(n.flight, g.done[di]) // admitted again after this group
		}
		msgs := g.msgs[mi:s.msgs]
		if pi < s.persist {
			if n.disk == nil {
				n.fail(fmt.Errorf("udp: node %d: algorithm %s asks for durable records but the node has no storage", n.id, n.cfg.Algo.Name))
				break
			}
			msgs = n.host.Disk.Write(g.persist[pi:s.persist], msgs, s.noSync)
			pi = s.persist
		} else {
			msgs = n.host.Disk.Pass(msgs)
		}
		for i := range msgs {
			n.route(&msgs[i])
		}
		mi = s.msgs
	}
	g.steps, g.timers, g.msgs, g.persist, g.done = g.steps[:0], g.timers[:0], g.msgs[:0], g.persist[:0], g.done[:0]
}

func (n *Node) fail(err error) {
	if n.err == nil {
		n.err = err
	}
}

func (n *Node) route(m *algorithms.Message) {
	if m.To == n.id {
		n.meters.MsgsLocal++
		n.local.push(algorithms.Input{Kind: algorithms.Recv, Msg: *m})
		return
	}
	if int(m.To) >= len(n.batch) {
		n.meters.EncodeErrors++ // a message to a node that does not exist: a bug of the algorithm
		return
	}
	delay := n.net.wait[m.To]
	if n.net.perMsg {
		var batch bool
		if delay, batch = n.net.fault(n, m); !batch {
			return // dropped, or sent in a datagram of its own
		}
	}
	b := n.batch[m.To]
	if b.Len() == 0 {
		n.dirty = append(n.dirty, m.To)
		n.net.wait[m.To] = delay // a datagram's delay is its first message's
	}
	err := b.Add(m)
	if err == wire.ErrFull {
		n.send(m.To, b.Bytes())
		b.Reset()
		n.net.wait[m.To] = delay
		err = b.Add(m)
	}
	if err != nil {
		n.meters.EncodeErrors++ // a message the decoder would reject: a bug of the algorithm
		return
	}
	n.meters.MsgsSent++
}

// flush hands the records of the burst to the log writer (they are
// synced together: group commit) and sends every partly filled datagram,
// all in one system call where it can (writeBatch). Messages that wait
// for the disk leave when the writer is done (diskDone). It reports
// whether there is local work.
func (n *Node) flush() bool {
	if n.disk != nil && n.err == nil {
		n.kick()
	}
	if !n.net.delays() && len(n.dirty) > 1 {
		n.writeBatch()
	} else {
		for _, p := range n.dirty {
			b := n.batch[p]
			if b.Len() > 0 {
				n.send(p, b.Bytes())
				b.Reset()
			}
		}
	}
	n.dirty = n.dirty[:0]
	return n.local.len() > 0
}

// writeBatch sends the partly filled datagram of every dirty peer with
// one sendmmsg (ipv4.PacketConn.WriteBatch; one write each where the
// system has no batch call), counting as write does.
func (n *Node) writeBatch() {
	if n.pc == nil {
		n.pc = ipv4.NewPacketConn(n.conn)
		n.peerAddrs = make([]*net.UDPAddr, len(n.peers))
		for i, a := range n.peers {
			n.peerAddrs[i] = net.UDPAddrFromAddrPort(a)
		}
	}
	ms := n.wms[:0]
	for _, to := range n.dirty {
		b := n.batch[to]
		if b.Len() == 0 {
			continue
		}
		p := b.Bytes()
		if n.key != nil {
			p = n.key.Sign(p)
		}
		ms = append(ms, ipv4.Message{Buffers: [][]byte{p}, Addr: n.peerAddrs[to]})
	}
	n.wms = ms
	for len(ms) > 0 {
		k, err := n.pc.WriteBatch(ms, 0)
		if err != nil {
			// The first datagram failed: lost, as in write; the rest are
			// tried again.
			if errors.Is(err, net.ErrClosed) {
				break
			}
			n.sendError(err)
			k = 1
		} else {
			for _, m := range ms[:k] {
				n.meters.DatagramsSent++
				n.meters.BytesSent += int64(len(m.Buffers[0]))
			}
		}
		ms = ms[k:]
	}
	for _, to := range n.dirty {
		n.batch[to].Reset()
	}
}

func (n *Node) send(to algorithms.NodeID, p []byte) {
	if n.net.delays() {
		n.net.schedule(n, to, p)
		return
	}
	n.write(to, p)
}

func (n *Node) write(to algorithms.NodeID, p []byte) {
	if n.key != nil {
		// Signed as it leaves, after any emulated delay; the buffer has
		// room for the tag (NewSignedBatch, netem's pooled buffers).
		p = n.key.Sign(p)
	}
	if _, err := n.conn.WriteToUDPAddrPort(p, n.peers[to]); err != nil {
		if errors.Is(err, net.ErrClosed) {
			// Kill closed the socket while the loop was still sending
			// (Kill does not wait for the loop): the node has crashed and
			// what it had not sent yet is gone, as in a real crash. Not a
			// send error; counting it made batch tests flaky whenever a
			// node was still answering when the batch ended.
			return
		}
		n.sendError(err)
		return
	}
	n.meters.DatagramsSent++
	n.meters.BytesSent += int64(len(p))
}

// sendError counts a datagram the kernel refused. Anything but a closed
// socket (ENOBUFS, EAGAIN, ECONNREFUSED from an ICMP, ...) is the network
// losing a datagram: UDP may drop, the protocols retry. It is counted,
// and the first one kept for diagnosis, but it does not stop the node.
func (n *Node) sendError(err error) {
	n.meters.SendErrors++
	if n.meters.FirstSendError == "" {
		n.meters.FirstSendError = err.Error()
	}
}

// fifo is a queue of inputs that reuses its storage.
type fifo struct {
	buf  []algorithms.Input
	head int
}

func (f *fifo) len() int { return len(f.buf) - f.head }

func (f *fifo) push(in algorithms.Input) {
	if f.head > 0 && f.head == len(f.buf) {
		f.buf, f.head = f.buf[:0], 0
	}
	f.buf = append(f.buf, in)
}

func (f *fifo) pop() algorithms.Input {
	in := f.buf[f.head]
	f.head++
	if f.head == len(f.buf) {
		f.buf, f.head = f.buf[:0], 0
	}
	return in
}

// preciseBelow is how close an algorithm timer must be to wait on the wake
// timer instead of a Go timer (see Node.loop).
const preciseBelow = 2 * time.Millisecond

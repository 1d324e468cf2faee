package udp

import (
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/classicpaxos"
	"leaselab/runner"
	"leaselab/runner/udp/wal"
	"leaselab/runner/udp/wire"
)

// peer is a test's stand-in for a node: a socket that sends hand-made
// messages to the node under test and reads its answers.
type peer struct {
	t    *testing.T
	id   algorithms.NodeID
	conn *net.UDPConn
}

func newPeer(t *testing.T, id algorithms.NodeID) *peer {
	t.Helper()
	c, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &peer{t: t, id: id, conn: c}
}

func (p *peer) addr() netip.AddrPort { return p.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

func (p *peer) send(to netip.AddrPort, m algorithms.Message) {
	p.t.Helper()
	m.From = p.id
	b, err := wire.AppendDatagram(nil, p.id, []algorithms.Message{m})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.conn.WriteToUDPAddrPort(b, to); err != nil {
		p.t.Fatal(err)
	}
}

// recv returns the next message within d, or false.
func (p *peer) recv(d time.Duration) (algorithms.Message, bool) {
	p.t.Helper()
	buf := make([]byte, wire.MaxDatagram+1)
	for {
		if err := p.conn.SetReadDeadline(time.Now().Add(d)); err != nil {
			p.t.Fatal(err)
		}
		k, _, err := p.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return algorithms.Message{}, false
			}
			p.t.Fatal(err)
		}
		_, msgs, err := wire.Decode(buf[:k], nil)
		if err != nil {
			p.t.Fatal(err)
		}
		if len(msgs) > 0 {
			return msgs[0], true
		}
	}
}

// expect reads the next answer and checks its kind.
func (p *peer) expect(kind algorithms.Kind) algorithms.Message {
	p.t.Helper()
	m, ok := p.recv(5 * time.Second)
	if !ok {
		p.t.Fatalf("peer %d: no %v within 5 s", p.id, kind)
	}
	if m.Kind != kind {
		p.t.Fatalf("peer %d: got %v, want %v", p.id, m, kind)
	}
	return m
}

// acceptor starts node 2 of a 3-acceptor classic Paxos cluster whose
// nodes 0 and 1 are the test's peers (only node 0 proposes, so node 2 is a
// pure acceptor and sends nothing on its own). st is its log, recovered
// its Config.Recovered.
func acceptor(t *testing.T, peers [2]*peer, st wal.Storage, restarts uint16, recovered []algorithms.Record) *Node {
	t.Helper()
	alg, err := algorithms.Lookup("classicpaxos")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.DefaultParams()
	n, err := NewNode(NodeConfig{
		ID: 2, Algo: alg, Seed: 1,
		Node: algorithms.Config{Cluster: algorithms.NewCluster(3, 1), Params: p, Restarts: restarts, Recovered: recovered},
		Conn: conn, Peers: []netip.AddrPort{peers[0].addr(), peers[1].addr(), conn.LocalAddr().(*net.UDPAddr).AddrPort()},
		Clock: &Clock{Start: time.Now()}, Storage: st,
	})
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	n.Start()
	t.Cleanup(n.Stop)
	return n
}

func prepare(b algorithms.Ballot) algorithms.Message {
	return algorithms.Message{Kind: algorithms.Prepare, To: 2, Resource: 1, Instance: 1, Ballot: b, Owner: algorithms.NoNode}
}

// A classic Paxos acceptor over UDP promises ballot 5 (its promise goes to
// its log before the Promise leaves), is killed, and comes back from its
// log: it must reject ballot 3, which it promised against in its earlier
// life. Restarted from an empty log instead (a diskless restart, the
// control), the same acceptor promises ballot 3: the test can tell.
func TestDurableAcceptorKeepsPromiseAcrossRestart(t *testing.T) {
	peers := [2]*peer{newPeer(t, 0), newPeer(t, 1)}
	hi := algorithms.MakeBallot(5, 0, 0)
	lo := algorithms.MakeBallot(3, 0, 1)
	dir := t.TempDir()

	l, recs, err := OpenLog(dir, 2, true, true)
	if err != nil || len(recs) != 0 {
		t.Fatalf("fresh log: %d records, %v", len(recs), err)
	}
	n := acceptor(t, peers, l, 0, nil)
	peers[0].send(n.Addr(), prepare(hi))
	if m := peers[0].expect(algorithms.Promise); m.Ballot != hi {
		t.Fatalf("promise for %v, want %v", m.Ballot, hi)
	}
	n.Stop() // a crash: the loop ends, the log is closed
	if err := n.Err(); err != nil {
		t.Fatal(err)
	}
	if m := n.Meters(); m.Fsyncs < 1 || m.DiskBytes < wal.RecordSize {
		t.Fatalf("the promise was not synced: %d fsyncs, %d bytes", m.Fsyncs, m.DiskBytes)
	}

	l, recs, err = OpenLog(dir, 2, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || recs[len(recs)-1].Promised != hi {
		t.Fatalf("recovered %+v, want the promise of %v", recs, hi)
	}
	n = acceptor(t, peers, l, 1, recs)
	peers[1].send(n.Addr(), prepare(lo))
	m, ok := peers[1].recv(5 * time.Second)
	if !ok {
		t.Fatal("restarted acceptor did not answer")
	}
	if m.Kind == algorithms.Promise {
		t.Fatalf("restarted acceptor promised %v after promising %v in its earlier life: %v", lo, hi, m)
	}
	if m.Kind == algorithms.PrepareReject && m.Promised != hi {
		t.Fatalf("reject reports promised %v, want %v", m.Promised, hi)
	}
	t.Logf("restarted acceptor answers ballot %v with %v", lo, m)

	// Control: without its records the acceptor promises the lower ballot.
	empty, _, err := OpenLog(t.TempDir(), 2, true, true)
	if err != nil {
		t.Fatal(err)
	}
	n = acceptor(t, peers, empty, 1, nil)
	peers[1].send(n.Addr(), prepare(lo))
	peers[1].expect(algorithms.Promise)
}

// gateLog is a wal.Storage whose Append blocks until the test opens the
// gate, to watch what a node does while its records are not yet durable.
type gateLog struct {
	entered chan struct{}
	gate    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	recs    []algorithms.Record
}

func (g *gateLog) Append(recs []algorithms.Record) error {
	g.once.Do(func() { close(g.entered) })
	<-g.gate
	g.mu.Lock()
	g.recs = append(g.recs, recs...)
	g.mu.Unlock()
	return nil
}
func (g *gateLog) Write(recs []algorithms.Record) error { return g.Append(recs) }
func (g *gateLog) Sync() error                          { return nil }
func (g *gateLog) Close() error                         { return nil }

// The Promise must not leave before its record is durable: while the log's
// Append is stuck, nothing reaches the proposer; once it returns, the
// Promise does.
func TestPromiseWaitsForSync(t *testing.T) {
	peers := [2]*peer{newPeer(t, 0), newPeer(t, 1)}
	g := &gateLog{entered: make(chan struct{}), gate: make(chan struct{})}
	n := acceptor(t, peers, g, 0, nil)
	var open sync.Once
	openGate := func() { open.Do(func() { close(g.gate) }) }
	t.Cleanup(openGate) // runs before the node's Stop, which waits for the writer
	hi := algorithms.MakeBallot(5, 0, 0)
	peers[0].send(n.Addr(), prepare(hi))
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the acceptor never wrote its promise")
	}
	// A node that sent before syncing would have sent in the same turn of
	// its loop as the write began: well within this wait.
	if m, ok := peers[0].recv(100 * time.Millisecond); ok {
		t.Fatalf("%v left before its record was durable", m)
	}
	openGate()
	if m := peers[0].expect(algorithms.Promise); m.Ballot != hi {
		t.Fatalf("promise for %v, want %v", m.Ballot, hi)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.recs) != 1 || g.recs[0].Promised != hi {
		t.Fatalf("log holds %+v", g.recs)
	}
}

// A short classic Paxos batch over UDP through the runner: fsyncs, bytes
// and fsync latencies are real measurements, and group commit needs far
// fewer fsyncs than one per record (2 records per lease per acceptor:
// prepare and accept).
func TestClassicPaxosBatchFsyncs(t *testing.T) {
	for _, c := range []struct {
		group  bool
		leases int
		window int
	}{
		{group: true, leases: 3000, window: 256},
		// One fsync per record queues every record behind the ones
		// before it: a small window keeps that queue well inside the
		// response timeout on a slow disk (at 20 ms per fsync, 8 leases
		// in flight wait at most ~0.6 s), since this case counts fsyncs,
		// not speed.
		{group: false, leases: 100, window: 8},
	} {
		s := udpSpec("classicpaxos", "batch")
		s.Proposers = 1
		s.Leases = c.leases
		s.Duration = 20 * time.Second
		s.Params.DMax = 50 * time.Millisecond
		s.Disk.GroupCommit = c.group
		s.Disk.Dir = t.TempDir()
		r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Window: c.window})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("group commit %v: %d leases, %.0f leases/s, fsyncs %d (%.3f per lease), disk bytes %d, fsync p50 %.3f ms p99 %.3f ms",
			c.group, r.LeasesAcquired, r.LeasesPerSec, r.Fsyncs, r.FsyncsPerLease, r.DiskBytes, r.FsyncLatencyMS.P50, r.FsyncLatencyMS.P99)
		if r.LeasesAcquired != c.leases || r.LeasesFailed != 0 || r.Violations != 0 {
			t.Fatalf("acquired %d failed %d violations %d", r.LeasesAcquired, r.LeasesFailed, r.Violations)
		}
		// The nodes' own counters may include a write that finished
		// after the run ended (not reported to the recorder).
		if r.Fsyncs <= 0 || r.FsyncLatencyMS.N != int(r.Fsyncs) || r.FsyncLatencyMS.P50 <= 0 || r.Fsyncs > ex.Meters.Fsyncs {
			t.Fatalf("fsyncs %d (nodes counted %d), latency samples %d, p50 %.3f ms", r.Fsyncs, ex.Meters.Fsyncs, r.FsyncLatencyMS.N, r.FsyncLatencyMS.P50)
		}
		least := int64(s.Leases) * 2 * 2 * wal.RecordSize // a majority of 2 acceptors, 2 records each
		if r.DiskBytes < least || r.DiskBytes > ex.Meters.DiskBytes {
			t.Fatalf("disk bytes %d (nodes counted %d), want at least %d", r.DiskBytes, ex.Meters.DiskBytes, least)
		}
		if c.group && r.FsyncsPerLease >= 1 {
			t.Fatalf("group commit: %.2f fsyncs per lease", r.FsyncsPerLease)
		}
		if !c.group && r.FsyncsPerLease < 4 {
			t.Fatalf("without group commit: %.2f fsyncs per lease, want one per record (about 6)", r.FsyncsPerLease)
		}
	}
}

// The disk meters count what the log really wrote, compactions included:
// with a tiny compaction threshold the writer's byte count exceeds records
// times the record size by the rewrites, and matches the log's own count.
func TestDiskBytesIncludeCompaction(t *testing.T) {
	l, _, err := wal.Open(filepath.Join(t.TempDir(), "n.wal"), wal.Options{GroupCommit: true, CompactAt: 4 * wal.RecordSize})
	if err != nil {
		t.Fatal(err)
	}
	d := newLogWriter(l, false)
	go d.writer()
	var bytes int64
	const n = 20
	for i := range n {
		rec := algorithms.Record{Resource: algorithms.ResourceID(i % 3), Instance: uint64(i + 1), Owner: algorithms.NoNode}
		d.req <- []algorithms.Record{rec}
		r := <-d.done
		if r.err != nil {
			t.Fatal(r.err)
		}
		bytes += r.bytes
	}
	st := l.Stats()
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	if st.Compactions == 0 || bytes != st.Bytes || bytes <= n*wal.RecordSize {
		t.Fatalf("metered %d bytes; the log wrote %d in %d compactions, records alone %d", bytes, st.Bytes, st.Compactions, n*wal.RecordSize)
	}
}

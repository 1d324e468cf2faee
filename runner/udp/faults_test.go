package udp

import (
	"errors"
	"math"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	"leaselab/runner"
	"leaselab/runner/udp/wire"
)

func TestNetemValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		n    Netem
		err  string // "" = valid
	}{
		{name: "zero", n: Netem{}},
		{name: "all faults", n: Netem{RTT: time.Millisecond, Loss: 0.1, Dup: 0.1, Reorder: 0.1}},
		{name: "dup 1", n: Netem{Dup: 1}},
		{name: "reorder 1", n: Netem{Reorder: 1}},
		{name: "dup negative", n: Netem{Dup: -0.1}, err: "dup must be a probability in [0, 1], got -0.1"},
		{name: "dup above 1", n: Netem{Dup: 1.5}, err: "dup must be a probability in [0, 1], got 1.5"},
		{name: "dup NaN", n: Netem{Dup: math.NaN()}, err: "dup must be a probability in [0, 1], got NaN"},
		{name: "reorder negative", n: Netem{Reorder: -1}, err: "reorder must be a probability in [0, 1], got -1"},
		{name: "reorder above 1", n: Netem{Reorder: 2}, err: "reorder must be a probability in [0, 1], got 2"},
		{name: "reorder NaN", n: Netem{Reorder: math.NaN()}, err: "reorder must be a probability in [0, 1], got NaN"},
		{name: "loss 1", n: Netem{Loss: 1}, err: "loss must be in [0, 1), got 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.n.Validate()
			if c.err == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("want an error containing %q, got %v", c.err, err)
			}
		})
	}
}

// Without loss, duplication, reordering or a partition a message goes
// straight into its batch: the send path does no per-message work for
// faults that are off.
func TestNetemFaultyOnlyWhenAsked(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      Netem
		cut    *Partition
		faulty bool
	}{
		{name: "none", n: Netem{}},
		{name: "delay only", n: Netem{RTT: time.Millisecond, Jitter: time.Millisecond, Bandwidth: 1 << 20}},
		{name: "loss", n: Netem{Loss: 0.1}, faulty: true},
		{name: "dup", n: Netem{Dup: 0.1}, faulty: true},
		{name: "reorder", n: Netem{Reorder: 0.1}, faulty: true},
		{name: "partition", cut: &Partition{}, faulty: true},
	} {
		if got := newNetem(c.n, c.cut, 1, 0).faulty; got != c.faulty {
			t.Errorf("%s: faulty %v, want %v", c.name, got, c.faulty)
		}
	}
}

// testSender is node 0 of a three-node cluster, built but not started:
// the test routes messages through it by hand and reads what node 1's
// socket receives.
type testSender struct {
	n  *Node
	rx *net.UDPConn // node 1's socket
}

func newTestSender(t *testing.T, nm Netem, cut *Partition, seed uint64) *testSender {
	t.Helper()
	var conns []*net.UDPConn
	var peers []netip.AddrPort
	for i := 0; i < 3; i++ {
		c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		peers = append(peers, c.LocalAddr().(*net.UDPAddr).AddrPort())
	}
	alg, err := algorithms.Lookup("naive")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNode(NodeConfig{ID: 0, Algo: alg,
		Node: algorithms.Config{Cluster: algorithms.NewCluster(3, 3), Params: algorithms.DefaultParams()},
		Seed: seed, Conn: conns[0], Peers: peers, Clock: &Clock{Start: time.Now()}, Net: nm, Partition: cut})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.Stop()
		conns[1].Close()
		conns[2].Close()
	})
	return &testSender{n: n, rx: conns[1]}
}

func testMsg(i int) algorithms.Message {
	return algorithms.Message{Kind: algorithms.Request, From: 0, To: 1, Resource: algorithms.ResourceID(i), Span: 1}
}

// send routes messages 0..k-1 to node 1 and flushes the batch, as one
// burst of the node's loop.
func (s *testSender) send(k int) {
	for i := 0; i < k; i++ {
		m := testMsg(i)
		s.n.route(&m)
	}
	s.n.flush()
}

// recv reads k datagrams from node 1's socket and returns the resources
// of the messages of each.
func (s *testSender) recv(t *testing.T, k int) [][]algorithms.ResourceID {
	t.Helper()
	buf := make([]byte, wire.MaxDatagram+1)
	var out [][]algorithms.ResourceID
	for len(out) < k {
		if err := s.rx.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
			t.Fatal(err)
		}
		n, _, err := s.rx.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatalf("after %d of %d datagrams: %v", len(out), k, err)
		}
		_, msgs, err := wire.Decode(buf[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		var rs []algorithms.ResourceID
		for _, m := range msgs {
			rs = append(rs, m.Resource)
		}
		out = append(out, rs)
	}
	return out
}

// noMore checks that nothing else arrives at node 1 (everything sent has
// been read: the sender wrote it before recv returned).
func (s *testSender) noMore(t *testing.T) {
	t.Helper()
	if err := s.rx.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, wire.MaxDatagram+1)
	if n, _, err := s.rx.ReadFromUDPAddrPort(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("an unexpected datagram of %d bytes (err %v)", n, err)
	}
}

// With Dup 1 every message leaves twice: once in the burst's batch and
// once more in a datagram of its own (with its own delay: here none).
func TestNetemDupEveryMessage(t *testing.T) {
	s := newTestSender(t, Netem{Dup: 1}, nil, 1)
	s.send(3)
	s.n.net.sendDue(s.n, math.MaxInt64)
	got := s.recv(t, 4)
	s.noMore(t)
	want := [][]algorithms.ResourceID{{0, 1, 2}, {0}, {1}, {2}}
	if !equalDatagrams(got, want) {
		t.Fatalf("datagrams %v, want %v", got, want)
	}
	m := s.n.meters
	if m.MsgsDuplicated != 3 || m.MsgsSent != 6 || m.DatagramsSent != 4 || m.MsgsReordered != 0 {
		t.Fatalf("meters: duplicated %d sent %d datagrams %d reordered %d, want 3, 6, 4, 0",
			m.MsgsDuplicated, m.MsgsSent, m.DatagramsSent, m.MsgsReordered)
	}
}

// With Dup 0.3 and a fixed seed, some messages arrive twice and every
// other once; the meter counts exactly the copies that arrived.
func TestNetemDupSome(t *testing.T) {
	const k = 200
	s := newTestSender(t, Netem{Dup: 0.3}, nil, 7)
	s.send(k)
	s.n.net.sendDue(s.n, math.MaxInt64)
	dups := int(s.n.meters.MsgsDuplicated)
	got := s.recv(t, 1+dups) // the batch, then one datagram per copy
	s.noMore(t)
	seen := make([]int, k)
	for _, d := range got {
		for _, r := range d {
			seen[r]++
		}
	}
	twice := 0
	for r, c := range seen {
		switch c {
		case 1:
		case 2:
			twice++
		default:
			t.Fatalf("message %d arrived %d times", r, c)
		}
	}
	t.Logf("%d of %d messages duplicated", twice, k)
	if twice != dups || dups < k/5 || dups > 2*k/5 {
		t.Fatalf("%d arrived twice, meter says %d duplicated, want about %d", twice, dups, 3*k/10)
	}
}

// With Reorder a held-back message leaves in a datagram of its own, later
// than the link's delay by up to 2*RTT, while the others share the
// batch's datagram; some of them are due after the batch, i.e. overtaken.
func TestNetemReorderHoldsBack(t *testing.T) {
	const (
		k   = 20
		rtt = 10 * time.Millisecond
	)
	s := newTestSender(t, Netem{RTT: rtt, Reorder: 0.5}, nil, 3)
	t0 := s.n.clock.True()
	s.send(k)
	t1 := s.n.clock.True()
	type dgram struct {
		due int64
		rs  []algorithms.ResourceID
	}
	var batch *dgram
	var alone []dgram
	seen := make([]int, k)
	for s.n.net.q.Len() > 0 {
		due, d := s.n.net.q.Pop()
		_, msgs, err := wire.Decode(d.buf, nil)
		if err != nil || d.to != 1 {
			t.Fatalf("queued datagram to %d: %v", d.to, err)
		}
		g := dgram{due: due}
		for _, m := range msgs {
			g.rs = append(g.rs, m.Resource)
			seen[m.Resource]++
		}
		if len(msgs) > 1 {
			if batch != nil {
				t.Fatalf("two batches: %v and %v", batch.rs, g.rs)
			}
			batch = &g
		} else {
			alone = append(alone, g)
		}
	}
	for r, c := range seen {
		if c != 1 {
			t.Fatalf("message %d queued %d times", r, c)
		}
	}
	if batch == nil || len(alone) == 0 || int(s.n.meters.MsgsReordered) != len(alone) {
		t.Fatalf("batch %v, %d held back alone, meter %d", batch, len(alone), s.n.meters.MsgsReordered)
	}
	oneWay := int64(rtt / 2)
	if batch.due < t0+oneWay || batch.due > t1+oneWay {
		t.Fatalf("batch due at %d, want the one-way delay after the burst [%d, %d]", batch.due, t0+oneWay, t1+oneWay)
	}
	later := 0
	for _, g := range alone {
		if g.due < t0+oneWay || g.due > t1+oneWay+2*int64(rtt) {
			t.Fatalf("message %d due at %d, want in [%d, %d]", g.rs[0], g.due, t0+oneWay, t1+oneWay+2*int64(rtt))
		}
		if g.due > batch.due {
			later++
		}
	}
	t.Logf("%d of %d held back, %d of them due after the batch", len(alone), k, later)
	if later == 0 {
		t.Fatal("no held-back message is due after the batch")
	}
}

// A message across an active split is dropped when it is sent, and
// counted; after Heal it goes through.
func TestPartitionDropsAtSend(t *testing.T) {
	cut := &Partition{}
	s := newTestSender(t, Netem{}, cut, 1)
	cut.Split([]uint8{0, 1, 0})
	if !cut.Apart(0, 1) || cut.Apart(0, 2) || !cut.Apart(2, 1) {
		t.Fatal("Apart does not follow the sides")
	}
	s.send(2)
	m2 := algorithms.Message{Kind: algorithms.Request, From: 0, To: 2, Resource: 9, Span: 1}
	s.n.route(&m2) // same side: batched for node 2
	if got := s.n.meters.MsgsPartitioned; got != 2 {
		t.Fatalf("%d messages dropped by the partition, want 2", got)
	}
	if s.n.batch[2].Len() != 1 {
		t.Fatalf("message to a node on the same side not batched")
	}
	cut.Heal()
	if cut.Apart(0, 1) {
		t.Fatal("apart after Heal")
	}
	s.send(2)
	if got := s.recv(t, 1); !equalDatagrams(got, [][]algorithms.ResourceID{{0, 1}}) {
		t.Fatalf("after heal got %v", got)
	}
	s.noMore(t)
}

func equalDatagrams(a, b [][]algorithms.ResourceID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// The partition plan is the seed's alone, and means what the simulator's
// episodes mean: Poisson starts, never overlapping, lengths uniform in
// [len/2, len], two non-empty sides.
func TestPartitionPlan(t *testing.T) {
	const (
		perMinute = 6.0
		length    = 3 * time.Second
		nodes     = 3
		episodes  = 20000
	)
	a := newPartitionPlan(42, perMinute, length, nodes)
	b := newPartitionPlan(42, perMinute, length, nodes)
	c := newPartitionPlan(43, perMinute, length, nodes)
	var gaps, prevHeal int64
	differs := false
	for i := 0; i < episodes; i++ {
		start, heal := a.next()
		bs, bh := b.next()
		cs, _ := c.next()
		if bs != start || bh != heal || string(a.sides) != string(b.sides) {
			t.Fatalf("episode %d: the same seed planned [%d, %d] %v and [%d, %d] %v", i, start, heal, a.sides, bs, bh, b.sides)
		}
		differs = differs || cs != start
		if start < prevHeal {
			t.Fatalf("episode %d starts at %d, before the previous healed at %d", i, start, prevHeal)
		}
		if d := heal - start; d < int64(length/2) || d > int64(length) {
			t.Fatalf("episode %d lasts %v, want in [%v, %v]", i, time.Duration(d), length/2, length)
		}
		ones := 0
		for _, x := range a.sides {
			if x > 1 {
				t.Fatalf("side %d", x)
			}
			ones += int(x)
		}
		if ones == 0 || ones == nodes {
			t.Fatalf("episode %d: one side empty: %v", i, a.sides)
		}
		gaps += start - prevHeal
		prevHeal = heal
	}
	if !differs {
		t.Fatal("seeds 42 and 43 planned the same starts")
	}
	mean := float64(gaps) / episodes / 1e9
	if want := 60 / perMinute; math.Abs(mean-want) > 0.05*want {
		t.Fatalf("mean gap %.2f s, want %.2f s", mean, want)
	}
}

// plannedSplits counts the episodes the run's seed plans to start before
// limit.
func plannedSplits(s runner.Spec, limit time.Duration) int {
	p := newPartitionPlan(s.Seed, s.Faults.Partitions, s.Faults.PartitionLen, max(s.Acceptors, s.Proposers))
	k := 0
	for {
		start, _ := p.next()
		if start >= int64(limit) {
			return k
		}
		k++
	}
}

// Every algorithm stays safe over real UDP with every message fault on at
// once: duplication, reordering, loss and partitions. The faults are
// checked to have happened, so that the test cannot pass by running a
// fault-free network.
func TestFaultsOverUDP(t *testing.T) {
	for _, algo := range []string{"naive", "paxoslease", "fatlease"} {
		t.Run(algo, func(t *testing.T) {
			t.Parallel() // wall time, not CPU: the runs mostly wait
			s := udpSpec(algo, "contention")
			s.Proposers = 3
			s.Seed = 7 // plans two partitions inside the run, at 0.18 s and 1.6 s
			s.Duration = 2 * time.Second
			s.Params.LeaseSpan = 300 * time.Millisecond
			s.Params.MaxLease = 400 * time.Millisecond
			s.Params.DMax = 50 * time.Millisecond
			s.Params.ResponseTimeout = 50 * time.Millisecond
			s.Params.Backoff = 10 * time.Millisecond
			s.Hold = 50 * time.Millisecond
			s.Pause = 20 * time.Millisecond
			s.Net.RTT = time.Millisecond
			s.Net.Dup, s.Net.Reorder, s.Net.Loss = 0.1, 0.1, 0.05
			s.Faults.Partitions = 60
			s.Faults.PartitionLen = 400 * time.Millisecond
			planned := plannedSplits(s, s.Duration)
			if planned == 0 {
				t.Fatalf("seed %d plans no partition within %v: pick another seed", s.Seed, s.Duration)
			}
			r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m := ex.Meters
			t.Logf("acquired %d failed %d violations %d; partitions %d (planned %d); msgs sent %d duplicated %d reordered %d lost %d partitioned %d",
				r.LeasesAcquired, r.LeasesFailed, r.Violations, r.PartitionCount, planned,
				m.MsgsSent, m.MsgsDuplicated, m.MsgsReordered, m.MsgsDropped, m.MsgsPartitioned)
			if r.Violations != 0 {
				t.Fatalf("%d violations: %v", r.Violations, r.ViolationList)
			}
			// A start planned just after the end may still run when the
			// last turn of the environment's loop is late.
			// Under -tags wallclock only: on a loaded machine the loop can
			// fall behind the plan.
			if wallclock && (r.PartitionCount < planned || r.PartitionCount > plannedSplits(s, s.Duration+time.Second)) {
				t.Errorf("%d partitions, the seed plans %d within the run", r.PartitionCount, planned)
			}
			if m.MsgsDuplicated == 0 || m.MsgsReordered == 0 || m.MsgsDropped == 0 || wallclock && m.MsgsPartitioned == 0 {
				t.Errorf("a fault never happened: duplicated %d reordered %d lost %d partitioned %d",
					m.MsgsDuplicated, m.MsgsReordered, m.MsgsDropped, m.MsgsPartitioned)
			}
			if r.LeasesAcquired+r.LeasesFailed == 0 {
				t.Error("no request ended")
			}
		})
	}
}

// The checker catches over UDP what the simulator's check finds: PaxosLease
// with votes counted per message (ablation count-by-message) takes one
// acceptor's duplicated promise and accept for a majority. Proposers 3 and
// 4 are not acceptors, so every vote they count crossed the network and
// could be duplicated; loss makes the honest majority of the others
// likelier to miss the false holder's proposal. A 2 s run showed 1 to 10
// violations in each of 36 tries (4 at once on 2 cores), so up to three
// seeds are tried, stopping at the first violation. The same runs with
// the rule in force must find none.
func TestCountByMessageCaughtOverUDP(t *testing.T) {
	spec := func(seed uint64, ablate bool) runner.Spec {
		s := udpSpec("paxoslease", "contention")
		if ablate {
			s.Ablate = algorithms.Ablations{"count-by-message"}
		}
		s.Acceptors, s.Proposers = 3, 5
		s.Seed = seed
		s.Duration = 2 * time.Second
		s.Params.LeaseSpan = 300 * time.Millisecond
		s.Params.MaxLease = 400 * time.Millisecond
		s.Params.ResponseTimeout = 50 * time.Millisecond
		s.Params.Backoff = 10 * time.Millisecond
		s.Hold = 50 * time.Millisecond
		s.Pause = 20 * time.Millisecond
		s.Net.RTT = time.Millisecond
		s.Net.Dup, s.Net.Loss = 0.5, 0.2
		return s
	}
	t.Run("ablated", func(t *testing.T) {
		if !wallclock {
			t.Skip("how many violations three 2 s runs make depends on the load: go test -tags wallclock")
		}
		t.Parallel()
		for seed := uint64(1); seed <= 3; seed++ {
			r, ex, err := RunSpec(spec(seed, true), runner.Options{}, EnvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("seed %d: %d violations, %d leases, %d messages duplicated", seed, r.Violations, r.LeasesAcquired, ex.Meters.MsgsDuplicated)
			if r.Violations > 0 {
				return
			}
		}
		t.Fatal("count-by-message under dup 0.5 made no violation in three 2 s runs")
	})
	t.Run("intact", func(t *testing.T) {
		t.Parallel()
		r, ex, err := RunSpec(spec(1, false), runner.Options{}, EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d violations, %d leases, %d messages duplicated", r.Violations, r.LeasesAcquired, ex.Meters.MsgsDuplicated)
		if r.Violations != 0 || ex.Meters.MsgsDuplicated == 0 {
			t.Fatalf("%d violations, %d duplicated: %v", r.Violations, ex.Meters.MsgsDuplicated, r.ViolationList)
		}
	})
}

// Random crashes stay the simulator's; the error says so.
func TestCrashRateSimulatorOnly(t *testing.T) {
	s := udpSpec("paxoslease", "contention")
	s.Faults.CrashRate = 1
	_, _, err := RunSpec(s, runner.Options{}, EnvOptions{})
	if err == nil || !strings.Contains(err.Error(), "random crashes (crash rate) are simulator-only") {
		t.Fatalf("want the simulator-only error, got %v", err)
	}
}

// Stalled links (stale messages) are the simulator's too.
func TestStaleSimulatorOnly(t *testing.T) {
	s := udpSpec("paxoslease", "contention")
	s.Net.Stale, s.Net.StaleSpans = 1, 3
	_, _, err := RunSpec(s, runner.Options{}, EnvOptions{})
	if err == nil || !strings.Contains(err.Error(), "simulator-only") || !errors.Is(err, runner.ErrBadSpec) {
		t.Fatalf("want the simulator-only bad-spec error, got %v", err)
	}
}

// Jitter has the simulator's law: the one-way delay is RTT/2 plus uniform
// [-Jitter, +Jitter], cut at zero, so a jittered link has the same mean
// delay in both environments.
func TestNetemJitterSymmetric(t *testing.T) {
	const (
		rtt   = 2 * time.Millisecond
		draws = 100000
	)
	for _, c := range []struct {
		jitter time.Duration
		lo, hi time.Duration
		mean   time.Duration // -1: not checked
	}{
		{300 * time.Microsecond, rtt/2 - 300*time.Microsecond, rtt/2 + 300*time.Microsecond, rtt / 2},
		// Jitter beyond RTT/2 is cut at no delay, as in the simulator.
		{2 * rtt, 0, rtt/2 + 2*rtt, -1},
	} {
		e := newNetem(Netem{RTT: rtt, Jitter: c.jitter}, nil, 5, 0)
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		var sum float64
		zero := 0
		for range draws {
			d := e.delay()
			lo, hi = min(lo, d), max(hi, d)
			sum += float64(d)
			if d == 0 {
				zero++
			}
		}
		// With this many draws the extremes come within a few ns of the
		// bounds; the mean within a fraction of a microsecond.
		near := int64(c.hi-c.lo) / 1000
		if lo < int64(c.lo) || lo > int64(c.lo)+near || hi > int64(c.hi) || hi < int64(c.hi)-near {
			t.Errorf("jitter %v: delays in [%v, %v], want [%v, %v]", c.jitter, time.Duration(lo), time.Duration(hi), c.lo, c.hi)
		}
		if m := time.Duration(sum / draws); c.mean > 0 && (m < c.mean-5*time.Microsecond || m > c.mean+5*time.Microsecond) {
			t.Errorf("jitter %v: mean delay %v, want %v", c.jitter, m, c.mean)
		}
		if c.mean < 0 && zero == 0 {
			t.Errorf("jitter %v beyond RTT/2: no delay was cut at zero", c.jitter)
		}
	}
}

package udp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/udp/wire"
)

// testProc is one node process run in this test process (RunProcess, the
// code behind `leaselab node`, on its own socket and pipes).
type testProc struct {
	t     *testing.T
	id    int
	addr  netip.AddrPort
	stdin io.WriteCloser
	lines chan timedLine
	done  chan error
}

// timedLine is a line and when the test read it.
type timedLine struct {
	at time.Time
	ProcessLine
}

// Deadlines are generous: they only bound a test that has already failed.
const procDeadline = 30 * time.Second

func startProcs(t *testing.T, n int, base ProcessConfig) []*testProc {
	t.Helper()
	addrs, err := reservePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	peers := map[algorithms.NodeID]netip.AddrPort{}
	for i, a := range addrs {
		peers[algorithms.NodeID(i)] = a
	}
	procs := make([]*testProc, n)
	for i := range procs {
		cfg := base
		cfg.ID, cfg.Listen, cfg.Peers = algorithms.NodeID(i), addrs[i], map[algorithms.NodeID]netip.AddrPort{}
		for id, a := range peers {
			cfg.Peers[id] = a
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		p := &testProc{t: t, id: i, addr: addrs[i], stdin: inW, lines: make(chan timedLine, 4096), done: make(chan error, 1)}
		go func() {
			p.done <- RunProcess(context.Background(), cfg, inR, outW)
			outW.Close()
		}()
		go func() {
			defer close(p.lines)
			sc := bufio.NewScanner(outR)
			for sc.Scan() {
				var l ProcessLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Errorf("node %d: bad line %q", i, sc.Text())
					continue
				}
				p.lines <- timedLine{at: time.Now(), ProcessLine: l}
			}
		}()
		procs[i] = p
	}
	t.Cleanup(func() {
		for _, p := range procs {
			io.WriteString(p.stdin, "quit\n")
			for range p.lines {
			}
			if err := <-p.done; err != nil {
				t.Errorf("node %d: %v", p.id, err)
			}
		}
	})
	for _, p := range procs {
		p.waitFor("ready", func(l ProcessLine) bool { return l.Type == "ready" })
	}
	return procs
}

func (p *testProc) send(cmd string) {
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		p.t.Fatalf("node %d: %v", p.id, err)
	}
}

// waitFor reads the node's lines until one matches, and fails the test if
// none does by the deadline. Lines before the match are passed to seen.
func (p *testProc) waitFor(what string, match func(ProcessLine) bool, seen ...func(timedLine)) timedLine {
	p.t.Helper()
	deadline := time.After(procDeadline)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("node %d: output ended before %s", p.id, what)
			}
			if match(l.ProcessLine) {
				return l
			}
			for _, f := range seen {
				f(l)
			}
		case <-deadline:
			p.t.Fatalf("node %d: no %s within %v", p.id, what, procDeadline)
		}
	}
}

func isEvent(kind algorithms.EventKind, owner int) func(ProcessLine) bool {
	return func(l ProcessLine) bool {
		return l.Type == "event" && l.Event == kind.String() && l.Owner != nil && *l.Owner == owner
	}
}

// stats asks the node for its counters.
func (p *testProc) stats() ProcessStats {
	p.t.Helper()
	p.send("stats")
	return *p.waitFor("stats", func(l ProcessLine) bool { return l.Type == "stats" }).Stats
}

// A forged release, as anyone who can reach the nodes' ports could send
// it: node 0 holds a PaxosLease lease; one forged Release per acceptor,
// sent from a socket that is no node, with node 0's id and exact ballot. Without a key the acceptors clear node 0's grant and
// node 1 acquires while node 0 still holds (the invariant breaks). With a
// key the forgeries are dropped and counted, and node 1 gets the lease only
// after node 0 releases it. The lease span is 30 s, so node 0's lease is
// alive, by a wide margin, through everything the test does before it.
func TestForgedReleaseNeedsKey(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		name := map[bool]string{false: "no key", true: "key"}[keyed]
		t.Run(name, func(t *testing.T) { forgedRelease(t, keyed) })
	}
}

func forgedRelease(t *testing.T, keyed bool) {
	p := algorithms.DefaultParams()
	p.LeaseSpan = 30 * time.Second
	p.MaxLease = 40 * time.Second
	p.Backoff = 20 * time.Millisecond
	base := ProcessConfig{Algo: "paxoslease", Params: p, Seed: 1}
	var key []byte
	if keyed {
		base.KeyFile = filepath.Join(t.TempDir(), "cluster.key")
		if err := WriteKeyFile(base.KeyFile); err != nil {
			t.Fatal(err)
		}
		var err error
		if key, err = ReadKeyFile(base.KeyFile); err != nil {
			t.Fatal(err)
		}
	}
	procs := startProcs(t, 3, base)

	sent := time.Now() // node 0's hold begins after this
	procs[0].send("acquire 1")
	acq := procs[0].waitFor("node 0's acquisition", isEvent(algorithms.Acquired, 0))
	holdsUntil := sent.Add(time.Duration(acq.RemainingNS)) // node 0 holds at least until then
	for _, a := range procs[1:] {
		a.waitFor("a grant for node 0", isEvent(algorithms.Granted, 0))
	}

	// The forgery: what node 0 would send to release its lease.
	forger, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	forge := func(to *testProc, sign bool) {
		m := algorithms.Message{Kind: algorithms.Release, From: 0, To: algorithms.NodeID(to.id), Owner: 0,
			Resource: 1, Ballot: algorithms.Ballot(acq.Ballot)}
		dg, err := wire.AppendDatagram(nil, 0, []algorithms.Message{m})
		if err != nil {
			t.Fatal(err)
		}
		if sign {
			k, _ := wire.NewKey(key)
			dg = k.Sign(dg)
		}
		if _, err := forger.WriteToUDPAddrPort(dg, to.addr); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range procs[1:] {
		forge(a, false)
	}

	if !keyed {
		for _, a := range procs[1:] {
			a.waitFor("the forged release clearing node 0's grant", isEvent(algorithms.Cleared, 0))
		}
		procs[1].send("acquire 1")
		got := procs[1].waitFor("node 1's acquisition", isEvent(algorithms.Acquired, 1))
		if !got.at.Before(holdsUntil) {
			t.Fatalf("node 1 acquired %v after node 0's lease ended; the forgery should have let it in while node 0 held",
				got.at.Sub(holdsUntil))
		}
		t.Logf("without a key: node 1 acquired while node 0 held its lease for at least %v more (two holders)", holdsUntil.Sub(got.at))
		return
	}

	// With a key: the acceptors drop the forgeries, and also a correctly
	// signed copy sent from an address that is no peer's.
	for _, a := range procs[1:] {
		forge(a, true)
	}
	for _, a := range procs[1:] {
		poll := time.NewTicker(10 * time.Millisecond)
		deadline := time.After(procDeadline)
		for s := a.stats(); s.Unauthenticated < 2; s = a.stats() {
			if s.BadDatagrams != 0 {
				t.Fatalf("node %d: forged datagrams counted as malformed: %+v", a.id, s)
			}
			select {
			case <-poll.C:
			case <-deadline:
				t.Fatalf("node %d: the forged datagrams were not counted within %v: %+v", a.id, procDeadline, s)
			}
		}
		poll.Stop()
	}
	// Node 1 now asks for the lease; it must wait, since nodes 1 and 2
	// still hold node 0's grant. Watch it for a while, well inside node
	// 0's lease: a broken node 1 takes milliseconds (the case above).
	procs[1].send("acquire 1")
	watch := time.After(min(2*time.Second, time.Until(holdsUntil)/2))
	for watching := true; watching; {
		select {
		case l := <-procs[1].lines:
			if isEvent(algorithms.Acquired, 1)(l.ProcessLine) || isEvent(algorithms.Cleared, 0)(l.ProcessLine) {
				t.Fatalf("with a key, node 1 reported %s while node 0 held the lease", l.Event)
			}
		case l := <-procs[2].lines:
			if isEvent(algorithms.Cleared, 0)(l.ProcessLine) {
				t.Fatal("with a key, node 2 cleared node 0's grant")
			}
		case <-watch:
			watching = false
		}
	}
	// Signed datagrams from the right nodes still work: node 0 releases,
	// and node 1, told so, acquires.
	procs[0].send("release 1")
	procs[0].waitFor("node 0's release", isEvent(algorithms.Lost, 0))
	procs[1].waitFor("node 1's acquisition after the release", isEvent(algorithms.Acquired, 1))
	for _, a := range procs[1:] {
		if s := a.stats(); s.Unauthenticated != 2 || s.BadDatagrams != 0 {
			t.Errorf("node %d: %+v, want 2 unauthenticated and no bad datagram", a.id, s)
		}
	}
	if s := procs[0].stats(); s.Unauthenticated != 0 {
		t.Errorf("node 0 dropped datagrams of its peers: %+v", s)
	}
}

// A key file must hold enough bytes, and a cluster's key file is the
// owner's alone.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("  too short \n"), 0o600)
	if _, err := ReadKeyFile(short); err == nil {
		t.Error("a 9-byte key was accepted")
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing key file was accepted")
	}
	f := filepath.Join(dir, "k")
	if err := WriteKeyFile(f); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", fi.Mode(), err)
	}
	k, err := ReadKeyFile(f)
	if err != nil || len(k) != 64 {
		t.Fatalf("key of %d bytes, %v", len(k), err)
	}
	if err := WriteKeyFile(f); err == nil {
		t.Error("WriteKeyFile overwrote an existing key")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		if err := os.Chmod(f, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadKeyFile(f); err == nil || !strings.Contains(err.Error(), "can be read by others") {
			t.Errorf("mode %04o: %v, want the key file refused", mode, err)
		}
	}
}

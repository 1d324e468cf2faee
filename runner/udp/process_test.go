package udp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/classicpaxos"
	_ "leaselab/paxoslease"
	"leaselab/runner"
	"leaselab/runner/workload"
)

// The failover test runs real node processes: the test binary re-executes
// itself with LEASELAB_UDP_NODE set to a ProcessConfig in JSON and then
// serves as one node (see TestMain), so it needs no other binary.
const nodeEnv = "LEASELAB_UDP_NODE"

func TestMain(m *testing.M) {
	if js := os.Getenv(nodeEnv); js != "" {
		var cfg ProcessConfig
		if err := json.Unmarshal([]byte(js), &cfg); err != nil {
			fmt.Fprintln(os.Stderr, "bad node config:", err)
			os.Exit(2)
		}
		if err := RunProcess(context.Background(), cfg, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "node:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func selfCommand(cfg ProcessConfig) *exec.Cmd {
	js, err := json.Marshal(cfg)
	if err != nil {
		panic(err) // a ProcessConfig always marshals
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), nodeEnv+"="+string(js))
	return cmd
}

func TestParsePeers(t *testing.T) {
	p, err := ParsePeers("0=127.0.0.1:7000, 2=127.0.0.1:7002")
	if err != nil || len(p) != 2 || p[2].Port() != 7002 {
		t.Fatalf("got %v, %v", p, err)
	}
	for _, bad := range []string{"x", "a=127.0.0.1:1", "1=nohost", "1=127.0.0.1:1,1=127.0.0.1:2", "65535=127.0.0.1:1"} {
		if _, err := ParsePeers(bad); err == nil {
			t.Errorf("ParsePeers(%q) accepted", bad)
		}
	}
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		line string
		kind algorithms.InputKind
		res  algorithms.ResourceID
		quit bool
		err  bool
	}{
		{line: "acquire 7", kind: algorithms.Acquire, res: 7},
		{line: "  extend 1 ", kind: algorithms.Extend, res: 1},
		{line: "release 2", kind: algorithms.Relinquish, res: 2},
		{line: "quit", quit: true},
		{line: "acquire", err: true},
		{line: "acquire x", err: true},
		{line: "grab 1", err: true},
		{line: "acquire 1 2", err: true},
	}
	for _, c := range cases {
		in, quit, err := parseCommand(c.line)
		if (err != nil) != c.err || quit != c.quit {
			t.Errorf("%q: quit %v err %v", c.line, quit, err)
			continue
		}
		if in != nil && (in.Kind != c.kind || in.Resource != c.res) {
			t.Errorf("%q: got %v %d", c.line, in.Kind, in.Resource)
		}
	}
}

// failoverAlgos are the algorithms the failover test runs (those
// registered in this build). Not plain naive: a lone contender can keep
// renewing the grant that just lapsed at one acceptor while its own earlier
// grant blocks it at the other, and never take over (CI saw 20 s of it;
// runner/sim/testdata/naive-lone-contender.txt replays the interleaving).
// naive-undo gives back a failed attempt's grants, so it must take over.
func failoverAlgos() []string {
	var out []string
	for _, n := range []string{"paxoslease", "naive-undo", "classicpaxos"} {
		if _, err := algorithms.Lookup(n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func TestFailoverKillsHolderProcess(t *testing.T) {
	for _, algo := range failoverAlgos() {
		t.Run(algo, func(t *testing.T) {
			s := udpSpec(algo, "failover")
			s.Acceptors, s.Proposers = 3, 2
			s.Params.LeaseSpan = 600 * time.Millisecond
			s.Params.MaxLease = 900 * time.Millisecond
			s.Params.ResponseTimeout = 100 * time.Millisecond
			s.Params.Backoff = 20 * time.Millisecond
			s.Params.DMax = 100 * time.Millisecond // classic Paxos waits v + d_max
			s.RenewBefore = 200 * time.Millisecond
			s.Duration = 20 * time.Second
			procs := &Processes{Command: selfCommand, Stderr: os.Stderr,
				Plan: &workload.FailoverPlan{Extensions: 2, Restart: true, Linger: s.Params.LeaseSpan / 2}}
			// PaxosLease runs with signed datagrams (as leaselab cluster
			// does by default), the others without, so both paths cross
			// real process boundaries.
			if algo == "paxoslease" {
				procs.KeyFile = filepath.Join(t.TempDir(), "cluster.key")
				if err := WriteKeyFile(procs.KeyFile); err != nil {
					t.Fatal(err)
				}
			}
			var log strings.Builder
			procs.Log = &log
			res, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Processes: procs})
			t.Log("\n" + log.String())
			if err != nil {
				t.Fatal(err)
			}
			r := ex.Cluster
			maxLeaseMS := float64(s.Params.MaxLease) / 1e6
			if r.NextOwner < 1 || res.Violations != 0 || !r.SurvivorsAlive {
				t.Fatalf("next owner %d, violations %d (%v), survivors alive %v", r.NextOwner, res.Violations, res.ViolationList, r.SurvivorsAlive)
			}
			if r.Extensions != 2 {
				t.Fatalf("holder extended %d times, want 2", r.Extensions)
			}
			// The next owner cannot get the lease before the killed
			// holder's lease ran out at the acceptors, and should get it
			// within M plus a few retries after the kill (-tags wallclock
			// only: a loaded machine can delay it past any margin).
			if g := float64(res.FailoverGapMS); g < r.RemainingAtKillMS-1 || wallclock && g > maxLeaseMS+500 {
				t.Fatalf("failover gap %.1f ms (holder had %.1f ms left, M = %.0f ms)", g, r.RemainingAtKillMS, maxLeaseMS)
			}
			// Node 0's second life counted itself in its state directory;
			// a diskless node stays silent for M on its own clock (the
			// silence is measured from a time read before it started, so
			// it cannot come out short), a durable one recovers from its
			// log and rejoins at once.
			alg, _ := algorithms.Lookup(algo)
			if !r.Restarted || r.RestartCounter != 1 {
				t.Fatalf("restarted %v with counter %d, want counter 1", r.Restarted, r.RestartCounter)
			}
			if alg.Durable != (r.QuarantineMS == 0) || (!alg.Durable && r.QuarantineMS < maxLeaseMS) {
				t.Fatalf("node 0 was silent %.1f ms after its restart (M = %.0f ms, durable %v)", r.QuarantineMS, maxLeaseMS, alg.Durable)
			}
			t.Logf("failover gap %.1f ms, holder had %.1f ms left; restarted node silent %.1f ms", float64(res.FailoverGapMS), r.RemainingAtKillMS, r.QuarantineMS)
		})
	}
}

// A holder's process stopped (SIGSTOP) past its lease writes, when it
// runs again, what it checked before the stop: the fenced store rejects
// it, the new holder's token being higher; the plain one takes it, a
// stale write.
func TestPausedHolderProcessWritesLate(t *testing.T) {
	for _, store := range []string{"fenced", "plain"} {
		t.Run(store, func(t *testing.T) {
			s := udpSpec("paxoslease", "failover")
			s.Acceptors, s.Proposers = 3, 2
			s.Params.LeaseSpan = 400 * time.Millisecond
			s.Params.MaxLease = 600 * time.Millisecond
			s.Params.ResponseTimeout = 100 * time.Millisecond
			s.Params.Backoff = 20 * time.Millisecond
			s.RenewBefore = 150 * time.Millisecond
			s.Duration = 20 * time.Second
			s.Writes = 50 * time.Millisecond
			s.Store = store
			procs := &Processes{Command: selfCommand, Stderr: os.Stderr,
				Plan: &workload.FailoverPlan{Extensions: 1, Linger: 200 * time.Millisecond, Pause: 1500 * time.Millisecond}}
			var log strings.Builder
			procs.Log = &log
			res, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Processes: procs})
			t.Log("\n" + log.String())
			if err != nil {
				t.Fatal(err)
			}
			r := ex.Cluster
			if r.PausedPID == 0 || r.NextOwner < 1 || res.Violations != 0 || res.Writes == 0 || res.DoubleBeliefMS <= 0 {
				t.Fatalf("paused pid %d, next owner %d, violations %d, writes %d, double belief %.1f ms",
					r.PausedPID, r.NextOwner, res.Violations, res.Writes, res.DoubleBeliefMS)
			}
			late := res.FencedRejects
			if store == "plain" {
				late = res.StaleWrites
			}
			if late != 1 || res.StaleWrites+res.FencedRejects != 1 {
				t.Fatalf("%s store: %d stale writes, %d rejected, want the paused holder's one late write", store, res.StaleWrites, res.FencedRejects)
			}
		})
	}
}

// A durable node process recovers from the log in its --disk-dir; a log
// that exists there means an earlier life, so starting it again as if for
// the first time (restart counter 0, whose ballots that life used) is
// refused with a clear error.
func TestProcessDurableRestart(t *testing.T) {
	dir := t.TempDir()
	l, _, err := OpenLog(dir, 1, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append([]algorithms.Record{{Resource: 1, Instance: 1, Promised: algorithms.MakeBallot(5, 0, 0), Owner: algorithms.NoNode}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	p := algorithms.DefaultParams()
	p.DMax = 50 * time.Millisecond
	cfg := ProcessConfig{ID: 1, Listen: netip.MustParseAddrPort("127.0.0.1:0"), Algo: "classicpaxos", Params: p, DiskDir: dir,
		Peers: map[algorithms.NodeID]netip.AddrPort{0: netip.MustParseAddrPort("127.0.0.1:9"), 2: netip.MustParseAddrPort("127.0.0.1:9")}}
	var out strings.Builder
	err = RunProcess(context.Background(), cfg, strings.NewReader("quit\n"), &out)
	if err == nil || !strings.Contains(err.Error(), "--restarts") {
		t.Fatalf("restart counter 0 on an existing log: err %v", err)
	}
	cfg.Restarts = 1
	if err := RunProcess(context.Background(), cfg, strings.NewReader("quit\n"), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"type":"ready"`) {
		t.Fatalf("no ready line: %q", out.String())
	}
}

// Node processes read one time scale: two clocks made apart agree to
// within the time between them (a restarted process reads the same scale
// as its earlier life).
func TestProcessClockSharedScale(t *testing.T) {
	a := ProcessClock()
	b := ProcessClock()
	_, la := a.Now()
	_, lb := b.Now()
	if d := lb - la; d < -algorithms.Local(time.Millisecond) || d > algorithms.Local(time.Second) {
		t.Fatalf("clocks made one after the other differ by %v", time.Duration(d))
	}
	if la < algorithms.Local(time.Since(ProcessEpoch))-algorithms.Local(time.Second) {
		t.Fatalf("local %d is not on the wall clock's scale", la)
	}
}

// A diskless node process with a state directory counts its own lives: the
// first starts with restart counter 0 and takes part at once, the second
// reads 1 from the directory and stays silent for M before it joins.
func TestProcessStateDirCountsRestarts(t *testing.T) {
	dir := t.TempDir()
	p := algorithms.DefaultParams()
	p.LeaseSpan = 40 * time.Millisecond
	p.MaxLease = 60 * time.Millisecond
	cfg := ProcessConfig{ID: 1, Listen: netip.MustParseAddrPort("127.0.0.1:0"), Algo: "paxoslease", Params: p, StateDir: dir,
		Peers: map[algorithms.NodeID]netip.AddrPort{0: netip.MustParseAddrPort("127.0.0.1:9"), 2: netip.MustParseAddrPort("127.0.0.1:9")}}
	for life, want := range []int{0, 1} {
		stdinR, stdinW := io.Pipe()
		stdoutR, stdoutW := io.Pipe()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		done := make(chan error, 1)
		go func() {
			done <- RunProcess(ctx, cfg, stdinR, stdoutW)
			stdoutW.Close()
		}()
		sc := bufio.NewScanner(stdoutR)
		var ready ProcessLine
		joined := false
		for sc.Scan() {
			var l ProcessLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("life %d: bad line %q", life, sc.Text())
			}
			if l.Type == "ready" {
				ready = l
				if want == 0 {
					break // nothing to wait for: no quarantine
				}
			}
			if l.Event == algorithms.Joined.String() {
				joined = true
				break
			}
		}
		stdinW.Write([]byte("quit\n"))
		go io.Copy(io.Discard, stdoutR)
		if err := <-done; err != nil {
			t.Fatalf("life %d: %v", life, err)
		}
		cancel()
		if ready.Type != "ready" || ready.Restarts != want {
			t.Fatalf("life %d: ready line %+v, want restarts %d", life, ready, want)
		}
		if want > 0 && !joined {
			t.Fatalf("life %d: the restarted node never joined", life)
		}
	}
	cfg.Restarts = 3
	if err := RunProcess(context.Background(), cfg, strings.NewReader("quit\n"), io.Discard); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("--restarts with --state-dir: %v", err)
	}
}

// The owner key of an event line: present exactly when the event has an
// owner, and written for node 0 too (a driver must tell node 0's lease
// from an event without owner).
func TestEventLineOwner(t *testing.T) {
	nd := algorithms.NoNode
	cases := []struct {
		name string
		id   algorithms.NodeID
		ev   algorithms.Event
		want string // the owner key as marshalled, "" for absent
	}{
		{"node 0 acquires", 0, algorithms.Event{Kind: algorithms.Acquired, Owner: 0, Until: 5}, `"owner":0`},
		{"acquired names the emitter whatever the field says", 2, algorithms.Event{Kind: algorithms.Acquired, Owner: nd, Until: 5}, `"owner":2`},
		{"node 0 loses", 0, algorithms.Event{Kind: algorithms.Lost}, `"owner":0`},
		{"grant for node 0", 1, algorithms.Event{Kind: algorithms.Granted, Owner: 0, Until: 5}, `"owner":0`},
		{"cleared grant of node 3", 1, algorithms.Event{Kind: algorithms.Cleared, Owner: 3}, `"owner":3`},
		{"cleared without owner", 1, algorithms.Event{Kind: algorithms.Cleared, Owner: nd}, ""},
		{"round has no owner", 0, algorithms.Event{Kind: algorithms.Round, Owner: 0}, ""},
		{"timeout has no owner", 0, algorithms.Event{Kind: algorithms.Timeout}, ""},
	}
	for _, c := range cases {
		js, err := json.Marshal(eventLine(c.id, 1, c.ev))
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(js), `"owner"`)
		if c.want == "" && has || c.want != "" && !strings.Contains(string(js), c.want) {
			t.Errorf("%s: %s, want %q", c.name, js, c.want)
		}
		var back ProcessLine
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		if (back.Owner != nil) != (c.want != "") {
			t.Errorf("%s: decoded owner %v", c.name, back.Owner)
		}
	}
}

package udp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"sync"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/checker"
	"leaselab/runner/record"
)

// FailoverConfig drives `leaselab cluster`: N node processes on loopback,
// one holder that keeps extending, then killed; the others try to take
// over.
type FailoverConfig struct {
	Nodes int
	// Node is the configuration every process gets (ID, Listen and Peers
	// are filled in per node).
	Node ProcessConfig
	// Command builds the command that runs one node process with cfg.
	Command func(cfg ProcessConfig) *exec.Cmd
	// Extensions: how many times the first holder extends before it is
	// killed (0: killed right after it acquired).
	Extensions int
	// Contenders: how many of the surviving nodes (1, 2, ...) try to take
	// over after the kill (0: 1). More than one shows duelling proposers
	// (and, for naive, the static deadlock) on top of the failover.
	Contenders int
	// RenewBefore: the holder extends when this much of its lease is left.
	RenewBefore time.Duration
	// Slack is added to the end of every hold interval the driver infers
	// from a node's report, to cover the time between the node's event and
	// the driver reading it (see Failover). 0 means 5 ms.
	Slack time.Duration
	// Restart: once another node took over, start node 0 again. Every
	// process keeps its restart counter in a state directory (Node.StateDir,
	// or a temporary one), so node 0's second life reads counter 1, and a
	// diskless node must then stay silent for M before it joins.
	Restart bool
	// Limit bounds the whole run (0: 60 s).
	Limit time.Duration
	// Log, if set, receives one line per thing the driver does.
	Log io.Writer
	// Stderr of the node processes (nil: discarded).
	Stderr io.Writer
}

// FailoverNodesError says why n node processes cannot show a failover:
// once node 0 is killed the n-1 left must still be a majority of the n
// acceptors, so n must be at least 3. Nil if n will do.
func FailoverNodesError(n int) error {
	if n >= 3 {
		return nil
	}
	if n < 1 {
		return fmt.Errorf("failover needs at least 3 nodes, got %d", n)
	}
	return fmt.Errorf("failover needs at least 3 nodes, got %d: after node 0 is killed %d of %d acceptors are left, "+
		"and no lease can be granted without a majority (%d)", n, n-1, n, n/2+1)
}

// FailoverResult is what the failover run saw.
type FailoverResult struct {
	Nodes       int               `json:"nodes"`
	Algo        string            `json:"algo"`
	Contenders  int               `json:"contenders"`
	FirstOwner  int               `json:"first_owner"`
	Extensions  int               `json:"extensions"`
	KilledPID   int               `json:"killed_pid"`
	NextOwner   int               `json:"next_owner"`
	GapMS       runner.OptionalMS `json:"failover_gap_ms"` // kill to the next owner's acquisition (null if none)
	LeaseSpanMS float64           `json:"lease_span_ms"`
	MaxLeaseMS  float64           `json:"max_lease_ms"`
	// RemainingAtKillMS: how much of the killed holder's last lease was
	// left, by its own report, when it was killed.
	RemainingAtKillMS float64            `json:"remaining_at_kill_ms"`
	Acquisitions      int                `json:"acquisitions"`
	Violations        int                `json:"violations"`
	ViolationList     []runner.Violation `json:"violation_list,omitempty"`
	SurvivorsAlive    bool               `json:"survivors_alive"`
	SlackMS           float64            `json:"slack_ms"`
	// Signed: the nodes signed and checked their datagrams (Node.KeyFile).
	Signed bool `json:"signed"`
	// With Restart: node 0's restart counter in its second life, and how
	// long it stayed silent, on its own clock from its start to its Joined
	// event (0 for a durable algorithm, which rejoins at once; -1 if it
	// never reported Joined).
	Restarted      bool                `json:"restarted"`
	RestartCounter int                 `json:"restart_counter"`
	QuarantineMS   float64             `json:"quarantine_ms"`
	Events         []FailoverEventLine `json:"-"`
}

// FailoverEventLine is one line a process reported, stamped with the
// driver's clock on receipt.
type FailoverEventLine struct {
	At   time.Duration
	Line ProcessLine
}

type procLine struct {
	node int
	p    *proc // the process (a restarted node has a new one)
	line ProcessLine
	err  error // the stream ended
}

type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	mu    sync.Mutex
}

func (p *proc) send(cmd string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := io.WriteString(p.stdin, cmd+"\n")
	return err
}

// Failover runs the failover workload against node processes.
//
// The checker needs one clock for all nodes: the driver's. A node reports
// an Acquired event with the time left on its own clock (RemainingNS); the
// driver dates the hold from the moment it reads the line, t, to
// t + RemainingNS + Slack. The node's true hold began at some e <= t and
// ends at e + RemainingNS (the processes share the machine's monotonic
// clock rate), so the inferred end is never early; the inferred start is
// late by t - e, and the Slack added to every end covers that as long as a
// report reaches the driver within Slack. Overlaps are therefore reported
// conservatively.
func Failover(ctx context.Context, cfg FailoverConfig) (FailoverResult, error) {
	res := FailoverResult{Nodes: cfg.Nodes, Algo: cfg.Node.Algo, FirstOwner: 0, NextOwner: -1, GapMS: runner.None,
		LeaseSpanMS: ms(cfg.Node.Params.LeaseSpan), MaxLeaseMS: ms(cfg.Node.Params.MaxLease)}
	if err := FailoverNodesError(cfg.Nodes); err != nil {
		return res, err
	}
	if cfg.Command == nil {
		return res, errors.New("failover: no command to start node processes")
	}
	if cfg.Contenders == 0 {
		cfg.Contenders = 1
	}
	if cfg.Contenders < 1 || cfg.Contenders >= cfg.Nodes {
		return res, fmt.Errorf("contenders must be in [1, %d], got %d", cfg.Nodes-1, cfg.Contenders)
	}
	if cfg.Slack == 0 {
		cfg.Slack = 5 * time.Millisecond
	}
	if cfg.Limit == 0 {
		cfg.Limit = 60 * time.Second
	}
	if cfg.RenewBefore <= 0 || cfg.RenewBefore >= cfg.Node.Params.LeaseSpan {
		return res, fmt.Errorf("renew-before %v must be in (0, lease span %v)", cfg.RenewBefore, cfg.Node.Params.LeaseSpan)
	}
	alg, err := algorithms.Lookup(cfg.Node.Algo)
	if err != nil {
		return res, err
	}
	if cfg.Restart && cfg.Node.StateDir == "" {
		dir, err := os.MkdirTemp("", "leaselab-cluster-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		cfg.Node.StateDir = dir
	}
	res.SlackMS = ms(cfg.Slack)
	res.Signed = cfg.Node.KeyFile != ""
	res.Contenders = cfg.Contenders
	ctx, cancel := context.WithTimeout(ctx, cfg.Limit)
	defer cancel()
	logf := func(format string, a ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", a...)
		}
	}

	addrs, err := reservePorts(cfg.Nodes)
	if err != nil {
		return res, err
	}
	peers := map[algorithms.NodeID]netip.AddrPort{}
	for i, a := range addrs {
		peers[algorithms.NodeID(i)] = a
	}
	lines := make(chan procLine, 1024)
	procs := make([]*proc, cfg.Nodes)
	defer func() {
		for _, p := range procs {
			if p == nil {
				continue
			}
			p.stdin.Close()
			select {
			case <-p.done:
			case <-time.After(2 * time.Second):
				p.cmd.Process.Kill()
				<-p.done
			}
		}
	}()
	stop := make(chan struct{})
	defer close(stop) // runs first: readers stop sending before the processes are reaped
	startProc := func(i int) error {
		pc := cfg.Node
		pc.ID = algorithms.NodeID(i)
		pc.Listen = addrs[i]
		pc.Peers = peers
		cmd := cfg.Command(pc)
		cmd.Stderr = cfg.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start node %d: %w", i, err)
		}
		p := &proc{cmd: cmd, stdin: stdin, done: make(chan struct{})}
		procs[i] = p
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var l ProcessLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					continue
				}
				select {
				case lines <- procLine{node: i, line: l, p: p}:
				case <-stop:
				}
			}
			p.cmd.Wait()
			close(p.done)
			select {
			case lines <- procLine{node: i, err: io.EOF, p: p}:
			case <-stop:
			}
		}()
		return nil
	}
	for i := range procs {
		if err := startProc(i); err != nil {
			return res, err
		}
	}

	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	chk := checker.NewChecker(record.IdentityClocks, cfg.Node.Seed, nil)
	const resource = 1
	ready := 0
	alive := make([]bool, cfg.Nodes)
	var (
		phase       = 0 // 0 starting, 1 holder acquiring/extending, 2 killed, 3 taken over
		holderUntil int64
		restartedAt int64 // node 0's local clock when its second life started
		extendSent  bool
		killAt      int64
		takeover    int64
		retryTimer  = time.NewTimer(time.Hour)
		renewTimer  = time.NewTimer(time.Hour)
		endTimer    = time.NewTimer(time.Hour)
	)
	retryTimer.Stop()
	renewTimer.Stop()
	endTimer.Stop()
	acquireAll := func() {
		for i := 1; i <= cfg.Contenders; i++ {
			if alive[i] {
				procs[i].send(fmt.Sprintf("acquire %d", resource))
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			chk.Finish(now())
			res.Violations, res.ViolationList = violations(chk)
			switch {
			case errors.Is(ctx.Err(), context.Canceled):
				return res, fmt.Errorf("failover: %w in phase %d", ctx.Err(), phase)
			case phase == 0:
				return res, fmt.Errorf("failover: only %d of %d node processes were ready within %v", ready, cfg.Nodes, cfg.Limit)
			case phase == 4:
				return res, fmt.Errorf("failover: node 0 was started again but did not join within the run's limit %v", cfg.Limit)
			case phase == 1:
				return res, fmt.Errorf("failover: node 0 did not acquire and extend %d times within %v (%d acquisitions)", cfg.Extensions, cfg.Limit, res.Acquisitions)
			default:
				why := ""
				if cfg.Node.Algo == "naive" {
					why = "; naive can block a lone contender this way (README, Known limits)"
				}
				return res, fmt.Errorf("failover: no surviving node acquired the lease in the %v after node 0 was killed with %.1f ms left (the run's limit is %v)%s",
					time.Duration(now()-killAt).Round(time.Millisecond), res.RemainingAtKillMS, cfg.Limit, why)
			}
		case pl := <-lines:
			t := now()
			if pl.p != procs[pl.node] {
				continue // a line of node 0's killed life, read late
			}
			if pl.err != nil {
				alive[pl.node] = false
				chk.Crash(t, algorithms.NodeID(pl.node))
				if phase < 2 || pl.node != res.FirstOwner {
					logf("%8.3f ms node %d exited unexpectedly", ms(time.Duration(t)), pl.node)
				}
				continue
			}
			l := pl.line
			res.Events = append(res.Events, FailoverEventLine{At: time.Duration(t), Line: l})
			switch l.Type {
			case "ready":
				alive[pl.node] = true
				if phase == 4 && pl.node == 0 {
					res.Restarted = true
					res.RestartCounter = l.Restarts
					restartedAt = l.LocalNS
					logf("%8.3f ms node 0 runs again with restart counter %d", ms(time.Duration(t)), l.Restarts)
					if alg.Durable {
						// Recovered from its log: no quarantine.
						res.QuarantineMS = 0
						phase = 5
						endTimer.Reset(cfg.Node.Params.LeaseSpan / 2)
					}
					continue
				}
				ready++
				if ready == cfg.Nodes {
					logf("%8.3f ms all %d nodes ready; node 0 acquires resource %d", ms(time.Duration(t)), cfg.Nodes, resource)
					phase = 1
					procs[0].send(fmt.Sprintf("acquire %d", resource))
				}
				continue
			case "error":
				return res, fmt.Errorf("node %d: %s", pl.node, l.Error)
			}
			node := algorithms.NodeID(pl.node)
			switch l.Event {
			case "acquired":
				if l.Resource != resource {
					continue
				}
				until := t + l.RemainingNS + int64(cfg.Slack)
				chk.Acquired(t, node, resource, algorithms.Ballot(l.Ballot), algorithms.Local(until))
				res.Acquisitions++
				logf("%8.3f ms node %d acquired, %.1f ms left", ms(time.Duration(t)), pl.node, float64(l.RemainingNS)/1e6)
				switch {
				case phase == 1 && pl.node == 0:
					holderUntil = t + l.RemainingNS
					extendSent = false
					if res.Extensions >= cfg.Extensions && l.RemainingNS > 0 && holderUntil-t > int64(cfg.RenewBefore)/2 {
						// Kill the holder while its lease is well alive:
						// the others must wait it out, not race it.
						res.RemainingAtKillMS = float64(holderUntil-now()) / 1e6
						res.KilledPID = procs[0].cmd.Process.Pid
						procs[0].cmd.Process.Kill()
						killAt = now()
						chk.Crash(killAt, 0)
						phase = 2
						logf("%8.3f ms killed node 0 (pid %d); nodes 1..%d try to acquire", ms(time.Duration(killAt)), res.KilledPID, cfg.Contenders)
						acquireAll()
						retryTimer.Reset(cfg.Node.Params.LeaseSpan / 4)
						continue
					}
					d := time.Duration(holderUntil - int64(cfg.RenewBefore) - t)
					renewTimer.Reset(max(d, 0))
				case phase == 2 && pl.node != 0:
					takeover = t
					res.NextOwner = pl.node
					res.GapMS = runner.OptionalMS(float64(takeover-killAt) / 1e6)
					phase = 3
					if cfg.Restart {
						if err := startProc(0); err != nil {
							return res, err
						}
						phase = 4
						res.QuarantineMS = -1
						logf("%8.3f ms node %d took over; node 0 starts again", ms(time.Duration(t)), pl.node)
						continue
					}
					// Watch a little longer for any other node that might
					// also believe it holds the lease.
					endTimer.Reset(cfg.Node.Params.LeaseSpan / 2)
				}
			case "joined":
				if phase == 4 && pl.node == 0 {
					res.QuarantineMS = float64(l.LocalNS-restartedAt) / 1e6
					logf("%8.3f ms node 0 joined after %.1f ms of silence on its own clock", ms(time.Duration(t)), res.QuarantineMS)
					phase = 5
					endTimer.Reset(cfg.Node.Params.LeaseSpan / 2)
				}
			case "lost":
				chk.Lost(t, node, resource)
			case "failed":
				switch {
				case phase == 1 && pl.node == 0:
					procs[0].send(fmt.Sprintf("acquire %d", resource))
				case phase == 2 && pl.node >= 1 && pl.node <= cfg.Contenders:
					procs[pl.node].send(fmt.Sprintf("acquire %d", resource))
				}
			}
		case <-renewTimer.C:
			if phase == 1 && !extendSent {
				extendSent = true
				res.Extensions++
				procs[0].send(fmt.Sprintf("extend %d", resource))
			}
		case <-retryTimer.C:
			if phase == 2 {
				// The survivors' attempts fail while node 0's lease lives
				// on at the acceptors; ask again until one succeeds.
				acquireAll()
				retryTimer.Reset(cfg.Node.Params.LeaseSpan / 4)
			}
		case <-endTimer.C:
			t := now()
			chk.Finish(t)
			res.Violations, res.ViolationList = violations(chk)
			res.SurvivorsAlive = true
			for i := 1; i < cfg.Nodes; i++ {
				if !alive[i] {
					res.SurvivorsAlive = false
				}
			}
			for i := range procs {
				if alive[i] {
					procs[i].send("quit")
				}
			}
			return res, nil
		}
	}
}

func violations(c *checker.Checker) (int, []runner.Violation) {
	v, n := c.Violations()
	return n, v
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// reservePorts finds n free loopback UDP ports by binding and releasing
// them. Another program could take one in between; on loopback in a test
// or a local cluster that is unlikely, and a node that cannot bind says so.
func reservePorts(n int) ([]netip.AddrPort, error) {
	out := make([]netip.AddrPort, n)
	conns := make([]*net.UDPConn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// All stay bound until every port is known, so no two are the same.
	for i := range out {
		c, err := listenLoopback()
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
		out[i] = c.LocalAddr().(*net.UDPAddr).AddrPort()
	}
	return out, nil
}

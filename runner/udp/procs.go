package udp

import (
	"bufio"
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
	"leaselab/runner/workload"
)

// Processes runs the nodes of a udp run as OS processes, one node each
// (`leaselab node`, RunProcess), driven through their standard streams
// (EnvOptions.Processes). The workload driver, the recorder and the
// checker are the same as for nodes in this process; what differs is the
// clock they read.
//
// The checker needs one clock for all nodes: the driver's. A node reports
// every event with its local time, and an Acquired event with its Until;
// the environment dates the event at t, the moment it reads the line, and
// maps the node's local times to true time as if the line had been written
// at t - Slack: the hold runs from t to t + (Until - local) + Slack. The
// node's true hold began at some e <= t and ends at e + (Until - local)
// (the processes share the machine's monotonic clock rate), so the
// inferred end is never early; the inferred start is late by t - e, and
// the Slack added to every end covers that as long as a report reaches the
// driver within Slack. Overlaps are therefore reported conservatively.
type Processes struct {
	// Command builds the command that runs one node process with cfg.
	Command func(cfg ProcessConfig) *exec.Cmd
	// StateDir: where every process counts its starts (and keeps its log):
	// "" means a temporary directory, removed at the end.
	StateDir string
	// KeyFile, if set, names the key file the nodes share
	// (ProcessConfig.KeyFile).
	KeyFile string
	// Slack: see above; 0 means 5 ms.
	Slack time.Duration
	// Plan, if set, times a failover run by what happens (see
	// workload.FailoverPlan).
	Plan *workload.FailoverPlan
	// Log, if set, receives one line per thing the environment sees or does.
	Log io.Writer
	// Stderr of the node processes (nil: discarded).
	Stderr io.Writer
}

// ClusterExtra is what a run over node processes saw beyond
// runner.Result (Extra.Cluster).
type ClusterExtra struct {
	// Extensions: Extend requests node 0 got before it was crashed.
	Extensions int
	// KilledPID: the process of the first node crashed (0: none was).
	KilledPID int
	// PausedPID: the process of the first node paused (failover with a
	// pause: FailoverPlan.Pause), and PauseMS how long it was stopped.
	PausedPID int
	PauseMS   float64
	// RemainingAtKillMS: how much of that node's last lease was left, by
	// its own report, when it was killed (or paused).
	RemainingAtKillMS float64
	// NextOwner: the first other node to acquire after the crash (-1:
	// none did).
	NextOwner int
	// Acquisitions: Acquired events, extensions included.
	Acquisitions int
	// SurvivorsAlive: every node but 0 was still running at the end.
	SurvivorsAlive bool
	// Restarted: node 0 ran a second life, with RestartCounter read from
	// its state directory; QuarantineMS is how long it stayed silent, on
	// its own clock from its start to its Joined event (0 for a durable
	// algorithm, which rejoins at once; -1 if it never reported Joined).
	Restarted      bool
	RestartCounter int
	QuarantineMS   float64
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

// checkProcesses says whether spec can run on node processes.
func checkProcesses(spec runner.Spec, p *Processes) error {
	n := algorithms.NewCluster(spec.Acceptors, spec.Proposers).Nodes
	switch {
	case p.Command == nil:
		return errors.New("udp: no command to start node processes")
	case spec.Clocks.Skew != 0 || spec.Clocks.Drift != 0:
		return runner.BadSpec(errors.New("udp: node processes read the machine's clock; skew and drift are for nodes in one process"))
	case spec.Faults.Partitions > 0:
		return runner.BadSpec(errors.New("udp: partitions are a state the nodes of one process share; node processes have none"))
	case spec.Disk.Background:
		return runner.BadSpec(errors.New("udp: the background writer runs with nodes in one process"))
	case spec.Workload == "failover":
		return FailoverNodesError(n)
	}
	return nil
}

// proc is one life of a node process.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
}

// procHosts are the node processes of a run; every method but the
// readers' runs with the environment's mu held.
type procHosts struct {
	e       *env
	opt     Processes
	base    ProcessConfig // what every node gets; ID, Listen and Peers per node
	peers   map[algorithms.NodeID]netip.AddrPort
	tempDir string
	procs   []*proc // the current life of each node
	old     []*proc // killed lives, to reap
	up      []bool
	lives   []int
	off     []int64 // per node: true time = local + off, from its latest line
	// minOff per node: the least t - local over the lines of its current
	// life. A line is read after it was written, so this bounds the true
	// offset from above by the quickest line's delay in the pipe, not by
	// the delay of the line at hand (the acquisition's may be long on a
	// loaded machine).
	minOff   []int64
	until    []int64 // per node: true end of its latest lease, by its report
	ready    int
	allReady chan struct{}
	// held[i]: the placeholder on node i's port while its process has not
	// bound it (before "ready", after a kill); nil slice where ports
	// cannot be held (canHoldPorts).
	held     []*net.UDPConn
	crashed  bool
	restart0 int64 // node 0's local clock when its second life started
	ex       ClusterExtra
	// starts: per node and resource, the start of its latest hold (the
	// lease its write lines are made under).
	starts map[leaseOf]int64
}

type leaseOf struct {
	n   algorithms.NodeID
	res algorithms.ResourceID
}

func newProcHosts(e *env, p *Processes) (*procHosts, error) {
	h := &procHosts{e: e, opt: *p, allReady: make(chan struct{})}
	if h.opt.Slack == 0 {
		h.opt.Slack = 5 * time.Millisecond
	}
	h.ex.NextOwner = -1
	h.base.SetSpec(e.spec)
	h.base.KeyFile = p.KeyFile
	h.base.StateDir = p.StateDir
	if h.base.StateDir == "" {
		dir, err := os.MkdirTemp("", "leaselab-cluster-")
		if err != nil {
			return nil, err
		}
		h.tempDir, h.base.StateDir = dir, dir
	}
	return h, nil
}

func (h *procHosts) logf(format string, a ...any) {
	if h.opt.Log != nil {
		fmt.Fprintf(h.opt.Log, "%8.3f ms "+format+"\n", append([]any{ms(time.Duration(h.e.now))}, a...)...)
	}
}

// bind reserves the nodes' ports; the processes bind them.
func (h *procHosts) bind(n int) error {
	var addrs []netip.AddrPort
	if canHoldPorts {
		// Hold every node's port from here on, as the in-process
		// environment does (listenFresh): a node's placeholder goes when
		// the node says it is ready, comes back when it is killed.
		h.held = make([]*net.UDPConn, n)
		for i := range n {
			c, err := listenFresh(netip.AddrFrom4([4]byte{127, 0, 0, 1}))
			if err != nil {
				h.release()
				return err
			}
			_ = c.SetReadBuffer(1)
			h.held[i] = c
			addrs = append(addrs, c.LocalAddr().(*net.UDPAddr).AddrPort())
		}
		h.base.ReusePort = true
	} else {
		var err error
		if addrs, err = reservePorts(n); err != nil {
			return err
		}
	}
	h.e.addrs = addrs
	h.peers = map[algorithms.NodeID]netip.AddrPort{}
	for i, a := range addrs {
		h.peers[algorithms.NodeID(i)] = a
	}
	h.procs = make([]*proc, n)
	h.up = make([]bool, n)
	h.lives = make([]int, n)
	h.off = make([]int64, n)
	h.minOff = make([]int64, n)
	h.until = make([]int64, n)
	return nil
}

// start starts node i's process (a first start or a restart) and its
// stdout reader.
func (h *procHosts) start(i int) error {
	pc := h.base
	pc.ID = algorithms.NodeID(i)
	pc.Listen = h.e.addrs[i]
	pc.Peers = h.peers
	cmd := h.opt.Command(pc)
	cmd.Stderr = h.opt.Stderr
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
	if h.procs[i] != nil {
		h.old = append(h.old, h.procs[i])
	}
	h.procs[i] = p
	h.up[i] = true
	h.lives[i]++
	go h.read(i, p, stdout)
	return nil
}

// read hands the lines of process p (node i) to the environment, in the
// order of true time: each is dated under mu.
func (h *procHosts) read(i int, p *proc, stdout io.Reader) {
	e := h.e
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var l ProcessLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue
		}
		e.mu.Lock()
		if h.procs[i] == p && !e.isEnded() {
			h.line(i, l)
		}
		e.mu.Unlock()
	}
	p.cmd.Wait()
	close(p.done)
	e.mu.Lock()
	if h.procs[i] == p && h.up[i] && !e.isEnded() {
		h.up[i] = false
		h.logf("node %d exited unexpectedly", i)
		e.drv.Crashed(algorithms.NodeID(i))
	}
	e.mu.Unlock()
}

// line handles one line of node i; mu is held.
func (h *procHosts) line(i int, l ProcessLine) {
	t := h.e.clockNow()
	switch l.Type {
	case "ready":
		h.unhold(i) // the node has bound its port
		h.off[i] = t - l.LocalNS + int64(h.opt.Slack)
		h.minOff[i] = t - l.LocalNS
		if h.lives[i] > 1 {
			h.ex.Restarted, h.ex.RestartCounter, h.restart0 = true, l.Restarts, l.LocalNS
			h.logf("node %d runs again with restart counter %d", i, l.Restarts)
			return
		}
		if h.ready++; h.ready == len(h.procs) {
			close(h.allReady)
		}
	case "error":
		if h.e.err == nil {
			h.e.err = fmt.Errorf("node %d: %s", i, l.Error)
		}
		h.e.Stop()
	case "event":
		h.event(i, l, t)
	case "write":
		// This process is the protected store: a write reaches it when
		// its line is read.
		n, res := algorithms.NodeID(i), algorithms.ResourceID(l.Resource)
		h.e.rec.Write(t, n, res, algorithms.Token{Major: l.TokenMajor, Minor: l.TokenMinor}, h.starts[leaseOf{n, res}])
	}
}

// event hands an event line of node i, read at true time t, to the driver.
func (h *procHosts) event(i int, l ProcessLine, t int64) {
	kind, ok := eventKind(l.Event)
	if !ok {
		return
	}
	h.off[i] = t - l.LocalNS + int64(h.opt.Slack)
	h.minOff[i] = min(h.minOff[i], t-l.LocalNS)
	ev := algorithms.Event{Kind: kind, Resource: algorithms.ResourceID(l.Resource), Ballot: l.Ballot,
		Until: algorithms.Local(l.UntilNS), Owner: algorithms.NoNode}
	if l.Owner != nil {
		ev.Owner = algorithms.NodeID(*l.Owner)
	}
	switch kind {
	case algorithms.Acquired:
		h.ex.Acquisitions++
		// Where the lease ends on this process's clock, in true time
		// (t + RemainingNS would add this line's delay in the pipe).
		h.until[i] = l.UntilNS + h.minOff[i]
		h.logf("node %d acquired, %.1f ms left", i, float64(l.RemainingNS)/1e6)
		if i != 0 && h.crashed && h.ex.NextOwner < 0 {
			h.ex.NextOwner = i
		}
	case algorithms.Joined:
		if i == 0 && h.ex.Restarted && h.ex.QuarantineMS < 0 {
			h.ex.QuarantineMS = float64(l.LocalNS-h.restart0) / 1e6
			h.logf("node 0 joined after %.1f ms of silence on its own clock", h.ex.QuarantineMS)
		}
	}
	n := algorithms.NodeID(i)
	h.e.drv.Event(n, algorithms.Local(l.LocalNS), ev)
	if kind == algorithms.Acquired {
		if s, ok := h.e.rec.Since(t, n, ev.Resource); ok {
			if h.starts == nil {
				h.starts = map[leaseOf]int64{}
			}
			h.starts[leaseOf{n, ev.Resource}] = s
		}
	}
}

// eventKind is the kind named s in an event line.
func eventKind(s string) (algorithms.EventKind, bool) {
	for k := algorithms.Acquired; k <= algorithms.Joined; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// waitReady waits (mu not held) until every process reported ready or
// limit passed, then makes that instant true time 0.
func (h *procHosts) waitReady(limit time.Duration) error {
	tm := time.NewTimer(limit)
	defer tm.Stop()
	select {
	case <-h.allReady:
	case <-tm.C:
		h.e.mu.Lock()
		defer h.e.mu.Unlock()
		return fmt.Errorf("failover: only %d of %d node processes were ready within %v", h.ready, len(h.procs), limit)
	}
	e := h.e
	e.mu.Lock()
	defer e.mu.Unlock()
	shift := e.base.True()
	e.base.Start = e.base.Start.Add(time.Duration(shift))
	for i := range h.off {
		h.off[i] -= shift
		h.minOff[i] -= shift
	}
	e.now = 0
	h.logf("all %d nodes ready", len(h.procs))
	return nil
}

func (h *procHosts) send(i int, cmd string) {
	io.WriteString(h.procs[i].stdin, cmd+"\n") // a process that died is noticed by its reader
}

// input hands in to node i as a command; mu is held.
func (h *procHosts) input(i int, in algorithms.Input) bool {
	if !h.up[i] {
		return false
	}
	var verb string
	switch in.Kind {
	case algorithms.Acquire:
		verb = "acquire"
	case algorithms.Extend:
		verb = "extend"
		if i == 0 && !h.crashed {
			h.ex.Extensions++
		}
	case algorithms.Relinquish:
		verb = "release"
	default:
		return false
	}
	h.send(i, fmt.Sprintf("%s %d", verb, in.Resource))
	return true
}

// crash kills node i's process (SIGKILL); mu is held.
func (h *procHosts) crash(i int) {
	if !h.up[i] {
		return
	}
	p := h.procs[i]
	p.cmd.Process.Kill()
	h.up[i] = false
	if h.held != nil && h.held[i] == nil {
		h.held[i] = holdPort(h.e.addrs[i])
	}
	if !h.crashed {
		h.crashed = true
		h.ex.KilledPID = p.cmd.Process.Pid
		h.ex.RemainingAtKillMS = float64(h.until[i]-h.e.now) / 1e6
		h.logf("killed node %d (pid %d); nodes 1..%d try to acquire", i, h.ex.KilledPID, h.e.spec.Proposers-1)
	}
	h.e.drv.Crashed(algorithms.NodeID(i))
}

// pause stops node i's process (SIGSTOP) for d ns, then lets it go on
// (SIGCONT); mu is held. Its lease runs on meanwhile, as does its clock.
func (h *procHosts) pause(i int, d int64) {
	if !h.up[i] {
		return
	}
	p := h.procs[i]
	if err := stopProcess(p.cmd.Process); err != nil {
		h.logf("node %d: SIGSTOP: %v", i, err)
		return
	}
	n := algorithms.NodeID(i)
	h.e.drv.Paused(n)
	if !h.crashed {
		h.crashed = true
		h.ex.PausedPID = p.cmd.Process.Pid
		h.ex.PauseMS = float64(d) / 1e6
		h.ex.RemainingAtKillMS = float64(h.until[i]-h.e.now) / 1e6
		h.logf("stopped node %d (pid %d) for %v; nodes 1..%d try to acquire", i, h.ex.PausedPID, time.Duration(d), h.e.spec.Proposers-1)
	}
	h.e.At(h.e.now+d, func() {
		if h.procs[i] != p || !h.up[i] {
			return
		}
		if err := continueProcess(p.cmd.Process); err != nil {
			h.logf("node %d: SIGCONT: %v", i, err)
		}
		h.logf("node %d runs again", i)
		h.e.drv.Resumed(n)
	})
}

// restart starts node i's process again; mu is held.
func (h *procHosts) restart(i int) {
	if h.up[i] {
		return
	}
	if i == 0 {
		h.ex.QuarantineMS = -1 // until it reports Joined
		if h.e.alg.Durable {
			h.ex.QuarantineMS = 0 // recovers from its log: no quarantine
		}
	}
	h.logf("node %d starts again", i)
	if err := h.start(i); err != nil {
		if h.e.err == nil {
			h.e.err = err
		}
		h.e.Stop()
		return
	}
	h.e.drv.Restarted(algorithms.NodeID(i))
}

// restarts is how many restarts the run performed.
func (h *procHosts) restarts() int {
	k := 0
	for _, l := range h.lives {
		k += max(l-1, 0)
	}
	return k
}

// shutdown ends every process (end of input, then SIGKILL after 2 s) and
// says whether every node but 0 was still running.
func (h *procHosts) shutdown() {
	h.e.mu.Lock()
	h.ex.SurvivorsAlive = true
	for i := 1; i < len(h.up); i++ {
		h.ex.SurvivorsAlive = h.ex.SurvivorsAlive && h.up[i]
	}
	all := append(append([]*proc(nil), h.old...), h.procs...)
	h.e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range all {
		if p == nil {
			continue
		}
		p.stdin.Close()
		wg.Go(func() {
			select {
			case <-p.done:
			case <-time.After(2 * time.Second):
				p.cmd.Process.Kill()
				<-p.done
			}
		})
	}
	wg.Wait()
	h.e.mu.Lock()
	h.release()
	h.e.mu.Unlock()
	if h.tempDir != "" {
		os.RemoveAll(h.tempDir)
	}
}

// unhold lets go of node i's port (its process has bound it); mu is held.
func (h *procHosts) unhold(i int) {
	if h.held != nil && h.held[i] != nil {
		h.held[i].Close()
		h.held[i] = nil
	}
}

// release lets go of every port still held.
func (h *procHosts) release() {
	for i := range h.held {
		h.unhold(i)
	}
}

// failoverError says what a failover run on processes did not get to (nil
// if it took over, and with a restart, node 0 rejoined).
func (h *procHosts) failoverError() error {
	limit := h.e.spec.Duration
	switch {
	case h.e.spec.Workload != "failover" || h.opt.Plan == nil:
		return nil
	case !h.crashed:
		return fmt.Errorf("failover: node 0 did not acquire and extend %d times within %v (%d acquisitions)", h.opt.Plan.Extensions, limit, h.ex.Acquisitions)
	case h.ex.NextOwner < 0:
		return fmt.Errorf("failover: no other node acquired the lease after node 0 was taken out with %.1f ms left (the run's limit is %v; "+
			"an algorithm whose acceptors deny even their own grantee can block a lone contender: README, Known limits)",
			h.ex.RemainingAtKillMS, limit)
	case h.opt.Plan.Restart && h.ex.QuarantineMS < 0:
		return fmt.Errorf("failover: node 0 was started again but did not join within the run's limit %v", limit)
	}
	return nil
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

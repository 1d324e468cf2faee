package udp

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/record"
	"leaselab/runner/timeq"
	"leaselab/runner/workload"
)

func init() {
	runner.RegisterEnv(runner.Env{Name: "udp", Check: Supports,
		Run: func(p runner.Plan, o runner.Options) (runner.Result, error) {
			r, _, err := RunPlan(p, o, EnvOptions{})
			return r, err
		}})
}

// Supports says what of a valid spec the udp environment cannot run: the
// fault kinds the table (faults.Kinds) says are the simulator's.
func Supports(spec runner.Spec) error { return faults.Unsupported("udp", &spec) }

// EnvOptions are the udp environment's own knobs, beyond the Spec.
type EnvOptions struct {
	// MaxDatagram: 0 takes Spec.Net.Datagram, and if that is 0 too,
	// DefaultDatagram. Kept for callers that predate the Spec field; a
	// value that contradicts the Spec's is an error.
	MaxDatagram int
	// Window is the per-node bound on Acquire requests in flight (see
	// NodeConfig.Window); 0 means DefaultWindow, -1 no bound.
	Window int
	// Addr is the address the nodes bind; the zero value is 127.0.0.1.
	Addr netip.Addr
	// Key, if set, makes the nodes sign and check every datagram
	// (NodeConfig.Key).
	Key []byte
	// SingleReps: the single workload asks for this many leases one after
	// the other on the one cluster (workload.Driver.RepeatSingle; 0: one).
	SingleReps int
	// Processes, if set, runs every node as an OS process of its own
	// instead of in this process (then Addr, Key, Window and MaxDatagram
	// are the processes' own: see Processes).
	Processes *Processes
}

// DefaultWindow is the per-node bound on Acquire requests in flight in
// the udp environment (EnvOptions.Window, NodeConfig.Window). 4096
// acquisitions of a Paxos-style algorithm put at most about 2 x 4096
// 64-byte messages in each acceptor's receive queue, well inside the 8 MiB
// socket buffer the nodes ask for; leaselab bench --window tries others.
const DefaultWindow = 4096

// Extra is what the udp environment measured beyond runner.Result.
type Extra struct {
	Meters Meters
	// RunNS: true time the run took, for rates.
	RunNS int64
	// Restarts: node restarts the run performed.
	Restarts int
	// Background: what the background writer did (Spec.Disk.Background;
	// zero without it).
	Background BackgroundStats
	// Cluster: what a run on node processes saw (EnvOptions.Processes;
	// zero without them).
	Cluster ClusterExtra
}

// env implements workload.Env over real sockets. Every call into the
// driver, the recorder and the checker happens under mu, as workload.Env
// requires; a node takes mu once per step (its events and the messages it
// hands to the network), so three node goroutines and the environment's
// own goroutine (timed callbacks) take turns at the meters while the
// sockets, the decoding and the algorithms run in parallel.
type env struct {
	mu   sync.Mutex
	spec runner.Spec
	run  runner.Plan
	eo   EnvOptions
	alg  algorithms.Algorithm
	base Clock
	// per node
	clocks   []*Clock
	nodes    []*Node // nil while down
	lives    []*Node // per node, its last killed incarnation
	addrs    []netip.AddrPort
	conns    []*net.UDPConn // bound sockets not yet handed to a node
	held     []*net.UDPConn // per node, the placeholder on a crashed node's port (holdPort)
	restarts []uint16
	dir      string
	tempDir  bool
	bg       *Background // Spec.Disk.Background's writer, nil without
	draws    *NetDraws   // the run's network draws, shared by every node
	procs    *procHosts  // node processes (EnvOptions.Processes); nil: nodes in this process
	// Partitions (Spec.Faults.Partitions): cut is what the nodes read on
	// every send (nil without partitions), plan draws the episodes.
	cut  *Partition
	plan *partitionPlan

	drv *workload.Driver
	rec *record.Recorder

	now    int64               // latest true time handed to the driver
	timers timeq.Queue[func()] // timed callbacks, in (time, call order)
	wake   chan struct{}
	ended  chan struct{}
	endOne sync.Once
	err    error
	dead   []*Node // killed incarnations to wait for
	meters Meters  // of killed incarnations
}

// RunSpec resolves spec (runner.Resolve) and runs it over UDP (RunPlan).
func RunSpec(spec runner.Spec, opt runner.Options, eo EnvOptions) (runner.Result, Extra, error) {
	p, err := runner.Resolve(spec)
	if err != nil {
		return runner.Result{}, Extra{}, err
	}
	return RunPlan(p, opt, eo)
}

// RunPlan runs a resolved plan over UDP in this process: every node its
// own socket on loopback and its own event loop, the runner's driver,
// recorder and checker in true time (this process's monotonic clock).
func RunPlan(p runner.Plan, opt runner.Options, eo EnvOptions) (runner.Result, Extra, error) {
	spec := p.Spec
	eo, err := checkOptions(spec, eo)
	if err != nil {
		return runner.Result{}, Extra{}, err
	}
	if err := p.GuardMemory(); err != nil {
		return runner.Result{}, Extra{}, err
	}
	wall := time.Now()
	e := &env{spec: spec, run: p, eo: eo, alg: p.Algo, wake: make(chan struct{}, 1), ended: make(chan struct{}),
		draws: NewNetDraws(spec.Seed, spec.Net)}
	defer e.release()
	if eo.Processes != nil {
		if err := checkProcesses(spec, eo.Processes); err != nil {
			return runner.Result{}, Extra{}, err
		}
		if e.procs, err = newProcHosts(e, eo.Processes); err != nil {
			return runner.Result{}, Extra{}, err
		}
	}
	if err := e.bind(); err != nil {
		return runner.Result{}, Extra{}, err
	}
	if err := e.startDisk(); err != nil {
		return runner.Result{}, Extra{}, err
	}
	n := len(e.addrs)
	e.base = Clock{Start: time.Now()}
	if e.procs == nil {
		for _, c := range drawClocks(spec, n) {
			e.clocks = append(e.clocks, &Clock{Start: e.base.Start, Map: c})
		}
	}
	if spec.Faults.Partitions > 0 && n > 1 {
		e.cut = &Partition{}
		e.plan = newPartitionPlan(spec.Seed, spec.Faults.Partitions, spec.Faults.PartitionLen, n)
	}
	e.nodes = make([]*Node, n)
	e.lives = make([]*Node, n)
	e.restarts = make([]uint16, n)
	tr := e.record(opt)
	if spec.Workload == "batch" {
		// A batch puts every request in flight at once: the recorder's
		// tables are sized for it up front, not doubled (and copied)
		// along the way under the lock every step takes.
		e.rec.Reserve(spec.Leases)
	}
	if e.drv, err = workload.NewDriver(p, e, e.rec); err != nil {
		return runner.Result{}, Extra{}, err
	}
	e.drv.RepeatSingle(eo.SingleReps)
	if e.procs != nil && e.procs.opt.Plan != nil {
		e.drv.PlanFailover(*e.procs.opt.Plan)
	}
	if e.procs != nil {
		e.drv.NoWrites() // node processes write themselves
	}
	if err := e.start(); err != nil {
		return runner.Result{}, Extra{}, err
	}
	interrupted := e.serve(opt.Progress, opt.Stop)
	res, ex, err := e.finish()
	res.Interrupted = interrupted
	res.WallMS = float64(time.Since(wall).Microseconds()) / 1e3
	if err != nil {
		return res, ex, err
	}
	if err := tr.Flush(); err != nil {
		return res, ex, err
	}
	return res, ex, nil
}

// checkOptions says whether eo fit a resolved spec and fills in their
// defaults.
func checkOptions(spec runner.Spec, eo EnvOptions) (EnvOptions, error) {
	if eo.MaxDatagram == 0 {
		eo.MaxDatagram = spec.Net.Datagram
	} else if spec.Net.Datagram != 0 && spec.Net.Datagram != eo.MaxDatagram {
		return eo, runner.BadSpec(fmt.Errorf("udp: datagram size %d in the spec but %d in the environment options", spec.Net.Datagram, eo.MaxDatagram))
	}
	if eo.Window == 0 {
		eo.Window = DefaultWindow
	}
	if eo.Window < 0 {
		eo.Window = 0
	}
	if !eo.Addr.IsValid() {
		eo.Addr = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return eo, nil
}

// drawClocks draws the nodes' clocks of a run with spec: the simulator's
// draws (faults.DrawClocks on the seed's clock stream).
func drawClocks(spec runner.Spec, nodes int) []faults.Clock {
	return faults.DrawClocks(spec.Seed, nodes, spec.Clocks.Skew, spec.Clocks.Drift, spec.Clocks.Edges)
}

// bind binds one socket per node. Addresses are fixed for the run: a
// restarted node binds its port again, so the others need not learn a
// new one.
func (e *env) bind() error {
	cl := algorithms.NewCluster(e.spec.Acceptors, e.spec.Proposers)
	if e.procs != nil {
		return e.procs.bind(cl.Nodes)
	}
	for i := 0; i < cl.Nodes; i++ {
		c, err := listenFresh(e.eo.Addr)
		if err != nil {
			return fmt.Errorf("udp: bind node %d: %w", i, err)
		}
		e.conns = append(e.conns, c)
		e.held = append(e.held, nil)
		e.addrs = append(e.addrs, c.LocalAddr().(*net.UDPAddr).AddrPort())
	}
	return nil
}

// startDisk makes the log directory (durable algorithms, the background
// writer) and starts the background writer.
func (e *env) startDisk() error {
	if e.procs != nil || (!e.alg.Durable && !e.spec.Disk.Background) {
		return nil
	}
	e.dir = e.spec.Disk.Dir
	if e.dir == "" {
		var err error
		if e.dir, err = os.MkdirTemp("", "leaselab-udp-"); err != nil {
			return err
		}
		e.tempDir = true
	}
	if !e.spec.Disk.Background {
		return nil
	}
	// Started (and warmed up: the disk already busy with it) before the
	// nodes, so the whole run competes with it; the diskless algorithms
	// get it too, as in the paper, where it costs them CPU.
	var err error
	e.bg, err = StartBackground(BackgroundConfig{Dir: e.dir})
	return err
}

// release frees what a run that did not finish still holds (error paths;
// a finished run has stopped the writer and handed the sockets over).
func (e *env) release() {
	for _, c := range append(e.conns, e.held...) {
		if c != nil {
			c.Close()
		}
	}
	if e.bg != nil {
		e.bg.Stop()
	}
	if e.tempDir {
		os.RemoveAll(e.dir)
	}
	if e.procs != nil && e.procs.tempDir != "" {
		os.RemoveAll(e.procs.tempDir)
	}
}

// record sets up the recorder and its tracer for opt's outputs.
func (e *env) record(opt runner.Options) *record.Tracer {
	tr := record.NewRunTracer(opt)
	e.rec = record.NewRecorder(e.run, e, tr)
	return tr
}

// start boots every node, then the workload at true time 0 (the clock is
// set here; the lock keeps the nodes' first events behind drv.Start).
func (e *env) start() error {
	if e.procs != nil {
		return e.startProcs()
	}
	e.mu.Lock()
	var err error
	for i := range e.nodes {
		if e.nodes[i], err = e.build(algorithms.NodeID(i)); err != nil {
			break
		}
	}
	if e.spec.Workload == "batch" && e.spec.Proposers > 0 {
		// The batch hands every request to the proposers at time 0: their
		// queues are sized for it at once, not doubled (and copied) one
		// request at a time, and before time 0, as the recorder's tables
		// are (RunPlan): at a million leases that is 200 MB to allocate
		// and clear, a twentieth of the batch's time.
		per := e.spec.Leases/e.spec.Proposers + 1
		for i, n := range e.nodes {
			if n != nil && i < e.spec.Proposers {
				n.reserve(per)
			}
		}
	}
	// True time 0 is when the nodes start, not before they were built
	// (sockets' buffers, logs, queues): a single lease is timed from its
	// request at 0.
	e.base.Start = time.Now()
	for _, c := range e.clocks {
		c.Start = e.base.Start
	}
	for _, n := range e.nodes {
		if n != nil {
			n.Start()
		}
	}
	if err != nil {
		e.mu.Unlock()
		e.shutdown()
		return err
	}
	e.now = 0
	e.drv.Start()
	if e.cut != nil {
		e.planPartition()
	}
	e.mu.Unlock()
	return nil
}

// startProcs starts every node process, waits until all are ready, and
// starts the workload at that instant, true time 0.
func (e *env) startProcs() error {
	e.mu.Lock()
	for i := range e.nodes {
		if err := e.procs.start(i); err != nil {
			e.mu.Unlock()
			e.shutdown()
			return err
		}
	}
	e.mu.Unlock()
	if err := e.procs.waitReady(e.spec.Duration); err != nil {
		e.shutdown()
		return err
	}
	e.mu.Lock()
	e.drv.Start()
	e.mu.Unlock()
	return nil
}

// finish ends the run: the driver's result, the background writer
// stopped, every node shut down, the extras summed.
func (e *env) finish() (runner.Result, Extra, error) {
	e.mu.Lock()
	end := e.base.True()
	if end < e.now {
		end = e.now
	}
	e.now = end
	res := e.drv.Finish()
	e.endOne.Do(func() { close(e.ended) })
	e.mu.Unlock()
	var bgErr error
	var bg BackgroundStats
	if e.bg != nil {
		// Stopped as soon as the run is over, before the nodes' shutdown:
		// the rate is the writer's while the workload ran.
		bg, bgErr = e.bg.Stop()
		e.bg = nil
		res.BackgroundBytesPerS = bg.BytesPerSec
	}
	e.shutdown()
	res.Env = "udp"
	res.TraceHash = "" // real time: no two runs are alike
	ex := Extra{Meters: e.meters, RunNS: end, Background: bg}
	for _, r := range e.restarts {
		ex.Restarts += int(r)
	}
	if e.procs != nil {
		ex.Cluster = e.procs.ex
		ex.Restarts = e.procs.restarts()
	}
	if e.err != nil {
		return res, ex, e.err
	}
	if e.procs != nil {
		return res, ex, e.procs.failoverError()
	}
	// A writer that died during the run: the run did not measure what was
	// asked.
	return res, ex, bgErr
}

// boot builds and starts node id (a restart); mu is held.
func (e *env) boot(id algorithms.NodeID) error {
	n, err := e.build(id)
	if err != nil {
		return err
	}
	e.nodes[id] = n
	n.Start()
	return nil
}

// build builds node id (first start or restart) without starting it; mu
// is held.
func (e *env) build(id algorithms.NodeID) (*Node, error) {
	conn := e.conns[id]
	e.conns[id] = nil
	if conn == nil {
		// A restart. The port is held by a placeholder since the crash
		// (holdPort) where the system allows it; else the killed
		// incarnation's socket is released when its reader returns, which
		// may be a moment after Kill.
		var err error
		for try := 0; ; try++ {
			conn, err = listenNode(e.addrs[id])
			if err == nil {
				if h := e.held[id]; h != nil {
					h.Close()
					e.held[id] = nil
				}
				break
			}
			if try == 200 {
				return nil, fmt.Errorf("udp: rebind node %d at %v: %w", id, e.addrs[id], err)
			}
			time.Sleep(time.Millisecond)
		}
	}
	nc := NodeConfig{
		ID:   id,
		Algo: e.alg,
		Node: algorithms.Config{Cluster: algorithms.NewCluster(e.spec.Acceptors, e.spec.Proposers),
			Params: e.spec.Params, Ablations: e.spec.Ablate, Restarts: e.restarts[id],
			Rand: rand.New(faults.NodeSource(e.spec.Seed, id, e.restarts[id]))},
		Seed:        e.spec.Seed,
		Conn:        conn,
		Peers:       e.addrs,
		Clock:       e.clocks[id],
		MaxDatagram: e.eo.MaxDatagram,
		Net:         e.spec.Net,
		Draws:       e.draws,
		Partition:   e.cut,
		Observer:    e,
		Window:      e.eo.Window,
		SyncEach:    !e.spec.Disk.GroupCommit,
		Key:         e.eo.Key,
	}
	if e.alg.Durable {
		// The first start of a run begins with an empty log; a restart
		// recovers what the node's earlier lives made durable (its killed
		// incarnation has closed the log: see Restart).
		st, recs, err := OpenLog(e.dir, id, e.spec.Disk.GroupCommit, e.restarts[id] == 0)
		if err != nil {
			conn.Close()
			return nil, err
		}
		nc.Storage = st
		nc.Node.Recovered = recs
	}
	n, err := NewNode(nc)
	if err != nil {
		conn.Close()
		if nc.Storage != nil {
			nc.Storage.Close()
		}
		return nil, err
	}
	return n, nil
}

// serve runs timed callbacks until the run ends: Env.Stop, the driver is
// done, Duration has passed, or stop is closed (then it reports true).
func (e *env) serve(progress func(float64), stop <-chan struct{}) (interrupted bool) {
	limit := int64(e.spec.Duration)
	// The workload's hold and pause are often well under a millisecond; a
	// Go timer would stretch each to about one (see wakeTimer).
	tm := newTimer()
	defer tm.Close()
	var lastProgress time.Time
	for {
		e.mu.Lock()
		t := e.clockNow()
		for !e.isEnded() {
			due, ok := e.timers.Next()
			if !ok || due > t {
				break
			}
			_, f := e.timers.Pop()
			if due > e.now {
				e.now = due // callbacks run at their own instant, never before
			}
			f()
		}
		if t >= limit || e.drv.Done() {
			e.endOne.Do(func() { close(e.ended) })
		}
		ended := e.isEnded()
		if !ended && stop != nil {
			select {
			case <-stop:
				ended, interrupted = true, true
			default:
			}
		}
		next := limit
		if due, ok := e.timers.Next(); ok && due < next {
			next = due
		}
		e.mu.Unlock()
		if ended {
			return interrupted
		}
		if progress != nil && time.Since(lastProgress) > 200*time.Millisecond {
			lastProgress = time.Now()
			progress(e.progress())
		}
		d := time.Duration(next - e.base.True())
		if d > 200*time.Millisecond {
			d = 200 * time.Millisecond // progress reports and Done checks
		}
		tm.Arm(max(d, 0), true)
		select {
		case <-tm.GoC():
		case <-tm.WakeC:
		case <-e.wake:
		case <-e.ended:
		case <-stop: // nil without Stop: never ready
		}
		tm.Disarm()
	}
}

func (e *env) progress() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch e.spec.Workload {
	case "batch":
		return float64(e.rec.Acquired()) / float64(e.spec.Leases)
	}
	return float64(e.now) / float64(e.spec.Duration)
}

func (e *env) isEnded() bool {
	select {
	case <-e.ended:
		return true
	default:
		return false
	}
}

// shutdown kills every node and waits for all incarnations.
func (e *env) shutdown() {
	if e.procs != nil {
		e.procs.shutdown()
		return
	}
	e.mu.Lock()
	for i, n := range e.nodes {
		if n != nil {
			n.Kill()
			e.dead = append(e.dead, n)
			e.nodes[i] = nil
		}
	}
	dead := e.dead
	e.dead = nil
	e.mu.Unlock()
	for _, n := range dead {
		<-n.Done()
		addMeters(&e.meters, n.Meters())
		if n.err != nil && e.err == nil {
			e.err = n.err
		}
	}
}

// clockNow reads true time, never earlier than what the driver has seen;
// mu is held.
func (e *env) clockNow() int64 {
	t := e.base.True()
	if t < e.now {
		t = e.now
	}
	e.now = t
	return t
}

// --- partitions ---

// partitionPlan draws a run's partition episodes with the simulator's
// draws, in its order (faults.Schedule on the seed's fault stream: the
// gap, the sides, the length): episodes start as a Poisson process of
// perMinute per minute of true time, the next drawn from where the
// previous one healed (they never overlap); each puts every node on a
// random side, both sides non-empty, for uniform [length/2, length].
// Times are planned from planned times, never from when a callback
// happened to run, so the whole schedule depends on the seed alone; only
// what the messages meet over UDP is real-time chance.
type partitionPlan struct {
	sched     *faults.Schedule
	perMinute float64
	length    int64
	healed    int64   // planned end of the previous episode (0 at first)
	sides     []uint8 // of the episode next returned
}

func newPartitionPlan(seed uint64, perMinute float64, length time.Duration, nodes int) *partitionPlan {
	return &partitionPlan{sched: faults.NewSchedule(seed), perMinute: perMinute,
		length: int64(length), sides: make([]uint8, nodes)}
}

// next plans the next episode: it splits at start and heals at heal, with
// node i on side p.sides[i].
func (p *partitionPlan) next() (start, heal int64) {
	start = p.healed + p.sched.Gap(p.perMinute)
	p.sched.Split(p.sides)
	heal = start + p.sched.Length(p.length)
	p.healed = heal
	return start, heal
}

// planPartition schedules the next episode; mu is held.
func (e *env) planPartition() {
	start, heal := e.plan.next()
	e.At(start, func() { e.split(heal) })
}

// split starts an episode (a timed callback: mu is held).
func (e *env) split(heal int64) {
	e.cut.Split(e.plan.sides)
	e.rec.Partition(e.now)
	var mask int64
	for i := 0; i < len(e.plan.sides) && i < 64; i++ {
		if e.plan.sides[i] == 0 {
			mask |= 1 << i
		}
	}
	e.traceNet(record.TracePartition, mask)
	e.At(heal, e.heal)
}

// traceNet writes a partition or heal line to the trace, if there is one.
// Holds that ended before now go in first, so the trace stays in
// true-time order.
func (e *env) traceNet(kind record.TraceKind, mask int64) {
	if tr := e.rec.Tracer(); tr != nil {
		e.rec.Checker().Advance(e.now)
		tr.Add(&record.TraceRec{T: e.now, Local: algorithms.Local(e.now), Kind: kind, Node: algorithms.NoNode, X: mask})
	}
}

// heal ends an episode (a timed callback: mu is held).
func (e *env) heal() {
	e.cut.Heal()
	e.traceNet(record.TraceHeal, 0)
	e.planPartition()
}

// --- workload.Env (every method is called with mu held) ---

func (e *env) Now() int64 { return e.now }

func (e *env) TrueAt(n algorithms.NodeID, l algorithms.Local) int64 {
	if e.procs != nil {
		return int64(l) + e.procs.off[n]
	}
	return e.clocks[n].TrueAt(l)
}

func (e *env) LocalAt(n algorithms.NodeID, t int64) algorithms.Local {
	if e.procs != nil {
		return algorithms.Local(t - e.procs.off[n])
	}
	return e.clocks[n].LocalAt(t)
}

func (e *env) At(t int64, f func()) {
	if e.isEnded() {
		return
	}
	e.timers.Push(t, f)
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *env) Input(n algorithms.NodeID, in algorithms.Input) bool {
	if e.procs != nil && int(n) < len(e.nodes) {
		return e.procs.input(int(n), in)
	}
	if int(n) >= len(e.nodes) || e.nodes[n] == nil {
		return false
	}
	e.nodes[n].Submit(in)
	return true
}

func (e *env) Crash(n algorithms.NodeID) {
	if e.procs != nil && int(n) < len(e.nodes) {
		e.procs.crash(int(n))
		return
	}
	if int(n) >= len(e.nodes) || e.nodes[n] == nil {
		return
	}
	node := e.nodes[n]
	// Kill does not wait: the node's goroutine may be waiting for mu. Its
	// Stepped callback sees it is no longer e.nodes[n] and drops whatever
	// it was about to do.
	node.Kill()
	if e.held[n] == nil {
		e.held[n] = holdPort(e.addrs[n])
	}
	e.nodes[n] = nil
	e.lives[n] = node
	e.dead = append(e.dead, node)
	e.drv.Crashed(n)
}

// Pause stops node n's process for d ns (workload.Pauser): node
// processes only; nodes in this process cannot be paused (Resolve rejects
// the pause fault kind for udp), so for them it does nothing.
func (e *env) Pause(n algorithms.NodeID, d int64) {
	if e.procs != nil && int(n) < len(e.nodes) {
		e.procs.pause(int(n), d)
	}
}

func (e *env) Restart(n algorithms.NodeID) {
	if e.procs != nil && int(n) < len(e.nodes) {
		e.procs.restart(int(n))
		return
	}
	if int(n) >= len(e.nodes) || e.nodes[n] != nil {
		return
	}
	if old := e.lives[n]; old != nil && e.alg.Durable {
		// The killed incarnation may still be finishing a write or
		// waiting for mu (Kill does not wait); its log must be closed
		// before the new one opens the file. Let go of mu while waiting,
		// so that it can take mu, see that it is dead, and end.
		select {
		case <-old.Done():
		default:
			e.mu.Unlock()
			<-old.Done()
			e.mu.Lock()
			if e.isEnded() || e.nodes[n] != nil {
				return
			}
		}
	}
	e.restarts[n]++
	// The old incarnation's socket is closed by Kill; its port is free.
	if err := e.boot(n); err != nil {
		if e.err == nil {
			e.err = err
		}
		e.endOne.Do(func() { close(e.ended) })
		return
	}
	e.drv.Restarted(n)
}

func (e *env) Up(n algorithms.NodeID) bool {
	if e.procs != nil {
		return int(n) < len(e.nodes) && e.procs.up[n]
	}
	return int(n) < len(e.nodes) && e.nodes[n] != nil
}

func (e *env) Stop() {
	e.endOne.Do(func() { close(e.ended) })
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// --- StepObserver: called on node goroutines ---

var _ StepObserver = (*env)(nil)

func (e *env) Event(*Node, int64, algorithms.Local, algorithms.Event) {}

// Begin takes mu for a group of the node's steps (see StepObserver).
//
// Why the node steps under mu rather than only reporting under it: the
// checker dates a hold from the true instant of the Acquired event and
// needs events in true-time order. A node that reads its clock, steps, and
// only then takes mu to report may find that another node has meanwhile
// reported a later instant; the environment then had two bad choices:
// stamp the event with the later instant (the hold starts late: an overlap
// with a hold that ended in between goes unseen, the non-conservative
// direction), or stamp it with its own earlier reading, out of order
// (the checker has already closed holds that ended after it, and again
// misses the overlap). Reading the clock under mu makes the stamp both
// exact and in order: it is the reading the node stepped with, which is no
// later than the instant the node began to believe it holds the lease, and
// no earlier than anything already reported. The price is that the
// algorithms' Step (microseconds) runs one node at a time; sockets,
// decoding and the disk still run in parallel.
func (e *env) Begin(n *Node) bool {
	e.mu.Lock()
	if e.nodes[n.id] != n || e.isEnded() {
		e.mu.Unlock()
		return false
	}
	return true
}

// End lets go of mu after a group of steps.
func (e *env) End(*Node) { e.mu.Unlock() }

// Stepped hands one Output to the driver; mu is held (Begin).
func (e *env) Stepped(n *Node, t int64, now algorithms.Local, in algorithms.Input, out *algorithms.Output) bool {
	if e.nodes[n.id] != n || e.isEnded() {
		return false // the driver crashed the node or ended the run in this group
	}
	if t > e.now {
		e.now = t // always, but for a callback that ran at its own later instant
	}
	// The messages in the trace, for its observers (the HTML view, --trace):
	// a delivery is the step of a received message, a send is dated at
	// the step that sent it. Why a message never arrived (emulated loss,
	// a partition, the kernel) is not traced: the network's draws are made
	// after the step, outside the lock. Without observers nothing is
	// added (a UDP run's trace hash means nothing: real time).
	tr := e.rec.Tracer()
	traced := tr != nil && tr.Observed()
	if traced && in.Kind == algorithms.Recv {
		tr.Add(&record.TraceRec{T: e.now, Local: now, Kind: record.TraceDeliver, Node: n.id, Msg: in.Msg})
	}
	for _, ev := range out.Events {
		if ev.Kind == algorithms.Lost {
			// A release: the node stopped believing during the step, after
			// t. The conservative end is after the step: read the clock
			// again. (No algorithm emits Acquired in the same Output as
			// Lost, which would then be stamped late by this step.)
			if t2 := e.base.True(); t2 > e.now {
				e.now = t2
			}
		}
		e.drv.Event(n.id, now, ev)
	}
	for i := range out.Msgs {
		if traced {
			tr.Add(&record.TraceRec{T: e.now, Local: now, Kind: record.TraceSend, Node: n.id, Msg: out.Msgs[i]})
		}
		e.rec.Sent(e.now, &out.Msgs[i])
	}
	return e.nodes[n.id] == n
}

func (e *env) Disk(n *Node, t int64, bytes int64, fsyncNS []int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.nodes[n.id] != n || e.isEnded() {
		return
	}
	if t > e.now {
		e.now = t
	}
	e.rec.DiskWrite(e.now, bytes)
	for _, lat := range fsyncNS {
		e.rec.Fsync(e.now, lat, 0)
	}
}

func addMeters(m *Meters, x Meters) {
	m.MsgsSent += x.MsgsSent
	m.MsgsLocal += x.MsgsLocal
	m.MsgsDropped += x.MsgsDropped
	m.MsgsPartitioned += x.MsgsPartitioned
	m.MsgsDuplicated += x.MsgsDuplicated
	m.MsgsReordered += x.MsgsReordered
	m.DatagramsSent += x.DatagramsSent
	m.BytesSent += x.BytesSent
	m.SendErrors += x.SendErrors
	if m.FirstSendError == "" {
		m.FirstSendError = x.FirstSendError
	}
	m.EncodeErrors += x.EncodeErrors
	m.MsgsRecv += x.MsgsRecv
	m.DatagramsRecv += x.DatagramsRecv
	m.BytesRecv += x.BytesRecv
	m.BadDatagrams += x.BadDatagrams
	m.Unauthenticated += x.Unauthenticated
	m.Steps += x.Steps
	m.Fsyncs += x.Fsyncs
	m.DiskBytes += x.DiskBytes
	m.FsyncNS = append(m.FsyncNS, x.FsyncNS...)
}

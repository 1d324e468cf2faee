package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/record"
)

// Scenario files drive the simulator step by step, in the spirit of etcd
// raft's datadriven testdata: a specific interleaving (a counterexample
// from a paper, a model checker or a fault campaign) replayed exactly.
// The format is documented in runner/sim/testdata/README.md; in short, one
// command per line, '#' starts a comment:
//
//	algo NAME                       setup, before the first action
//	cluster acceptors=N proposers=P
//	params lease-span=D max-lease=D dmax=D drift-bound=F response-timeout=D max-rounds=N backoff=D
//	ablate NAME[,NAME...]
//	seed N
//	disk fsync-latency=D group-commit=BOOL
//	store plain|fenced              the protected store (scenario_faults.go)
//	start                           boot every node (implicit before the first action)
//	clock NODE offset=D rate=F jump=D  set NODE's clock: local = offset + t + t*rate; jump steps it
//	acquire|extend|release NODE RES client input
//	deliver|drop|dup SEL            SEL: ID | KIND FROM->TO [RES] | all
//	advance D                       let D of true time pass (timers, fsyncs)
//	crash NODE / restart NODE
//	pause NODE D                    NODE's process pauses for D (scenario_faults.go)
//	write NODE RES                  NODE's client writes to the protected store
//	pending                         list the messages in flight
//	repeat N CMD [ARGS] [; CMD...]  the commands, N times over
//	expect holder RES NODE|none
//	expect grant ACCEPTOR RES OWNER|none
//	expect violations N
//	expect acquired N / expect failed N / expect pending N
//	expect unanswered N             N requests asked for and not yet answered
//	expect static-deadlocks N [D]   N episodes so far, D their total length
//	expect writes|stale-writes|fenced-rejects|token-ties N
//
// In a scenario the network never delivers on its own: every message a
// node sends to another waits in the pending list (numbered from 1 in send
// order) until the script delivers, drops or duplicates it. A node's
// messages to itself are delivered at once, as their own step. Nothing
// random happens: no faults, clocks exact as set, and every fsync takes
// exactly the disk's fsync latency.

type replayer struct {
	w       io.Writer
	spec    runner.Spec
	seed    uint64
	s       *sim
	res     ReplayResult
	line    int
	started bool
	// preClocks are clocks set before the boot.
	preClocks map[algorithms.NodeID]faults.Clock
	// observers see every trace record (ReplayOptions.Observers) after
	// the replayer prints it; tr is the tracer handing it out.
	observers []runner.Observer
	tr        *record.Tracer
	tx        *transcript // nil: no transcript
	// steps: the observers that want each command's end (StepObserver);
	// cmd is the command being run.
	steps []runner.StepObserver
	cmd   string
	// quiet: print no trace records (Script: a program reads the
	// outcome, nobody reads the trace).
	quiet bool
	// pendingHook, if set, sees every message that becomes pending.
	pendingHook func(id int, m algorithms.Message)
}

// Replay runs a scenario file step by step and writes the trace, the
// outcome of every expectation and the checker's verdict to w. A malformed
// line is an error (with its line number); an expectation that does not
// hold is reported in ReplayResult.Failed and the replay goes on.
func Replay(scenario io.Reader, w io.Writer) (ReplayResult, error) {
	return replay(scenario, w, nil, nil)
}

func replay(scenario io.Reader, w io.Writer, observers []runner.Observer, tx *transcript) (res ReplayResult, err error) {
	rp := &replayer{w: w, spec: scenarioSpec(), observers: observers, tx: tx}
	for _, o := range observers {
		if so, ok := o.(runner.StepObserver); ok {
			rp.steps = append(rp.steps, so)
		}
	}
	defer func() {
		if rp.tr != nil {
			if ferr := rp.tr.Flush(); ferr != nil && err == nil {
				err = ferr
			}
		}
	}()
	sc := bufio.NewScanner(scenario)
	for sc.Scan() {
		if err := rp.execLine(sc.Text()); err != nil {
			return rp.res, err
		}
	}
	if err := sc.Err(); err != nil {
		return rp.res, err
	}
	if rp.res.Steps == 0 {
		// An empty file (or a wrong one that is all comments) would
		// otherwise pass with verdict ok and nothing checked.
		return rp.res, fmt.Errorf("the scenario has no commands (%d lines, all blank or comments): nothing to replay", rp.line)
	}
	return rp.finish()
}

// execLine runs one line of a scenario (a comment or blank line does
// nothing); errors carry the line number.
func (rp *replayer) execLine(text string) error {
	rp.line++
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil
	}
	return rp.execFields(fields)
}

// execFields runs one command, split into fields.
func (rp *replayer) execFields(fields []string) error {
	cmd := ""
	if !rp.quiet || len(rp.steps) > 0 {
		cmd = strings.Join(fields, " ")
	}
	if !rp.quiet {
		fmt.Fprintf(rp.w, "> %s\n", cmd)
		rp.tx.command(cmd)
	}
	rp.cmd = cmd
	if err := rp.exec(fields); err != nil {
		return fmt.Errorf("line %d: %w", rp.line, err)
	}
	rp.res.Steps++
	if rp.s != nil && rp.s.err != nil {
		return fmt.Errorf("line %d: %w", rp.line, rp.s.err)
	}
	if rp.started && fields[0] != "start" {
		rp.stepDone(cmd) // start's step is the boot's (boot)
	}
	return nil
}

// finish boots the run if no action did, and gives the checker's verdict.
func (rp *replayer) finish() (ReplayResult, error) {
	w := rp.w
	rp.cmd = ""
	if err := rp.boot(); err != nil {
		return rp.res, err
	}
	// An overlap that begins at the scenario's last instant would end
	// there with length zero, and the checker counts only overlaps of
	// positive length; but the scenario merely stopped, the two owners
	// still believe they hold. Such overlaps count, with overlap 0, so a
	// counterexample that stops at its violation still shows it.
	chk := rp.s.rec.Checker()
	chk.Advance(rp.s.now)
	var instant []runner.Violation
	for _, v := range chk.OpenList() {
		if v.StartNS == rp.s.now {
			instant = append(instant, v)
		}
	}
	rp.res.Result = rp.s.rec.Finish(rp.s.now, false)
	rp.res.Result.Env = rp.spec.Env
	rp.res.Result.ClockJumps = rp.s.clockJumps
	vs, n := chk.Violations()
	vs = append(append([]runner.Violation(nil), vs...), instant...)
	n += len(instant)
	rp.res.Violations = vs
	fmt.Fprintf(w, "verdict: %d violation(s)\n", n)
	for _, v := range vs {
		fmt.Fprintf(w, "  violation: r%d owners %s (b=%s) and %s (b=%s) overlap %v from %.6fms\n",
			v.Resource, v.Owners[0], v.Ballots[0], v.Owners[1], v.Ballots[1], time.Duration(v.OverlapNS), float64(v.StartNS)/1e6)
	}
	if len(rp.res.Failed) > 0 {
		fmt.Fprintf(w, "%d expectation(s) failed\n", len(rp.res.Failed))
	}
	if rp.res.Violations == nil {
		rp.res.Violations = []runner.Violation{}
	}
	rp.tx.verdict(&rp.res)
	return rp.res, nil
}

// scenarioSpec is the spec a scenario starts from.
func scenarioSpec() runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = "naive"
	s.Workload = "single"
	s.Acceptors, s.Proposers = 3, 3
	s.Duration = 1 << 62
	s.Net = runner.NetSpec{}
	s.Disk = runner.DiskSpec{FsyncLatency: 2 * time.Millisecond, GroupCommit: true}
	return s
}

func (rp *replayer) boot() error {
	if rp.started {
		return nil
	}
	rp.started = true
	p, err := runner.Resolve(rp.spec)
	if err != nil {
		return err
	}
	obs := rp.observers
	if !rp.quiet {
		obs = append([]runner.Observer{rp}, obs...)
	}
	tr := record.NewTracer(obs...)
	rp.tr = tr
	s := newSim(p, tr, true)
	rp.s = s
	s.onPending = func(p pendingMsg) {
		if rp.pendingHook != nil {
			rp.pendingHook(p.id, p.msg)
		}
		if !rp.quiet {
			fmt.Fprintf(rp.w, "  %*s pending #%d\n", 19, "", p.id)
			rp.tx.pending(p.id)
		}
	}
	for n, c := range rp.preClocks {
		if int(n) >= len(s.clock) {
			return fmt.Errorf("clock: node %s does not exist (cluster of %d)", n, len(s.clock))
		}
		s.clock[n] = c
	}
	if err := s.boot(); err != nil {
		return err
	}
	s.settle(s.now)
	// The boot is a step of its own, also when the first action implies
	// it: its records are not that action's.
	start := "start"
	switch rp.cmd {
	case "start":
	case "":
		start = "start (implicit)"
	default:
		start = "start (implicit, before " + rp.cmd + ")"
	}
	rp.stepDone(start)
	return nil
}

// stepDone tells the step observers that the command cmd is done, with
// each node's state in words.
func (rp *replayer) stepDone(cmd string) {
	if len(rp.steps) == 0 {
		return
	}
	s := rp.s
	st := runner.ScriptStep{Line: rp.line, Command: cmd, T: s.now, Nodes: make([]string, len(s.nodes))}
	for i := range s.nodes {
		n := &s.nodes[i]
		if !n.Up() {
			st.Nodes[i] = "down"
			continue
		}
		st.Nodes[i] = algorithms.Describe(n.Node, s.clock[i].Local(s.now))
	}
	for _, o := range rp.steps {
		o.Step(&st)
	}
}

// Observe prints a trace record as the replay goes (runner.Observer).
func (rp *replayer) Observe(r *runner.TraceRec) {
	fmt.Fprintf(rp.w, "  %s\n", record.FormatTrace(r))
	rp.tx.record(r)
}

func (rp *replayer) setup(cmd string) error {
	if rp.started {
		return fmt.Errorf("%q must come before the first action", cmd)
	}
	return nil
}

// kvPair is one key=value argument.
type kvPair struct{ key, val string }

// parseKV splits key=value arguments, keeping their order, so a line with
// several bad values always reports the first one (a map would report
// whichever its iteration order reached first).
func parseKV(args []string) ([]kvPair, error) {
	kv := make([]kvPair, 0, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("expected key=value, got %q", a)
		}
		kv = append(kv, kvPair{k, v})
	}
	return kv, nil
}

func parseNode(s string) (algorithms.NodeID, error) {
	t := strings.TrimPrefix(s, "n")
	v, err := strconv.ParseUint(t, 10, 16)
	if err != nil || v >= uint64(algorithms.NoNode) {
		return 0, fmt.Errorf("bad node %q (want n0, n1, ...)", s)
	}
	return algorithms.NodeID(v), nil
}

func parseRes(s string) (algorithms.ResourceID, error) {
	t := strings.TrimPrefix(s, "r")
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad resource %q (want r0, r1, ...)", s)
	}
	return algorithms.ResourceID(v), nil
}

func parseKind(s string) (algorithms.Kind, error) {
	if k, ok := algorithms.KindByName(s); ok {
		return k, nil
	}
	var names []string
	for _, k := range algorithms.Kinds() {
		names = append(names, k.String())
	}
	return 0, fmt.Errorf("unknown message kind %q (valid: %s)", s, strings.Join(names, ", "))
}

func (rp *replayer) node(s string) (algorithms.NodeID, error) {
	n, err := parseNode(s)
	if err != nil {
		return 0, err
	}
	if rp.s != nil && int(n) >= len(rp.s.nodes) {
		return 0, fmt.Errorf("node %s does not exist (cluster of %d)", s, len(rp.s.nodes))
	}
	return n, nil
}

func wantArgs(args []string, n int, usage string) error {
	if len(args) != n {
		return fmt.Errorf("usage: %s", usage)
	}
	return nil
}

func (rp *replayer) exec(f []string) error {
	cmd, args := f[0], f[1:]
	switch cmd {
	case "algo", "cluster", "params", "disk", "ablate", "seed", "store":
		if err := rp.setup(cmd); err != nil {
			return err
		}
		return rp.configure(cmd, args)
	case "start":
		if rp.started {
			return fmt.Errorf("already started")
		}
		return rp.boot()
	case "clock":
		return rp.setClock(args)
	case "acquire", "extend", "release", "deliver", "drop", "dup", "advance",
		"crash", "restart", "pending", "expect", "repeat", "pause", "write":
		if err := rp.boot(); err != nil {
			return err
		}
		return rp.step(cmd, args)
	}
	return fmt.Errorf("unknown command %q", cmd)
}

// configure runs a setup command: one that describes the run before it
// starts.
func (rp *replayer) configure(cmd string, args []string) error {
	switch cmd {
	case "algo":
		if err := wantArgs(args, 1, "algo NAME"); err != nil {
			return err
		}
		if _, err := algorithms.Lookup(args[0]); err != nil {
			return err
		}
		rp.spec.Algo = args[0]
	case "cluster", "params", "disk":
		return rp.setParams(cmd, args, scenarioParams[cmd])
	case "ablate":
		if err := wantArgs(args, 1, "ablate NAME[,NAME...]"); err != nil {
			return err
		}
		rp.spec.Ablate = strings.Split(args[0], ",")
	case "store":
		return rp.storeCmd(args)
	case "seed":
		if err := wantArgs(args, 1, "seed N"); err != nil {
			return err
		}
		v, err := strconv.ParseUint(args[0], 10, 64)
		if err != nil {
			return fmt.Errorf("bad seed %q", args[0])
		}
		rp.spec.Seed = v
	}
	return nil
}

// step runs a command on the started simulation.
func (rp *replayer) step(cmd string, args []string) error {
	switch cmd {
	case "acquire", "extend", "release":
		return rp.input(cmd, args)
	case "deliver", "drop", "dup":
		return rp.message(cmd, args)
	case "advance":
		if err := wantArgs(args, 1, "advance DURATION"); err != nil {
			return err
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 0 {
			return fmt.Errorf("advance: bad duration %q", args[0])
		}
		rp.s.settle(rp.s.now + int64(d))
	case "crash", "restart":
		return rp.crashOrRestart(cmd, args)
	case "pause":
		return rp.pauseCmd(args)
	case "write":
		return rp.writeCmd(args)
	case "pending":
		for _, p := range rp.s.pending {
			fmt.Fprintf(rp.w, "  #%d %s\n", p.id, p.msg)
			rp.tx.line("  #%d %s", p.id, p.msg)
		}
	case "expect":
		return rp.expect(args)
	case "repeat":
		return rp.repeat(args)
	}
	return nil
}

// setClock: clock NODE offset=D rate=F, before or after the start.
func (rp *replayer) setClock(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: clock NODE offset=D rate=F jump=D")
	}
	n, err := rp.node(args[0])
	if err != nil {
		return err
	}
	kv, err := parseKV(args[1:])
	if err != nil {
		return err
	}
	var c faults.Clock
	if rp.s != nil {
		c = rp.s.clock[n]
	} else if pc, ok := rp.preClocks[n]; ok {
		c = pc
	}
	for _, kp := range kv {
		k, v := kp.key, kp.val
		switch k {
		case "offset":
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("clock offset: bad duration %q", v)
			}
			c.Offset = int64(d)
		case "rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r <= -0.5 || r >= 0.5 {
				return fmt.Errorf("clock rate: want a number in (-0.5, 0.5), got %q", v)
			}
			c = faults.Clock{Offset: c.Offset, RatePPB: faults.NewClock(0, r).RatePPB}
		case "jump":
			// A step of the clock from where it is now (Jepsen's bump):
			// offset and rate stay as they are otherwise.
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("clock jump: bad duration %q", v)
			}
			c.Offset += int64(d)
			if rp.s != nil {
				rp.s.clockJumps++
			}
		default:
			return fmt.Errorf("clock: unknown key %q (valid: offset, rate, jump)", k)
		}
	}
	if rp.s == nil {
		if rp.preClocks == nil {
			rp.preClocks = map[algorithms.NodeID]faults.Clock{}
		}
		rp.preClocks[n] = c
		return nil
	}
	rp.s.setClock(n, c)
	rp.s.settle(rp.s.now)
	return nil
}

// input: acquire|extend|release NODE RES, a client's request to a node.
func (rp *replayer) input(cmd string, args []string) error {
	if err := wantArgs(args, 2, cmd+" NODE RES"); err != nil {
		return err
	}
	n, err := rp.node(args[0])
	if err != nil {
		return err
	}
	r, err := parseRes(args[1])
	if err != nil {
		return err
	}
	kind := map[string]algorithms.InputKind{"acquire": algorithms.Acquire, "extend": algorithms.Extend, "release": algorithms.Relinquish}[cmd]
	in := algorithms.Input{Kind: kind, Resource: r}
	s := rp.s
	if !s.Input(n, in) {
		return rp.fail("%s %s: node is down", cmd, args[0])
	}
	if kind == algorithms.Relinquish {
		// The client gives up its claim, an acquisition in progress
		// included (algorithms.Relinquish): no answer is due any more.
		s.rec.Withdraw(s.now, n, r)
	}
	s.rec.Request(s.now, n, s.clock[n].Local(s.now), in)
	s.settle(s.now)
	return nil
}

// crashOrRestart: crash|restart NODE.
func (rp *replayer) crashOrRestart(cmd string, args []string) error {
	if err := wantArgs(args, 1, cmd+" NODE"); err != nil {
		return err
	}
	n, err := rp.node(args[0])
	if err != nil {
		return err
	}
	if cmd == "crash" {
		if !rp.s.Up(n) {
			return rp.fail("crash %s: already down", args[0])
		}
		rp.s.Crash(n)
	} else {
		if rp.s.Up(n) {
			return rp.fail("restart %s: already up", args[0])
		}
		rp.s.Restart(n)
	}
	rp.s.settle(rp.s.now)
	return nil
}

// fail records a failed expectation (or a step that could not be done).
func (rp *replayer) fail(format string, a ...any) error {
	msg := fmt.Sprintf("line %d: ", rp.line) + fmt.Sprintf(format, a...)
	rp.res.Failed = append(rp.res.Failed, msg)
	fmt.Fprintf(rp.w, "  FAILED: %s\n", msg)
	rp.tx.line("  FAILED: %s", msg)
	return nil
}

// scenarioParams are the parameters each setup command sets, spelled as
// in runner's parameter table (the command line's flags without "--").
var scenarioParams = map[string][]runner.Param{
	"cluster": runner.NamedParams("acceptors", "proposers"),
	"params":  runner.ParamsOf(runner.GroupProtocol),
	"disk":    runner.NamedParams("fsync-latency", "group-commit"),
}

// setParams sets the KEY=VALUE arguments of a setup command: keys are
// parameters of ps.
func (rp *replayer) setParams(cmd string, args []string, ps []runner.Param) error {
	kv, err := parseKV(args)
	if err != nil {
		return err
	}
	pairs := make([][2]string, len(kv))
	for i, kp := range kv {
		pairs[i] = [2]string{kp.key, kp.val}
	}
	return runner.SetParams(&rp.spec, cmd, ps, pairs)
}

// selectPending finds the pending messages SEL names.
func (rp *replayer) selectPending(args []string) ([]int, error) {
	s := rp.s
	if len(args) == 1 && args[0] == "all" {
		idx := make([]int, len(s.pending))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	if len(args) == 1 {
		id, err := strconv.Atoi(strings.TrimPrefix(args[0], "#"))
		if err != nil {
			return nil, fmt.Errorf("bad message id %q", args[0])
		}
		for i, p := range s.pending {
			if p.id == id {
				return []int{i}, nil
			}
		}
		return nil, nil
	}
	if len(args) != 2 && len(args) != 3 {
		return nil, fmt.Errorf("want ID, all, or KIND FROM->TO [RES]")
	}
	kind, err := parseKind(args[0])
	if err != nil {
		return nil, err
	}
	from, to, ok := strings.Cut(args[1], "->")
	if !ok {
		return nil, fmt.Errorf("want FROM->TO, got %q", args[1])
	}
	fn, err := parseNode(from)
	if err != nil {
		return nil, err
	}
	tn, err := parseNode(to)
	if err != nil {
		return nil, err
	}
	var res *algorithms.ResourceID
	if len(args) == 3 {
		r, err := parseRes(args[2])
		if err != nil {
			return nil, err
		}
		res = &r
	}
	for i, p := range s.pending {
		m := p.msg
		if m.Kind == kind && m.From == fn && m.To == tn && (res == nil || m.Resource == *res) {
			return []int{i}, nil
		}
	}
	return nil, nil
}

func (rp *replayer) message(cmd string, args []string) error {
	s := rp.s
	idx, err := rp.selectPending(args)
	if err != nil {
		return err
	}
	if len(idx) == 0 {
		if len(args) == 1 && args[0] == "all" {
			return nil
		}
		return rp.fail("%s %s: no such pending message", cmd, strings.Join(args, " "))
	}
	// Take the selected messages out first (all: those pending now), then
	// act on them in order; what they cause is pending afterwards.
	msgs := make([]pendingMsg, len(idx))
	for i, k := range idx {
		msgs[i] = s.pending[k]
	}
	if cmd != "dup" {
		keep := s.pending[:0]
		j := 0
		for i, p := range s.pending {
			if j < len(idx) && idx[j] == i {
				j++
				continue
			}
			keep = append(keep, p)
		}
		s.pending = keep
	}
	for _, p := range msgs {
		m := p.msg
		switch cmd {
		case "deliver":
			s.deliver(&m)
		case "drop":
			s.drop(&m, record.DropScript)
		case "dup":
			if s.tr != nil {
				s.tr.Add(&record.TraceRec{T: s.now, Local: s.clock[m.From].Local(s.now), Kind: record.TraceDup, Node: m.From, Msg: m})
			}
			s.deliver(&m)
		}
		s.settle(s.now)
	}
	return nil
}

// expect runs an "expect" command: a check of the run's state now.
func (rp *replayer) expect(args []string) error {
	s := rp.s
	if len(args) == 0 {
		return fmt.Errorf("expect what? (holder, grant, violations, acquired, failed, unanswered, pending, static-deadlocks, writes, stale-writes, fenced-rejects, token-ties)")
	}
	s.rec.Checker().Advance(s.now)
	if args[0] == "violations" {
		rp.res.ExpectsViolations = true
	}
	if ok, err := rp.expectStore(args); ok {
		return err
	}
	// Each check prints ok itself: a failed expectation is recorded by
	// rp.fail and returns nil, so the caller cannot tell it from a pass.
	switch args[0] {
	case "holder":
		return rp.expectHolder(args)
	case "grant":
		return rp.expectGrant(args)
	case "violations":
		_, n := s.rec.Checker().Violations()
		return rp.expectCount(args, "violations", n+s.rec.Checker().OpenViolations())
	case "acquired":
		return rp.expectCount(args, "acquired", s.rec.Acquired())
	case "failed":
		return rp.expectCount(args, "failed", s.rec.Failed())
	case "unanswered":
		return rp.expectCount(args, "unanswered", s.rec.Unanswered())
	case "pending":
		return rp.expectCount(args, "pending", len(s.pending))
	case "static-deadlocks":
		return rp.expectStaticDeadlocks(args)
	default:
		return fmt.Errorf("expect: unknown check %q (holder, grant, violations, acquired, failed, unanswered, pending, static-deadlocks, writes, stale-writes, fenced-rejects, token-ties)", args[0])
	}
}

// expectCount checks "expect NAME N" against got.
func (rp *replayer) expectCount(args []string, name string, got int) error {
	if err := wantArgs(args, 2, "expect "+name+" N"); err != nil {
		return err
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("expect %s: bad number %q", name, args[1])
	}
	if got != n {
		return rp.fail("expect %s %d: got %d", name, n, got)
	}
	rp.ok()
	return nil
}

// expectHolder checks "expect holder RES NODE|none" against the checker's
// holders now.
func (rp *replayer) expectHolder(args []string) error {
	if err := wantArgs(args, 3, "expect holder RES NODE|none"); err != nil {
		return err
	}
	r, err := parseRes(args[1])
	if err != nil {
		return err
	}
	holders := rp.s.rec.Checker().Holders(r)
	if args[2] == "none" {
		if len(holders) != 0 {
			return rp.fail("expect holder r%d none: held by %v", r, holders)
		}
	} else {
		n, err := rp.node(args[2])
		if err != nil {
			return err
		}
		if len(holders) != 1 || holders[0] != n {
			return rp.fail("expect holder r%d %s: holders are %v", r, n, holders)
		}
	}
	rp.ok()
	return nil
}

// expectGrant checks "expect grant ACCEPTOR RES OWNER|none" against the
// acceptor's grant now.
func (rp *replayer) expectGrant(args []string) error {
	s := rp.s
	if err := wantArgs(args, 4, "expect grant ACCEPTOR RES OWNER|none"); err != nil {
		return err
	}
	a, err := rp.node(args[1])
	if err != nil {
		return err
	}
	r, err := parseRes(args[2])
	if err != nil {
		return err
	}
	owner, ok := s.rec.Grant(s.now, a, r)
	if args[3] == "none" {
		if ok {
			return rp.fail("expect grant %s r%d none: granted to %s", a, r, owner)
		}
	} else {
		n, err := rp.node(args[3])
		if err != nil {
			return err
		}
		if !ok || owner != n {
			what := "no grant"
			if ok {
				what = "granted to " + owner.String()
			}
			return rp.fail("expect grant %s r%d %s: %s", a, r, n, what)
		}
	}
	rp.ok()
	return nil
}

// expectStaticDeadlocks checks "expect static-deadlocks N [D]": the
// number of static deadlocks so far and, with D, how long they lasted.
func (rp *replayer) expectStaticDeadlocks(args []string) error {
	s := rp.s
	if len(args) != 2 && len(args) != 3 {
		return fmt.Errorf("usage: expect static-deadlocks N [D]")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("expect static-deadlocks: bad number %q", args[1])
	}
	got, ns := s.rec.StaticDeadlocks(s.now)
	if got != n {
		return rp.fail("expect static-deadlocks %d: got %d (%v)", n, got, time.Duration(ns))
	}
	if len(args) == 3 {
		d, err := time.ParseDuration(args[2])
		if err != nil {
			return fmt.Errorf("expect static-deadlocks: bad duration %q", args[2])
		}
		if time.Duration(ns) != d {
			return rp.fail("expect static-deadlocks %d %v: lasted %v", n, d, time.Duration(ns))
		}
	}
	rp.ok()
	return nil
}

// settle runs every event due up to true time until, in order, and leaves
// the clock at until.
func (s *sim) settle(until int64) {
	s.instant = s.now
	for s.err == nil {
		e, ok := s.next(until)
		if !ok {
			break
		}
		s.now, s.instant = e.t, e.t
		s.rec.Checker().Advance(e.t)
		s.dispatch(e)
	}
	if until > s.now {
		s.now, s.instant = until, until
	}
	s.rec.Checker().Advance(s.now)
}

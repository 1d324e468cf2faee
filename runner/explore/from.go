package explore

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
)

// prefix is a scenario file's path (Config.From): the search starts where
// it ends. The setup lines configure the search; the commands run, in the
// scenario interpreter's semantics (runner/sim/testdata/README.md), on
// the initial state before any budget is spent, and open every
// counterexample.
type prefix struct {
	clocks []faults.Clock // set before the start
	rates  bool           // a clock set after the start has a rate error
	lines  []string       // the commands, as written (for counterexamples)
	cmds   []pcmd
}

// pcmd is one command of the prefix.
type pcmd struct {
	line  int
	verb  string
	node  algorithms.NodeID
	res   algorithms.ResourceID
	in    algorithms.InputKind
	id    int32 // message number; 0 with all
	all   bool
	d     time.Duration
	clock faults.Clock // the keys set (setOffset, setRate)

	setOffset, setRate bool
}

// parsePrefix reads c.From, sets c's configuration from its setup lines
// and returns its commands.
func parsePrefix(c *Config) (*prefix, error) {
	name := c.FromName
	if name == "" {
		name = "the scenario"
	}
	// The scenario interpreter's defaults (runner/sim's scenarioSpec).
	spec := runner.DefaultSpec()
	spec.Algo = "naive"
	spec.Acceptors, spec.Proposers = 3, 3
	spec.Disk = runner.DiskSpec{FsyncLatency: 2 * time.Millisecond, GroupCommit: true}
	spec.Seed = 1
	p := &prefix{}
	pre := map[algorithms.NodeID]faults.Clock{}
	started := false
	sc := bufio.NewScanner(strings.NewReader(c.From))
	line := 0
	bad := func(format string, a ...any) error {
		return badf("%s line %d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		cmd, args := f[0], f[1:]
		switch cmd {
		case "algo", "cluster", "params", "disk", "ablate", "seed":
			if started {
				return nil, bad("%q must come before the first action", cmd)
			}
			if err := setupLine(&spec, cmd, args); err != nil {
				return nil, bad("%v", err)
			}
			continue
		case "start":
			started = true
			continue
		case "pending", "expect":
			started = true
			continue // what the scenario checks is not part of the path
		case "repeat":
			return nil, bad("repeat is not supported by --from (write the commands out)")
		}
		pc := pcmd{line: line, verb: cmd}
		var err error
		switch cmd {
		case "clock":
			if err = parseClockLine(&pc, args); err == nil && !started {
				pre[pc.node] = pc.apply(pre[pc.node])
				continue
			}
			if pc.setRate && pc.clock.RatePPB != 0 {
				p.rates = true
			}
		default:
			err = parseCommand(&pc, cmd, args)
		}
		if err != nil {
			return nil, bad("%v", err)
		}
		started = true
		p.cmds = append(p.cmds, pc)
		p.lines = append(p.lines, strings.Join(f, " "))
	}
	if err := sc.Err(); err != nil {
		return nil, badf("%s: %v", name, err)
	}
	if err := p.configure(c, &spec, pre, name); err != nil {
		return nil, err
	}
	return p, nil
}

// parseCommand reads the arguments of a command of the path other than
// clock (which parsePrefix reads: a clock line before the first action is
// setup) into pc. It is apart from parsePrefix, which reads the file line
// by line, so that the commands' syntax reads in one place.
func parseCommand(pc *pcmd, cmd string, args []string) error {
	var err error
	switch cmd {
	case "acquire", "extend", "release":
		if len(args) != 2 {
			return fmt.Errorf("usage: %s NODE RES", cmd)
		}
		pc.in = map[string]algorithms.InputKind{"acquire": algorithms.Acquire, "extend": algorithms.Extend, "release": algorithms.Relinquish}[cmd]
		if pc.node, err = nodeArg(args[0]); err == nil {
			pc.res, err = resArg(args[1])
		}
	case "deliver", "drop", "dup":
		if len(args) != 1 {
			return fmt.Errorf("%s: --from takes a message number or all (got %q)", cmd, strings.Join(args, " "))
		}
		if args[0] == "all" {
			pc.all = true
		} else {
			var id int
			id, err = strconv.Atoi(strings.TrimPrefix(args[0], "#"))
			if err != nil || id < 1 {
				err = fmt.Errorf("bad message number %q", args[0])
			}
			pc.id = int32(id)
		}
	case "advance":
		if len(args) != 1 {
			return fmt.Errorf("usage: advance DURATION")
		}
		pc.d, err = time.ParseDuration(args[0])
		if err == nil && pc.d < 0 {
			err = fmt.Errorf("advance: bad duration %q", args[0])
		}
	case "crash", "restart":
		if len(args) != 1 {
			return fmt.Errorf("usage: %s NODE", cmd)
		}
		pc.node, err = nodeArg(args[0])
	default:
		return fmt.Errorf("unknown command %q", cmd)
	}
	return err
}

// configure sets c from the setup lines' spec, and p's clocks from the
// clock lines before the start, once the whole file is read: only then is
// the cluster's size known, to check the nodes the lines name.
func (p *prefix) configure(c *Config, spec *runner.Spec, pre map[algorithms.NodeID]faults.Clock, name string) error {
	if !spec.Disk.GroupCommit {
		return badf("%s: the explorer's disk has group commit (group-commit=false is not supported)", name)
	}
	c.Algo, c.Acceptors, c.Proposers = spec.Algo, spec.Acceptors, spec.Proposers
	c.Params, c.Ablate, c.Seed, c.FsyncLatency = spec.Params, spec.Ablate, spec.Seed, spec.Disk.FsyncLatency
	nodes := algorithms.NewCluster(c.Acceptors, c.Proposers).Nodes
	p.clocks = make([]faults.Clock, nodes)
	for n, ck := range pre {
		if int(n) >= nodes {
			return badf("%s: clock: node %s does not exist (cluster of %d)", name, n, nodes)
		}
		p.clocks[n] = ck
	}
	for _, pc := range p.cmds {
		if pc.verb != "advance" && int(pc.node) >= nodes {
			return badf("%s line %d: node %s does not exist (cluster of %d)", name, pc.line, pc.node, nodes)
		}
	}
	return nil
}

// setupLine applies a setup command to spec.
func setupLine(spec *runner.Spec, cmd string, args []string) error {
	switch cmd {
	case "algo":
		if len(args) != 1 {
			return fmt.Errorf("usage: algo NAME")
		}
		spec.Algo = args[0]
	case "ablate":
		if len(args) != 1 {
			return fmt.Errorf("usage: ablate NAME[,NAME...]")
		}
		spec.Ablate = strings.Split(args[0], ",")
	case "seed":
		if len(args) != 1 {
			return fmt.Errorf("usage: seed N")
		}
		v, err := strconv.ParseUint(args[0], 10, 64)
		if err != nil {
			return fmt.Errorf("bad seed %q", args[0])
		}
		spec.Seed = v
	default:
		ps := map[string][]runner.Param{
			"cluster": runner.NamedParams("acceptors", "proposers"),
			"params":  runner.ParamsOf(runner.GroupProtocol),
			"disk":    runner.NamedParams("fsync-latency", "group-commit"),
		}[cmd]
		var kv [][2]string
		for _, a := range args {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" || v == "" {
				return fmt.Errorf("expected key=value, got %q", a)
			}
			kv = append(kv, [2]string{k, v})
		}
		return runner.SetParams(spec, cmd, ps, kv)
	}
	return nil
}

// parseClockLine reads "clock NODE offset=D rate=F" into pc: the keys
// given (a key not given keeps the value the node's clock has when the
// line runs, as in the scenario interpreter).
func parseClockLine(pc *pcmd, args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: clock NODE offset=D rate=F")
	}
	n, err := nodeArg(args[0])
	if err != nil {
		return err
	}
	pc.node = n
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("expected key=value, got %q", a)
		}
		switch k {
		case "offset":
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("clock offset: bad duration %q", v)
			}
			pc.clock.Offset, pc.setOffset = int64(d), true
		case "rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r <= -0.5 || r >= 0.5 {
				return fmt.Errorf("clock rate: want a number in (-0.5, 0.5), got %q", v)
			}
			pc.clock.RatePPB, pc.setRate = faults.NewClock(0, r).RatePPB, true
		default:
			return fmt.Errorf("clock: unknown key %q (valid: offset, rate)", k)
		}
	}
	return nil
}

// apply sets the keys pc gives on ck.
func (pc *pcmd) apply(ck faults.Clock) faults.Clock {
	if pc.setOffset {
		ck.Offset = pc.clock.Offset
	}
	if pc.setRate {
		ck.RatePPB = pc.clock.RatePPB
	}
	return ck
}

func nodeArg(s string) (algorithms.NodeID, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "n"), 10, 16)
	if err != nil || v >= uint64(algorithms.NoNode) {
		return 0, fmt.Errorf("bad node %q (want n0, n1, ...)", s)
	}
	return algorithms.NodeID(v), nil
}

func resArg(s string) (algorithms.ResourceID, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "r"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad resource %q (want r0, r1, ...)", s)
	}
	return algorithms.ResourceID(v), nil
}

// run executes the prefix on the initial state x.w.
func (p *prefix) run(x *exec) error {
	for _, pc := range p.cmds {
		if err := p.step(x, &pc); err != nil {
			return badf("--from line %d (%s): %v", pc.line, pc.verb, err)
		}
		if x.err != nil {
			return x.err
		}
	}
	return nil
}

func (p *prefix) step(x *exec, pc *pcmd) error {
	w := x.w
	switch pc.verb {
	case "acquire", "extend", "release":
		if !w.up(pc.node) {
			return fmt.Errorf("node %s is down", pc.node)
		}
		x.input(pc.node, pc.in, pc.res)
		x.schedule(qev{kind: qInput, node: pc.node, in: pc.in, res: pc.res})
		x.settle()
	case "deliver", "drop", "dup":
		var sel []pmsg
		for _, m := range w.pending {
			if pc.all || m.id == pc.id {
				sel = append(sel, m)
			}
		}
		if len(sel) == 0 && !pc.all {
			return fmt.Errorf("no pending message #%d", pc.id)
		}
		if pc.verb != "dup" {
			k := 0
			for _, m := range w.pending {
				if pc.all || m.id == pc.id {
					continue
				}
				w.pending[k] = m
				k++
			}
			w.pending = w.pending[:k]
		}
		for _, m := range sel {
			if pc.verb != "drop" {
				x.deliver(&m.msg)
			}
			x.settle()
		}
	case "advance":
		target := w.now + int64(pc.d)
		for t := w.nextDeadline(); t != never && t <= target; t = w.nextDeadline() {
			w.now = t
			x.advanceHolds(t)
			x.settle()
		}
		w.now = target
		x.advanceHolds(target)
		x.settle()
	case "crash":
		if !w.up(pc.node) {
			return fmt.Errorf("node %s is already down", pc.node)
		}
		x.crash(pc.node)
		x.settle()
	case "restart":
		if w.up(pc.node) {
			return fmt.Errorf("node %s is already up", pc.node)
		}
		x.start(pc.node, true)
		x.settle()
	case "clock":
		x.setClock(pc.node, pc.apply(w.clk[pc.node]))
		x.settle()
	}
	return nil
}

package campaign

import (
	"container/heap"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/sim"
)

// A recording is a simulated run taken apart into what a scenario file
// (runner/sim/testdata/README.md) has to spell out, so that it can be
// played again as a scenario and shrunk:
//
//   - the clocks at the start, and the client inputs, crashes, restarts
//     and clock slews, each at its true time (ext);
//   - every message between two nodes (msgs): when it was sent and what
//     the network did with it: the delay of each copy that arrived
//     (none: lost or cut off by a partition; two: duplicated).
//
// What a scenario does by itself — timers, a node's messages to itself,
// fsyncs — is left to it. Playing a recording (play) drives a scenario
// with a network of its own: each message that becomes pending is matched
// to the recorded message of the same kind, sender, receiver and resource
// sent at the same instant, and is delivered (deliver, or dup for a copy
// while another is still to come) after the recorded delays; a message
// that matches none — the run went otherwise because something was left
// out — is delivered after the mean one-way delay, RTT/2. Played whole, a
// recording gives the run again (see ShrinkResult.Faithful for where it
// can differ); shrinking leaves parts out (see Shrink).
type recording struct {
	spec runner.Spec
	boot []faults.Clock
	ext  []extAction
	msgs []recMsg
	// end: the true time the run's first violation began (the run's end
	// if there was none); nothing after it is played.
	end int64
	// first: the run's first violation, if any.
	first    runner.Violation
	violated bool
	// acquired: the run's leases acquired (LeasesAcquired).
	acquired int
	// keys: the messages by kind, sender, receiver and resource, in send
	// order (built by the first play).
	keys map[msgKey][]int
}

type extKind uint8

const (
	extInput extKind = iota + 1
	extCrash
	extRestart
	extClock // a slew or a clock jump: the node's clock model from now on
	extPause // a process pause of length dur
)

// extAction is a client input, crash, restart or slew at true time t;
// seq is its place in the run's trace (it orders what happens at one
// instant).
type extAction struct {
	t     int64
	seq   int64
	kind  extKind
	node  algorithms.NodeID
	res   algorithms.ResourceID
	input algorithms.InputKind
	clock faults.Clock
	dur   int64 // extPause: the pause's length
}

// recMsg is a message between two nodes and its fate in the run.
type recMsg struct {
	t   int64 // sent
	msg algorithms.Message
	// arrivals: each copy that reached the receiver (or found it down),
	// in order: its delay after t and its place in the trace.
	arrivals []arrival
	copies   int // copies the network made (0: lost at once)
}

type arrival struct{ delay, seq int64 }

// late: a copy arrived later than the network's worst ordinary delay
// (reordered, or held in a stalled link).
func (m *recMsg) late(spec runner.Spec) bool {
	worst := int64(spec.Net.RTT/2 + spec.Net.Jitter)
	for _, a := range m.arrivals {
		if a.delay > worst {
			return true
		}
	}
	return false
}

// faulty: the network did something to m besides delivering it once in
// ordinary time.
func (m *recMsg) faulty(spec runner.Spec) bool { return m.copies != 1 || m.late(spec) }

// recordRun runs plan in the simulator and records it.
func recordRun(plan runner.Plan) (*recording, error) {
	spec := plan.Spec
	w := &recorder{
		rc:       &recording{spec: spec, end: int64(spec.Duration + spec.Settle)},
		nodes:    algorithms.NewCluster(spec.Acceptors, spec.Proposers).Nodes,
		inflight: map[algorithms.Message][]int{},
	}
	res, err := sim.RunPlan(plan, runner.Options{Observers: []runner.Observer{w}})
	if err != nil {
		return nil, err
	}
	if w.bad != nil {
		return nil, w.bad
	}
	rc := w.rc
	rc.acquired = res.LeasesAcquired
	if len(res.ViolationList) > 0 {
		rc.first, rc.violated = earliest(res.ViolationList), true
		rc.end = rc.first.StartNS
	}
	return rc, nil
}

// recorder observes a simulated run's trace and builds its recording as
// the records come: a message's fate is only known when its copies
// arrive, so the messages still in the network are kept apart.
type recorder struct {
	rc    *recording
	nodes int
	// inflight: for each content, the messages the network still holds a
	// copy of, oldest first (equal contents are interchangeable).
	inflight map[algorithms.Message][]int
	seq      int64 // the current record's place in the trace
	bad      error // the first record the recording cannot explain
}

// Observe files one trace record (runner.Observer).
func (w *recorder) Observe(r *runner.TraceRec) {
	w.seq++
	rc := w.rc
	// A node's messages to itself are the scenario's own business.
	self := r.Msg.From == r.Msg.To
	switch r.Kind {
	case runner.TraceClock:
		if len(rc.boot) < w.nodes {
			// The boot writes every node's clock before anything else.
			rc.boot = append(rc.boot, faults.Clock{Offset: r.X, RatePPB: r.Y})
		} else {
			w.ext(r, extAction{kind: extClock, node: r.Node, clock: faults.Clock{Offset: r.X, RatePPB: r.Y}})
		}
	case runner.TraceSend:
		if !self {
			w.inflight[r.Msg] = append(w.inflight[r.Msg], len(rc.msgs))
			rc.msgs = append(rc.msgs, recMsg{t: r.T, msg: r.Msg, copies: 1})
		}
	case runner.TraceDup:
		if !self {
			rc.msgs[len(rc.msgs)-1].copies++ // the send just made
		}
	case runner.TraceDrop:
		if self {
			break
		}
		if r.Sub == runner.DropLoss || r.Sub == runner.DropPartition {
			w.lost(r)
			break
		}
		w.arrive(r) // the receiver is down
	case runner.TraceDeliver:
		if !self {
			w.arrive(r)
		}
	case runner.TraceInput:
		w.ext(r, extAction{kind: extInput, node: r.Node, res: r.Res, input: algorithms.InputKind(r.Sub)})
	case runner.TraceCrash:
		w.ext(r, extAction{kind: extCrash, node: r.Node})
	case runner.TraceRestart:
		w.ext(r, extAction{kind: extRestart, node: r.Node})
	case runner.TracePause:
		w.ext(r, extAction{kind: extPause, node: r.Node, dur: r.X})
	}
}

// lost records that the network dropped r's message as it was sent: the
// send just made, so it is the last of its content in flight.
func (w *recorder) lost(r *runner.TraceRec) {
	w.rc.msgs[len(w.rc.msgs)-1].copies = 0
	q := w.inflight[r.Msg]
	if q = q[:len(q)-1]; len(q) == 0 {
		delete(w.inflight, r.Msg)
	} else {
		w.inflight[r.Msg] = q
	}
}

// arrive records that a copy of r's message reached its receiver (or
// found it down): the oldest message of that content in flight, which
// leaves the network once all its copies have arrived.
func (w *recorder) arrive(r *runner.TraceRec) {
	q := w.inflight[r.Msg]
	if len(q) == 0 {
		if w.bad == nil {
			w.bad = fmt.Errorf("recording seed %d: %v arrived at %v without being sent", w.rc.spec.Seed, r.Msg, time.Duration(r.T))
		}
		return
	}
	m := &w.rc.msgs[q[0]]
	m.arrivals = append(m.arrivals, arrival{delay: r.T - m.t, seq: w.seq})
	if len(m.arrivals) < m.copies {
		return
	}
	if len(q) == 1 {
		delete(w.inflight, r.Msg)
	} else {
		w.inflight[r.Msg] = q[1:]
	}
}

// ext records external action a at r's time and place in the trace.
func (w *recorder) ext(r *runner.TraceRec, a extAction) {
	a.t, a.seq = r.T, w.seq
	w.rc.ext = append(w.rc.ext, a)
}

// earliest is the violation that began first (the checker lists them as
// they end); vs is not empty.
func earliest(vs []runner.Violation) runner.Violation {
	first := vs[0]
	for _, v := range vs[1:] {
		if v.StartNS < first.StartNS {
			first = v
		}
	}
	return first
}

// fate is what a candidate does with a recorded message.
type fate uint8

const (
	fateRecorded fate = iota // as in the run
	fateOrdinary             // delivered once after RTT/2: its fault left out
	fateDropped              // never delivered
)

// candidate is a recording with parts left out: the clocks at the start,
// the external actions kept (by index into recording.ext) and each
// recorded message's fate.
type candidate struct {
	boot []faults.Clock
	ext  []int
	fate []fate
}

// whole is the recording with nothing left out.
func (rc *recording) whole() candidate {
	c := candidate{boot: rc.boot, ext: make([]int, len(rc.ext)), fate: make([]fate, len(rc.msgs))}
	for i := range c.ext {
		c.ext[i] = i
	}
	return c
}

// played is what playing a candidate gave.
type played struct {
	text     string // the scenario file (if asked for)
	commands int    // its action lines (setup, clocks and start not counted)
	violated bool
	first    runner.Violation
	acquired int // leases acquired (LeasesAcquired)
	// matched: the recorded messages the play sent; delivered: those it
	// delivered.
	matched, delivered []int
}

// delivery is a copy of a pending message due at true time at.
type delivery struct {
	at, seq int64
	id      int  // pending number
	rec     int  // recorded message, -1 if none matched
	last    bool // the last copy: deliver (not dup)
}

type deliveries []delivery

func (d deliveries) Len() int { return len(d) }
func (d deliveries) Less(i, j int) bool {
	if d[i].at != d[j].at {
		return d[i].at < d[j].at
	}
	return d[i].seq < d[j].seq
}
func (d deliveries) Swap(i, j int) { d[i], d[j] = d[j], d[i] }
func (d *deliveries) Push(x any)   { *d = append(*d, x.(delivery)) }
func (d *deliveries) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

// matcher finds the recorded message a pending one stands for: one of
// the same kind between the same nodes on the same resource, sent at the
// same instant or, failing that, the one sent nearest to it within a
// lease span that no other has taken. A candidate that left something out
// sends its messages at other times, or with other contents (another
// ballot, span or expiry); the nearest stand-in keeps the fault the
// network did to the message it stands for.
type matcher struct {
	rc   *recording
	keys map[msgKey][]int // recorded messages by key, in send order
	used []bool
	tol  int64
}

type msgKey struct {
	kind     algorithms.Kind
	from, to algorithms.NodeID
	res      algorithms.ResourceID
}

func keyOf(m algorithms.Message) msgKey { return msgKey{m.Kind, m.From, m.To, m.Resource} }

func newMatcher(rc *recording) *matcher {
	if rc.keys == nil {
		rc.keys = map[msgKey][]int{}
		for i := range rc.msgs {
			k := keyOf(rc.msgs[i].msg)
			rc.keys[k] = append(rc.keys[k], i)
		}
	}
	return &matcher{rc: rc, keys: rc.keys, used: make([]bool, len(rc.msgs)), tol: int64(rc.spec.Params.LeaseSpan)}
}

// take returns the recorded message m, sent at t, stands for (and uses
// it up), or -1.
func (mt *matcher) take(t int64, m algorithms.Message) int {
	ids := mt.keys[keyOf(m)]
	// The first recorded send at t or later.
	j := sort.Search(len(ids), func(i int) bool { return mt.rc.msgs[ids[i]].t >= t })
	best, bestD := -1, mt.tol+1
	for k := j; k < len(ids); k++ {
		i := ids[k]
		d := mt.rc.msgs[i].t - t
		if d >= bestD {
			break
		}
		if !mt.used[i] {
			best, bestD = i, d
			break
		}
	}
	for k := j - 1; k >= 0; k-- {
		i := ids[k]
		d := t - mt.rc.msgs[i].t
		if d >= bestD {
			break
		}
		if !mt.used[i] {
			best, bestD = i, d
			break
		}
	}
	if best >= 0 {
		mt.used[best] = true
	}
	return best
}

// play runs candidate c as a scenario up to rc.end or the first
// violation, whichever comes first, and says whether it violated the
// lease invariant; with text, it also writes the scenario file.
// External actions that have become impossible (an input to a node that
// is down, a crash of one that is, a restart of one that is up) are left
// out.
func (rc *recording) play(c candidate, text bool) (played, error) {
	pl := &player{
		rc: rc, c: c, text: text,
		sc:       sim.NewScript(),
		match:    newMatcher(rc),
		ordinary: int64(rc.spec.Net.RTT / 2),
		// A message that matches no recorded one comes after those that
		// do at the same instant, in send order.
		unmatched: int64(1) << 62,
	}
	if err := pl.begin(); err != nil {
		return pl.p, err
	}
	if err := pl.run(); err != nil {
		return pl.p, err
	}
	return pl.finish()
}

// player is one play of a candidate: the script it drives, the text
// written so far, the network's deliveries still due and where the play
// stands in the recording. Its steps share this state, so it is a value
// rather than arguments passed along.
type player struct {
	rc   *recording
	c    candidate
	text bool
	sc   *sim.Script
	b    strings.Builder
	p    played

	match     *matcher
	ordinary  int64 // the delay of a message delivered in ordinary time
	due       deliveries
	silent    []int // pending messages nobody will deliver: dropped unwritten
	unmatched int64 // the order key of the last unmatched message

	// now: the script's time; written: the time the text has advanced
	// to; next: the next of c.ext.
	now, written int64
	next         int
}

// write adds a line (and a comment after it) to the text, if asked for.
func (pl *player) write(line, comment string) {
	if pl.text {
		pl.b.WriteString(line)
		if comment != "" {
			fmt.Fprintf(&pl.b, "%*s# %s", max(1, 24-len(line)), "", comment)
		}
		pl.b.WriteByte('\n')
	}
}

// setup runs and writes a setup line (not counted as a command).
func (pl *player) setup(line string) error {
	pl.write(line, "")
	return pl.sc.Exec(line)
}

// begin sets the scenario up as the recorded run was (its setup and the
// clocks at the start), gives it the play's network and starts it.
func (pl *player) begin() error {
	for _, l := range scenarioSetup(pl.rc.spec) {
		if err := pl.setup(l); err != nil {
			return fmt.Errorf("scenario setup %q: %w", l, err)
		}
	}
	for i, ck := range pl.c.boot {
		if ck != (faults.Clock{}) {
			if err := pl.setup(clockLine(algorithms.NodeID(i), ck)); err != nil {
				return err
			}
		}
	}
	pl.sc.OnPending(pl.pending)
	return pl.setup("start")
}

// pending decides what the network does with a message that has just
// become pending: what the candidate says for the recorded message it
// stands for, or ordinary delivery if it stands for none.
func (pl *player) pending(id int, m algorithms.Message) {
	now := pl.sc.Now()
	rec := pl.match.take(now, m)
	if rec >= 0 {
		pl.p.matched = append(pl.p.matched, rec)
	}
	f := fateOrdinary
	if rec >= 0 {
		f = pl.c.fate[rec]
	}
	switch f {
	case fateRecorded:
		as := pl.rc.msgs[rec].arrivals
		for i, a := range as {
			heap.Push(&pl.due, delivery{at: now + a.delay, seq: a.seq, id: id, rec: rec, last: i == len(as)-1})
		}
		if len(as) == 0 {
			pl.silent = append(pl.silent, id)
		}
	case fateOrdinary:
		pl.unmatched++
		heap.Push(&pl.due, delivery{at: now + pl.ordinary, seq: pl.unmatched, id: id, rec: rec, last: true})
	case fateDropped:
		pl.silent = append(pl.silent, id)
	}
}

// run advances the script event by event (its own events, the deliveries
// due, the external actions) up to rc.end or the first violation. The
// text says an advance only where a command follows, so the advances
// between two commands merge.
func (pl *player) run() error {
	for {
		// Messages nobody will deliver leave the pending list (the text
		// leaves them pending: never delivered either way).
		for _, id := range pl.silent {
			if err := pl.sc.Do("drop", strconv.Itoa(id)); err != nil {
				return err
			}
		}
		pl.silent = pl.silent[:0]
		if t := pl.nextTime(); t > pl.now {
			// Everything of this instant has run: a violation that began
			// is one (an overlap that ends at the instant it began does
			// not count).
			if pl.sc.Violations() > 0 || t > pl.rc.end {
				return nil
			}
			if err := pl.sc.Do("advance", time.Duration(t-pl.now).String()); err != nil {
				return err
			}
			pl.now = t
			continue
		}
		// Of the external actions and deliveries due now, the one that
		// came first in the run's trace.
		var a *extAction
		if pl.next < len(pl.c.ext) && pl.rc.ext[pl.c.ext[pl.next]].t == pl.now {
			a = &pl.rc.ext[pl.c.ext[pl.next]]
		}
		if len(pl.due) > 0 && pl.due[0].at == pl.now && (a == nil || pl.due[0].seq < a.seq) {
			if err := pl.deliver(); err != nil {
				return err
			}
			continue
		}
		pl.next++
		if fields, ok := pl.extFields(a); ok {
			if err := pl.step("", fields...); err != nil {
				return err
			}
		}
	}
}

// nextTime is when the next thing happens: the next external action, the
// next delivery due, the script's next event, or just past rc.end.
func (pl *player) nextTime() int64 {
	t := pl.rc.end + 1
	if pl.next < len(pl.c.ext) {
		t = min(t, pl.rc.ext[pl.c.ext[pl.next]].t)
	}
	if len(pl.due) > 0 {
		t = min(t, pl.due[0].at)
	}
	if e, ok := pl.sc.NextEvent(); ok && e > pl.now {
		t = min(t, e)
	}
	return t
}

// deliver delivers the first copy due (dup while another copy of the
// message is still to come).
func (pl *player) deliver() error {
	d := heap.Pop(&pl.due).(delivery)
	verb := "deliver"
	if !d.last {
		verb = "dup"
	}
	comment := ""
	if pl.text {
		comment = pendingComment(pl.sc, d.id)
	}
	if err := pl.step(comment, verb, strconv.Itoa(d.id)); err != nil {
		return err
	}
	if d.last && d.rec >= 0 {
		pl.p.delivered = append(pl.p.delivered, d.rec)
	}
	return nil
}

// extFields is the command for external action a, or !ok if it has
// become impossible (an input to a node that is down, a crash of one
// that is, a restart of one that is up, a pause of one down or paused).
func (pl *player) extFields(a *extAction) (fields []string, ok bool) {
	switch a.kind {
	case extInput:
		if !pl.sc.Up(a.node) {
			return nil, false
		}
		fields = []string{a.input.String(), a.node.String(), "r" + strconv.FormatUint(uint64(a.res), 10)}
	case extCrash, extRestart:
		if pl.sc.Up(a.node) != (a.kind == extCrash) {
			return nil, false
		}
		fields = []string{map[extKind]string{extCrash: "crash", extRestart: "restart"}[a.kind], a.node.String()}
	case extClock:
		fields = strings.Fields(clockLine(a.node, a.clock))
	case extPause:
		if !pl.sc.Up(a.node) || pl.sc.Paused(a.node) || a.dur <= 0 {
			return nil, false
		}
		fields = []string{"pause", a.node.String(), time.Duration(a.dur).String()}
	}
	return fields, true
}

// step runs a command and writes it, after the advance that brings the
// text to now.
func (pl *player) step(comment string, fields ...string) error {
	if pl.now > pl.written {
		pl.write(advanceLine(pl.now-pl.written), "")
		pl.p.commands++
		pl.written = pl.now
	}
	if pl.text {
		pl.write(strings.Join(fields, " "), comment)
	}
	pl.p.commands++
	return pl.sc.Do(fields...)
}

// finish writes the last advance, ends the script and says what the
// play gave.
func (pl *player) finish() (played, error) {
	p := &pl.p
	if pl.now > pl.written {
		pl.write(advanceLine(pl.now-pl.written), "")
		p.commands++
	}
	res, err := pl.sc.Finish()
	if err != nil {
		return *p, err
	}
	if len(res.Failed) > 0 {
		return *p, fmt.Errorf("scenario step failed: %s", res.Failed[0])
	}
	if len(res.Violations) > 0 {
		p.violated, p.first = true, earliest(res.Violations)
	}
	p.acquired = res.LeasesAcquired
	p.text = pl.b.String()
	return *p, nil
}

// pendingComment describes pending message id for the scenario's text.
func pendingComment(sc *sim.Script, id int) string {
	m, ok := sc.PendingMsg(id)
	if !ok {
		return ""
	}
	return m.String()
}

func advanceLine(d int64) string { return "advance " + time.Duration(d).String() }

// clockLine sets node n's clock to c; the rate prints exactly (whole ppb
// survive the round trip through a float).
func clockLine(n algorithms.NodeID, c faults.Clock) string {
	return fmt.Sprintf("clock %s offset=%s rate=%s", n, time.Duration(c.Offset),
		strconv.FormatFloat(float64(c.RatePPB)/1e9, 'g', -1, 64))
}

// scenarioSetup is the setup of a scenario that runs as spec does: the
// algorithm, the cluster, the protocol's parameters, the rules switched
// off, the seed (the nodes' random sources) and the disk.
func scenarioSetup(spec runner.Spec) []string {
	lines := []string{
		"algo " + spec.Algo,
		"cluster " + runner.FormatParams(spec, runner.NamedParams("acceptors", "proposers")),
		"params " + runner.FormatParams(spec, runner.ParamsOf(runner.GroupProtocol)),
	}
	if len(spec.Ablate) > 0 {
		lines = append(lines, "ablate "+strings.Join(spec.Ablate, ","))
	}
	lines = append(lines, fmt.Sprintf("seed %d", spec.Seed),
		"disk "+runner.FormatParams(spec, runner.NamedParams("fsync-latency", "group-commit")))
	return lines
}

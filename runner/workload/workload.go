package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/record"
)

// The workload driver plays the clients of a run. It is written against
// Env only, so every environment runs the same workloads.
//
// Workloads (resource ids start at 0):
//
//   - contention: each of the P proposers loops on resource 0: acquire;
//     when acquired, hold for Hold and release (Release true and Hold > 0),
//     or let the lease expire (otherwise; a lease that expires before Hold
//     is over also just expires); then pause for a time drawn uniformly in
//     [0, Pause]; then acquire again. A Failed request, or a Lost lease,
//     goes straight to the pause. All proposers start at true time 0, so
//     they contend from the first instant. A crashed proposer's client
//     stops and resumes with a pause after the restart.
//   - batch: proposer 0 requests Leases distinct resources 0..Leases-1 at
//     true time 0, as the FaTLease paper's single proposer did (Sec. 5.1).
//     The run ends when every request is acquired or failed, or at
//     Duration; requests unresolved then count as failed. With Rate > 0
//     the requests arrive open-loop instead, spread over the proposers
//     (open.go).
//   - single: proposer 0 requests resource 0 once at true time 0 (the
//     negotiation-duration experiment, Sec. 5.2); ends like batch.
//   - failover: proposer 0 acquires resource 0 and extends RenewBefore
//     before its local expiry, for ever. It is crashed at the instant of
//     its first acquisition or extension at or after true time Duration/4
//     (or at Duration/2 if none comes), so the gap is the worst case: a
//     whole lease span still to run, plus the takeover. From then on
//     proposers 1..P-1 try to acquire resource 0,
//     retrying 1 ms + uniform [0, Backoff] after each Failed; the first to
//     hold it keeps extending like proposer 0 did. The failover gap is the
//     crash to the next hold interval of another node. Proposer 0 restarts
//     after Faults.Downtime (if positive) but asks for nothing more.
//
// Contention clients may also (each only when its Spec field asks, so a
// spec without them draws and schedules exactly what it always did):
//
//   - Resources > 1: pick the resource of each attempt uniformly among
//     0..Resources-1.
//   - Giveup: with this probability an attempt is given up at a time
//     uniform in [0, 2*RTT] after the Acquire, if no lease came by then
//     (Relinquish input, mid-round: prepare or propose still in flight); the
//     request is withdrawn (neither acquired nor failed) and the client
//     pauses.
//   - Extend: with this probability a lease, once acquired, is extended
//     (Extend input); the client then releases at Hold after the
//     acquisition as before (if Release), whether or not the extension
//     has come back, or lets the lease, extended or not, expire. The
//     extension comes at a time uniform in [0, half the time left], or,
//     for half the leases a client will release, uniform in [0, 2*RTT]
//     before the release, so the release meets the extension in flight.
//
// With Spec.Writes a holding client writes to the protected store
// (writer.go); with Spec.LockDelay it is told its lease ends that much
// early. Its callbacks wait while its node's process is paused.
//
// Client watchdog: a request that gets neither Acquired nor Failed within
// MaxLease + MaxRounds*(ResponseTimeout+Backoff) + 1 s counts as failed and
// the client moves on (contention and failover only, so a silent algorithm
// cannot stall them; never in the settle stretch, Spec.Settle, which
// judges whether answers come). It does not tell the node: the node may
// still acquire the lease, and answers the client's next Acquire with it.
//
// A pending request of a node that crashes counts as failed.
type Driver struct {
	spec    runner.Spec
	durable bool // the algorithm's acceptors keep their state on disk
	env     Env
	// local is env as record.LocalClocks, nil if it is not one (asked
	// once, not at every input).
	local   record.LocalClocks
	rec     *record.Recorder
	rng     *rand.Rand
	clients []client
	// outstanding requests of batch / single.
	outstanding int
	started     bool
	failAt      int64
	armed       bool // failover: crash proposer 0 at its next acquisition
	failed      bool // the failover crash happened
	watchdog    int64
	retry       int64
	plan        *FailoverPlan // nil: the failover workload's timing by Duration
	singleReps  int           // single: leases asked for one after the other (RepeatSingle)
	singleNext  int           // single: the next one's resource
	holds0      int           // failover with a plan: proposer 0's acquisitions so far
	tookOver    bool          // failover with a plan: another proposer acquired after the crash
	open        *arrivals     // batch with Spec.Rate: the open-loop arrivals (open.go); nil otherwise
	noWrites    bool          // the nodes write themselves (NoWrites)
	resumeAt    int64         // failover with a plan's pause: when proposer 0 resumes
	drainedAt   int64         // settle stretch: when no client wanted or held a lease any more (-1: not yet)
	// counters for Result (see its fields of the same names)
	giveupsMidRound, extensions, extendReleases, releasesMidExtension int
}

type clientState uint8

const (
	clientIdle clientState = iota
	clientWanting
	clientHolding
	clientDown
)

type client struct {
	gen   uint32 // bumps invalidate scheduled callbacks
	state clientState
	// res: the resource of the current attempt or hold.
	res algorithms.ResourceID
	// Extend: extended (an Extend went in during this hold), extending
	// (it is not answered yet), endAt (true time the hold ends, extension
	// included).
	extended, extending bool
	endAt               int64
	// active: this client takes part in the workload now.
	active bool
	// keep: extend before expiry instead of releasing (failover holders).
	keep bool
	// paused: the node's process is paused (Paused); kept are the
	// client's callbacks that came due meanwhile, run at the resume.
	paused bool
	kept   []func()
	// The writer (Spec.Writes, writer.go): writing while the client
	// holds; wgen names the current write loop; due: a write came due
	// while the process was paused; token, wuntil: the lease as last
	// acquired or extended; wstart: the start of its hold interval.
	writing, due bool
	wgen         uint32
	token        algorithms.Token
	wuntil       algorithms.Local
	wstart       int64
}

// NewDriver checks that the plan's workload can run and returns its driver.
func NewDriver(plan runner.Plan, env Env, rec *record.Recorder) (*Driver, error) {
	spec := plan.Spec
	d := &Driver{
		spec:      spec,
		durable:   plan.Algo.Durable,
		env:       env,
		rec:       rec,
		rng:       rand.New(rand.NewPCG(spec.Seed, faults.StreamDriver)),
		clients:   make([]client, spec.Proposers),
		drainedAt: -1,
	}
	p := spec.Params
	d.local, _ = env.(record.LocalClocks)
	d.watchdog = int64(p.MaxLease) + int64(p.MaxRounds)*int64(p.ResponseTimeout+p.Backoff) + int64(time.Second)
	d.retry = int64(time.Millisecond)
	switch spec.Workload {
	case "contention", "single":
	case "batch":
		if spec.Leases < 1 {
			return nil, fmt.Errorf("batch needs at least 1 lease, got %d", spec.Leases)
		}
	case "failover":
		if spec.Proposers < 2 {
			return nil, fmt.Errorf("failover needs at least 2 proposers (one to crash, one to take over), got %d", spec.Proposers)
		}
		d.failAt = int64(spec.Duration) / 4
	default:
		return nil, fmt.Errorf("unknown workload %q (valid: %s)", spec.Workload, strings.Join(runner.Workloads, ", "))
	}
	return d, nil
}

// FailoverPlan times the failover workload by what happens rather than by
// Duration, for a run whose length is not known ahead (`leaselab
// cluster`, node processes): proposer 0 is crashed at the acquisition that
// follows Extensions extensions (an extension comes back as an Acquired
// event); with Restart it is restarted as soon as another proposer
// acquired the lease; the run stops Linger after that takeover, or, with
// Restart, Linger after proposer 0 rejoined (its Joined event; at once for
// a durable algorithm, which recovers its state).
//
// With Pause > 0 proposer 0 is paused for Pause instead of crashed (the
// environment must implement Pauser: `leaselab cluster --pause` stops the
// node's process with SIGSTOP), and the run stops Linger after the later
// of the takeover and its resume, so that what it does when it runs again
// (a write it checked before the pause) is seen.
type FailoverPlan struct {
	Extensions int
	Restart    bool
	Linger     time.Duration
	Pause      time.Duration
}

// Pauser is an environment that can pause a node's process (the
// simulator; node processes, with SIGSTOP and SIGCONT): for d ns of true
// time from now, the node handles nothing. It calls Driver.Paused and
// Driver.Resumed.
type Pauser interface {
	Pause(n algorithms.NodeID, d int64)
}

// PlanFailover sets the failover workload's plan; call it before Start.
func (d *Driver) PlanFailover(p FailoverPlan) { d.plan = &p }

// RepeatSingle makes the single workload ask for n leases one after the
// other, each on a fresh resource (0, 1, ...) as soon as the previous one
// was acquired or failed, so that one cluster times them all (over UDP a
// fresh cluster's first lease pays for waking its goroutines). Call it
// before Start.
func (d *Driver) RepeatSingle(n int) { d.singleReps = n }

// nextSingle asks for the next of RepeatSingle's leases, if any is left.
func (d *Driver) nextSingle() {
	d.singleNext++
	if d.singleNext < d.singleReps && d.input(0, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(d.singleNext)}) {
		d.outstanding++
	}
}

// localOf is record.LocalOf(d.env, n, t).
func (d *Driver) localOf(n algorithms.NodeID, t int64) algorithms.Local {
	if d.local != nil {
		return d.local.LocalAt(n, t)
	}
	return algorithms.Local(t)
}

// Start issues the workload's first requests; call it once, at true time 0,
// after every node has been started.
func (d *Driver) Start() {
	if d.started {
		return
	}
	d.started = true
	switch d.spec.Workload {
	case "contention":
		for i := range d.clients {
			d.clients[i].active = true
			d.acquire(algorithms.NodeID(i), d.clients[i].gen)
		}
	case "batch":
		if d.spec.Rate > 0 {
			d.startOpen()
			return
		}
		for r := 0; r < d.spec.Leases; r++ {
			if d.input(0, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(r)}) {
				d.outstanding++
			}
		}
		if d.outstanding == 0 {
			d.env.Stop()
		}
	case "single":
		if d.input(0, algorithms.Input{Kind: algorithms.Acquire}) {
			d.outstanding++
		} else {
			d.env.Stop()
		}
	case "failover":
		d.clients[0].active = true
		d.clients[0].keep = true
		d.acquire(0, d.clients[0].gen)
		if d.plan == nil {
			d.env.At(d.failAt, func() { d.armed = true })
			d.env.At(2*d.failAt, d.failover)
		}
	}
}

// settling reports whether the run is in its settle stretch
// (Spec.Settle): clients ask for nothing new, and the watchdog leaves
// a request pending, to be answered or counted unanswered at the end.
func (d *Driver) settling() bool {
	return d.spec.Settle > 0 && d.env.Now() >= int64(d.spec.Duration)
}

// Settle tells the driver that the settle stretch has begun (the
// environment calls it at Duration, Spec.Settle): the run ends as soon as
// no client wants or holds a lease, now or at a client's next change.
func (d *Driver) Settle() { d.drain() }

// drain stops the run, in the settle stretch, once no client wants or
// holds a lease: nothing is left to judge. It is called where a client
// stops wanting or holding (pause, Crashed), so that the environment's
// event loop asks nothing per event.
func (d *Driver) drain() {
	if !d.settling() || d.drainedAt >= 0 {
		return
	}
	for i := range d.clients {
		if st := d.clients[i].state; st == clientWanting || st == clientHolding {
			return
		}
	}
	d.drainedAt = d.env.Now()
	d.env.Stop()
}

// Done reports whether a batch or single run has nothing left to wait for.
func (d *Driver) Done() bool {
	return d.started && (d.spec.Workload == "batch" || d.spec.Workload == "single") && d.resolvedAll()
}

// FailUnresolved says whether requests still pending at the end of the
// run count as failed (batch and single).
func (d *Driver) FailUnresolved() bool {
	return d.spec.Workload == "batch" || d.spec.Workload == "single"
}

// Finish ends the run at the environment's current time and returns the
// meters.
func (d *Driver) Finish() runner.Result {
	res := d.rec.Finish(d.env.Now(), d.FailUnresolved())
	if d.drainedAt >= 0 {
		res.DrainMS = runner.OptionalMS(float64(d.drainedAt-int64(d.spec.Duration)) / 1e6)
	}
	res.GiveupsMidRound = d.giveupsMidRound
	res.Extensions = d.extensions
	res.ExtendReleases = d.extendReleases
	res.ReleasesMidExtension = d.releasesMidExtension
	return res
}

// input hands in to node n and tells the recorder.
func (d *Driver) input(n algorithms.NodeID, in algorithms.Input) bool {
	if !d.env.Input(n, in) {
		return false
	}
	now := d.env.Now()
	d.rec.Request(now, n, d.localOf(n, now), in)
	return true
}

func (d *Driver) acquire(n algorithms.NodeID, gen uint32) {
	c := &d.clients[n]
	if c.gen != gen || !c.active || c.state == clientDown || d.settling() {
		return
	}
	if d.spec.Resources > 1 {
		c.res = algorithms.ResourceID(d.rng.IntN(d.spec.Resources))
	}
	if !d.input(n, algorithms.Input{Kind: algorithms.Acquire, Resource: c.res}) {
		return // down; Restarted resumes the client
	}
	c.gen++
	c.state = clientWanting
	g := c.gen
	d.at(n, d.env.Now()+d.watchdog, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientWanting && !d.settling() {
			d.rec.Abandon(d.env.Now(), n, c.res)
			d.pause(n)
		}
	})
	if d.spec.Giveup > 0 && d.rng.Float64() < d.spec.Giveup {
		wait := d.rng.Int64N(2*int64(d.spec.Net.RTT) + 1)
		d.at(n, d.env.Now()+wait, func() {
			c := &d.clients[n]
			if c.gen == g && c.state == clientWanting {
				d.input(n, algorithms.Input{Kind: algorithms.Relinquish, Resource: c.res})
				d.rec.Withdraw(d.env.Now(), n, c.res)
				d.giveupsMidRound++
				d.pause(n)
			}
		})
	}
}

// release ends client n's hold with a Relinquish input and pauses.
func (d *Driver) release(n algorithms.NodeID) {
	c := &d.clients[n]
	d.input(n, algorithms.Input{Kind: algorithms.Relinquish, Resource: c.res})
	if c.extended {
		d.extendReleases++
		if c.extending {
			d.releasesMidExtension++
		}
	}
	d.pause(n)
}

// pause schedules the client's next attempt.
func (d *Driver) pause(n algorithms.NodeID) {
	c := &d.clients[n]
	c.gen++
	c.state = clientIdle
	c.extended, c.extending = false, false
	d.stopWrites(n)
	d.drain()
	var wait int64
	if d.spec.Workload == "failover" {
		wait = d.retry + d.rng.Int64N(int64(d.spec.Params.Backoff)+1)
	} else {
		wait = d.rng.Int64N(int64(d.spec.Pause) + 1)
	}
	g := c.gen
	d.at(n, d.env.Now()+wait, func() { d.acquire(n, g) })
}

// Event passes an event node n emitted (its clock read local) to the
// recorder and lets the clients react.
func (d *Driver) Event(n algorithms.NodeID, local algorithms.Local, ev algorithms.Event) {
	d.EventRef(n, local, &ev)
}

// EventRef is Event with the event passed by reference (it reads *ev and
// keeps nothing of it; the simulator's path, see Recorder.EventRef).
func (d *Driver) EventRef(n algorithms.NodeID, local algorithms.Local, ev *algorithms.Event) {
	now := d.env.Now()
	if ev.Kind == algorithms.Acquired && d.spec.LockDelay > 0 {
		// Lock-delay: the client is told its lease ends early; the
		// acceptors keep it to the algorithm's Until.
		early := *ev
		early.Until -= algorithms.Local(d.spec.LockDelay)
		ev = &early
	}
	out := d.rec.EventRef(now, n, local, ev)
	switch d.spec.Workload {
	case "batch", "single":
		if out != record.NoOutcome {
			d.outstanding--
			if d.spec.Workload == "single" {
				d.nextSingle()
			}
			if d.resolvedAll() {
				d.env.Stop()
			}
		}
		return
	}
	if d.plan != nil {
		d.followPlan(n, *ev)
	}
	if int(n) >= len(d.clients) || !d.clients[n].active || ev.Resource != d.clients[n].res {
		return
	}
	if d.armed && n == 0 && ev.Kind == algorithms.Acquired {
		// Crash at this instant, as an event of its own (never inside the
		// node's step).
		d.armed = false
		d.env.At(now, d.failover)
	}
	c := &d.clients[n]
	switch ev.Kind {
	case algorithms.Acquired:
		if c.state == clientDown {
			return
		}
		d.writeUnder(n, *ev)
		if c.state == clientHolding && c.extending {
			// The extension came through: the hold ends later.
			c.extending = false
			c.endAt = d.env.TrueAt(n, ev.Until)
			d.expireAt(n, c.gen, c.endAt)
			return
		}
		c.state = clientHolding
		c.gen++
		g := c.gen
		end := d.env.TrueAt(n, ev.Until)
		if c.keep {
			d.renewBefore(n, g, now, ev.Until, end)
			return
		}
		if d.spec.Extend > 0 && d.rng.Float64() < d.spec.Extend {
			d.extendLater(n, g, now, end)
			return
		}
		d.endHold(n, g, now, end)
	case algorithms.Failed:
		if out == record.OutcomeFailed && c.state == clientWanting {
			d.pause(n)
		}
	case algorithms.Lost:
		if c.state == clientHolding {
			d.pause(n)
		}
	}
}

// endHold has a client release its lease after Hold, if it releases and
// the lease lasts that long, or else start over when it ends (end).
func (d *Driver) endHold(n algorithms.NodeID, g uint32, now, end int64) {
	if d.spec.Release && d.spec.Hold > 0 && now+int64(d.spec.Hold) < end {
		d.at(n, now+int64(d.spec.Hold), func() {
			c := &d.clients[n]
			if c.gen == g && c.state == clientHolding {
				d.release(n)
			}
		})
		return
	}
	d.at(n, end, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientHolding {
			d.pause(n)
		}
	})
}

// renewBefore has a renewing client (failover) extend its lease RenewBefore
// before it ends (until, on its clock; end in true time), and start over
// if the extension does not come through.
func (d *Driver) renewBefore(n algorithms.NodeID, g uint32, now int64, until algorithms.Local, end int64) {
	at := d.env.TrueAt(n, until-algorithms.Local(d.spec.RenewBefore))
	if at < now {
		at = now
	}
	d.at(n, at, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientHolding {
			d.input(n, algorithms.Input{Kind: algorithms.Extend})
		}
	})
	// If the extension does not come through, the lease expires
	// and the client starts over.
	d.at(n, end, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientHolding {
			d.pause(n)
		}
	})
}

// extendLater has a contention client (Spec.Extend) extend its lease at a
// drawn time, then release or let it expire as it would have.
func (d *Driver) extendLater(n algorithms.NodeID, g uint32, now, end int64) {
	c := &d.clients[n]
	c.endAt = end
	release := d.spec.Release && d.spec.Hold > 0
	at := now
	switch {
	case release && d.rng.IntN(2) == 0:
		// Extend, then release at once: the release comes while
		// the extension's round is in flight.
		at += int64(d.spec.Hold) - d.rng.Int64N(2*int64(d.spec.Net.RTT)+1)
		if at < now {
			at = now
		}
	case end > now:
		at += d.rng.Int64N((end-now)/2 + 1)
	}
	d.at(n, at, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientHolding && d.input(n, algorithms.Input{Kind: algorithms.Extend, Resource: c.res}) {
			c.extended, c.extending = true, true
			d.extensions++
		}
	})
	if d.spec.Release && d.spec.Hold > 0 {
		d.at(n, now+int64(d.spec.Hold), func() {
			c := &d.clients[n]
			if c.gen == g && c.state == clientHolding {
				d.release(n)
			}
		})
	}
	d.expireAt(n, g, end)
}

// expireAt pauses client n at true time end if it still holds the lease
// of generation g and its hold (extensions included) ends by then.
func (d *Driver) expireAt(n algorithms.NodeID, g uint32, end int64) {
	d.at(n, end, func() {
		c := &d.clients[n]
		if c.gen == g && c.state == clientHolding && d.env.Now() >= c.endAt {
			d.pause(n)
		}
	})
}

// failover crashes proposer 0 and sets the others going (once).
func (d *Driver) failover() {
	if d.failed {
		return
	}
	d.armed = false
	now := d.env.Now()
	d.failed = true
	d.rec.MarkFailover(now, 0)
	d.clients[0].active = false
	if p, ok := d.env.(Pauser); ok && d.plan != nil && d.plan.Pause > 0 {
		// The client asks for nothing more (what it had scheduled is
		// void), but a write it was making stays due: the pause falls
		// between its check and the write.
		c := &d.clients[0]
		c.gen++
		c.state = clientIdle
		d.resumeAt = now + int64(d.plan.Pause)
		p.Pause(0, int64(d.plan.Pause))
	} else {
		d.env.Crash(0)
	}
	if dt := d.spec.Faults.Downtime; dt > 0 && d.plan == nil {
		d.env.At(now+int64(dt), func() { d.env.Restart(0) })
	}
	for i := 1; i < len(d.clients); i++ {
		c := &d.clients[i]
		c.active = true
		c.keep = true
		if c.state != clientDown {
			d.acquire(algorithms.NodeID(i), c.gen)
		}
	}
}

// followPlan crashes, restarts and stops as the failover plan says, on
// event ev of node n.
func (d *Driver) followPlan(n algorithms.NodeID, ev algorithms.Event) {
	now := d.env.Now()
	linger := func() { d.env.At(max(now, d.resumeAt)+int64(d.plan.Linger), d.env.Stop) }
	switch {
	case ev.Kind == algorithms.Acquired && n == 0 && !d.failed:
		if d.holds0++; d.holds0 > d.plan.Extensions {
			d.env.At(now, d.failover) // as an event of its own, never inside the step
		}
	case ev.Kind == algorithms.Acquired && n != 0 && d.failed && !d.tookOver:
		d.tookOver = true
		if !d.plan.Restart || d.plan.Pause > 0 {
			linger()
			return
		}
		d.env.At(now, func() {
			d.env.Restart(0)
			if d.durable {
				linger() // recovered from its log: no quarantine to wait for
			}
		})
	case ev.Kind == algorithms.Joined && n == 0 && d.tookOver && d.plan.Restart && !d.durable:
		linger()
	}
}

// Crashed tells the driver node n is down (after the environment crashed
// it, by fault or on request) and the recorder what that ends.
func (d *Driver) Crashed(n algorithms.NodeID) {
	now := d.env.Now()
	aborted := d.rec.Crash(now, n)
	if d.spec.Workload == "batch" || d.spec.Workload == "single" {
		d.outstanding -= aborted
		if d.started && d.resolvedAll() {
			d.env.Stop()
		}
	}
	if int(n) < len(d.clients) {
		c := &d.clients[n]
		c.gen++
		c.state = clientDown
		c.paused, c.kept = false, nil // what the process was about to do died with it
		d.stopWrites(n)
		d.drain()
	}
}

// Restarted tells the driver node n is up again (after its Start step).
func (d *Driver) Restarted(n algorithms.NodeID) {
	if int(n) >= len(d.clients) {
		return
	}
	c := &d.clients[n]
	c.state = clientIdle
	if c.active {
		d.pause(n)
	}
}

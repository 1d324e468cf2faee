package host

import "leaselab/algorithms"

// Disk is a node's stable storage as the runner sees it: records queued
// for the next sync, the sync in progress, the durable records, and the
// messages that wait for them. It decides what each sync takes and what
// may leave when it completes; the environment decides how long a sync
// takes and where the records go (the simulator draws a latency, the
// explorer takes a fixed one, UDP writes them to its log, runner/udp/wal).
//
// The rule is etcd raft's MustSync: the messages of an Output with
// Persist records leave only once those records are durable; its timers
// and events take effect at once. Output.NoSync (the fsync ablation): the
// records join the queue as any others, but the messages do not wait.
//
// Group commit (unless Each): the records of every Output that arrives
// while a sync is running wait, and the next sync takes all of them at
// once, as the FaTLease paper's extra writer thread did. With Each, every
// Output's records get a sync of their own, one Output after the other.
//
// Every Output whose messages must wait gets the next ticket; a sync
// makes durable every ticket it took, and a message leaves when its
// ticket is durable. With Ordered (UDP), a message of a later Output
// waits behind every earlier one that waits for the disk (a node never
// says something newer before something older is safe); without it (the
// simulator, whose network reorders anyway), only the Output's own
// messages wait.
//
// With Keep, durable records are kept here, oldest first, for the next
// life's Config.Recovered (the simulator and the explorer; UDP recovers
// them from its log). The kept log is compacted to the latest record per
// (resource, instance) when it grows, since a record carries an
// acceptor's whole state for that instance. A crash loses everything not
// yet durable.
type Disk struct {
	Keep    bool
	Ordered bool
	Each    bool

	durable   []algorithms.Record
	compactAt int
	busy      bool
	// The sync in progress: its records and the highest ticket it makes
	// durable (0: none).
	cur       []algorithms.Record
	curTicket uint64
	// Records of Outputs not yet synced, and where each Output's end.
	q     []algorithms.Record
	steps []diskStep
	// Tickets: last handed out, and every ticket up to done is durable.
	last, done uint64
	// Messages waiting for the disk, in order, each with its ticket
	// (nondecreasing).
	held  []algorithms.Message
	heldT []uint64
	rel   []algorithms.Message // what Done released, valid until the next call
}

type diskStep struct {
	end    int
	ticket uint64 // 0: the Output's messages do not wait (NoSync)
}

// Write queues the records of one Output with its messages, and returns
// the messages that may leave now.
func (d *Disk) Write(recs []algorithms.Record, msgs []algorithms.Message, noSync bool) []algorithms.Message {
	d.q = append(d.q, recs...)
	s := diskStep{end: len(d.q)}
	if !noSync {
		d.last++
		s.ticket = d.last
	}
	d.steps = append(d.steps, s)
	if noSync {
		return d.Pass(msgs)
	}
	d.hold(msgs)
	return nil
}

// Pass returns the messages of an Output without records that may leave
// now: all of them, unless the disk is Ordered and holds earlier ones,
// which they then join.
func (d *Disk) Pass(msgs []algorithms.Message) []algorithms.Message {
	if d.Ordered && d.last > d.done {
		d.hold(msgs)
		return nil
	}
	return msgs
}

func (d *Disk) hold(msgs []algorithms.Message) {
	for range msgs {
		d.heldT = append(d.heldT, d.last)
	}
	d.held = append(d.held, msgs...)
}

// Start begins a sync if none is running and records wait: it takes all
// of them (group commit) or the first Output's, and returns them; they
// stay valid, and must stay unchanged, until Done.
func (d *Disk) Start() ([]algorithms.Record, bool) {
	if d.busy || len(d.steps) == 0 {
		return nil, false
	}
	k := len(d.steps)
	if d.Each {
		k = 1
	}
	end := d.steps[k-1].end
	d.cur = append(d.cur[:0], d.q[:end]...)
	d.curTicket = 0
	for _, s := range d.steps[:k] {
		d.curTicket = max(d.curTicket, s.ticket)
	}
	d.q = d.q[:copy(d.q, d.q[end:])]
	rest := d.steps[k:]
	for i := range rest {
		rest[i].end -= end
	}
	d.steps = d.steps[:copy(d.steps, rest)]
	d.busy = true
	return d.cur, true
}

// Busy reports whether a sync is running.
func (d *Disk) Busy() bool { return d.busy }

// Syncing is the number of records the running sync takes.
func (d *Disk) Syncing() int { return len(d.cur) }

// Done completes the running sync: its records are durable. It returns
// the messages that may now leave, in order; the slice is valid until the
// next call on d.
func (d *Disk) Done() []algorithms.Message {
	d.busy = false
	if d.Keep {
		d.durable = append(d.durable, d.cur...)
		d.compact()
	}
	d.cur = d.cur[:0]
	d.done = max(d.done, d.curTicket)
	k := 0
	for k < len(d.held) && d.heldT[k] <= d.done {
		k++
	}
	d.rel = append(d.rel[:0], d.held[:k]...)
	d.held = d.held[:copy(d.held, d.held[k:])]
	d.heldT = d.heldT[:copy(d.heldT, d.heldT[k:])]
	return d.rel
}

// Fail ends the running sync without making anything durable: the
// storage failed, and the messages waiting for it must never leave.
func (d *Disk) Fail() {
	d.busy = false
	d.cur = d.cur[:0]
	d.held, d.heldT = d.held[:0], d.heldT[:0]
}

// Crash loses everything not durable.
func (d *Disk) Crash() {
	d.busy = false
	d.cur = d.cur[:0]
	d.curTicket = 0
	d.q = d.q[:0]
	d.steps = d.steps[:0]
	d.held, d.heldT = d.held[:0], d.heldT[:0]
	d.last, d.done = 0, 0
}

// Durable returns the durable records (Keep), oldest first; the slice is
// d's.
func (d *Disk) Durable() []algorithms.Record { return d.durable }

// Recovered returns a copy of the durable records for a new life's
// Config.Recovered, nil if there are none.
func (d *Disk) Recovered() []algorithms.Record {
	if len(d.durable) == 0 {
		return nil
	}
	return append([]algorithms.Record(nil), d.durable...)
}

// DiskState is what a Disk holds, for an encoding of it (the explorer's
// fingerprint); the slices are the disk's own. Two disks with group
// commit, not Ordered, and equal states behave alike; with Each or
// Ordered, where each Output's records and tickets begin matters too.
type DiskState struct {
	Durable, Syncing, Queued []algorithms.Record
	Busy                     bool
	// Held are the messages waiting for the disk, in order; the first
	// ForSync of them leave when the running sync completes.
	Held    []algorithms.Message
	ForSync int
}

// State returns what d holds.
func (d *Disk) State() DiskState {
	k := 0
	for d.busy && k < len(d.held) && d.heldT[k] <= max(d.done, d.curTicket) {
		k++
	}
	return DiskState{Durable: d.durable, Syncing: d.cur, Queued: d.q, Busy: d.busy, Held: d.held, ForSync: k}
}

// Idle reports whether nothing is queued, syncing or held.
func (d *Disk) Idle() bool {
	return !d.busy && len(d.steps) == 0 && len(d.held) == 0
}

// Clone returns an independent copy of d.
func (d *Disk) Clone() Disk {
	c := *d
	c.durable = append([]algorithms.Record(nil), d.durable...)
	c.cur = append([]algorithms.Record(nil), d.cur...)
	c.q = append([]algorithms.Record(nil), d.q...)
	c.steps = append([]diskStep(nil), d.steps...)
	c.held = append([]algorithms.Message(nil), d.held...)
	c.heldT = append([]uint64(nil), d.heldT...)
	c.rel = nil
	return c
}

// Reset empties d for another run, keeping its memory and its settings.
func (d *Disk) Reset() {
	d.Crash()
	d.durable = d.durable[:0]
	d.compactAt = 0
}

// compact keeps the latest record per (resource, instance) once the log
// has doubled since the last compaction.
func (d *Disk) compact() {
	if len(d.durable) < 4096 || len(d.durable) < 2*d.compactAt {
		return
	}
	type key struct {
		r algorithms.ResourceID
		i uint64
	}
	last := make(map[key]int, len(d.durable)/2)
	for i, r := range d.durable {
		last[key{r.Resource, r.Instance}] = i
	}
	k := 0
	for i, r := range d.durable {
		if last[key{r.Resource, r.Instance}] == i {
			d.durable[k] = r
			k++
		}
	}
	d.durable = d.durable[:k]
	d.compactAt = k
}

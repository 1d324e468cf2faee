package udp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/udp/wal"
)

// Stable storage of a durable node (classic Paxos), on the real log of
// package wal: checksummed fixed-size records, torn-tail recovery,
// compaction.
//
// The rule is etcd raft's MustSync: the messages of an Output with
// Persist records leave only once those records are durable; timers and
// events take effect at once (the same as the simulator's disk model). A
// node's event loop must not stop for an fsync (milliseconds on a real
// disk, during which its proposer and its timers would stall), so one
// writer goroutine per node does the writes and fsyncs while the loop goes
// on stepping; the loop holds back messages until the writer reports
// their records durable.
//
// Group commit (the paper's "extra thread that writes multiple messages
// (if available) to disk before calling fsync"): the records of every
// Output that arrive while the writer is busy wait in the loop, and the
// next write takes all of them with one fsync. With group commit off
// (NodeConfig.SyncEach, Spec.Disk.GroupCommit false) every Output's
// records are written and synced on their own, one Output after the other,
// one fsync per record (wal.Log.Append of one record), the unbatched cost.
//
// Output.NoSync (the fsync ablation): the Output's messages do not wait for
// its records (they leave at once unless earlier messages are still held,
// which keep their order); the records are written and synced with the
// next request, as in the simulator. When a node is killed, records still
// waiting in its loop are lost, as in a crash; whatever already went to
// the file survives a process crash in the page cache (only a machine
// crash would lose it, which the simulator models and this environment
// does not).
//
// Message order: every message of a later Output waits behind every
// earlier one that waits for the disk, so a node never says something
// newer before something older has been made safe.
//
// Meters are real measurements: the wall time of each wal Append that
// syncs (write + fsync) is one fsync's latency; bytes are what the log
// says it wrote (wal.Stats.Bytes), so a compaction's rewrite of the live
// state counts too. A compaction runs inside the Append that crossed the
// threshold, before it returns: its syncs are part of that fsync's
// latency rather than fsyncs of their own. (A storage without Stats is
// metered as records times wal.RecordSize.)

// diskState is a node's side of its log writer; only the loop touches it.
type diskState struct {
	st   wal.Storage
	each bool // group commit off

	req    chan diskReq
	done   chan diskDone
	exited chan struct{}
	busy   bool // a request is with the writer

	// Records of Outputs not yet handed to the writer, and where each
	// Output's records end in q.
	q     []algorithms.Record
	steps []diskStep
	buf   []algorithms.Record // spare buffer for the next request

	// Tickets: every Output whose messages must wait for its records gets
	// the next ticket; every ticket <= durable is on stable storage.
	last    uint64
	durable uint64
	// Messages waiting for the disk, in order, each with the ticket it
	// waits for (nondecreasing).
	held  []algorithms.Message
	heldT []uint64
}

type diskStep struct {
	end    int
	sync   bool
	ticket uint64
}

// diskReq is one write and fsync of the writer; ticket is the highest
// ticket of the Outputs whose messages wait for it (0: none).
type diskReq struct {
	recs   []algorithms.Record
	ticket uint64
}

type diskDone struct {
	recs    []algorithms.Record // the request's buffer, back for reuse
	ticket  uint64
	bytes   int64
	fsyncNS []int64
	err     error
}

func newDiskState(st wal.Storage, each bool) *diskState {
	return &diskState{st: st, each: each,
		req: make(chan diskReq, 1), done: make(chan diskDone, 1), exited: make(chan struct{})}
}

// add queues the records of one Output; sync says its messages must wait
// for them.
func (d *diskState) add(recs []algorithms.Record, sync bool) {
	d.q = append(d.q, recs...)
	s := diskStep{end: len(d.q), sync: sync}
	if sync {
		d.last++
		s.ticket = d.last
	}
	d.steps = append(d.steps, s)
}

// mustHold reports whether a message stepped now has to wait: some
// record an Output up to now asked to have synced is not durable yet.
func (d *diskState) mustHold() bool { return d.last > d.durable }

func (d *diskState) hold(msgs []algorithms.Message) {
	for range msgs {
		d.heldT = append(d.heldT, d.last)
	}
	d.held = append(d.held, msgs...)
}

// kick hands the queued records to the writer if it is idle: all of them
// (group commit) or the first Output's.
func (d *diskState) kick() {
	if d.busy || len(d.steps) == 0 {
		return
	}
	k := len(d.steps)
	if d.each {
		k = 1
	}
	end := d.steps[k-1].end
	r := diskReq{recs: append(d.buf[:0], d.q[:end]...)}
	d.buf = nil
	for _, s := range d.steps[:k] {
		if s.sync {
			r.ticket = max(r.ticket, s.ticket)
		}
	}
	d.q = d.q[:copy(d.q, d.q[end:])]
	rest := d.steps[k:]
	for i := range rest {
		rest[i].end -= end
	}
	d.steps = d.steps[:copy(d.steps, rest)]
	d.busy = true
	d.req <- r // never blocks: one request at a time, buffer of one
}

// writer is the node's disk goroutine.
func (d *diskState) writer() {
	defer close(d.exited)
	// Bytes the log had written when the last request ended: each
	// request is metered with the log's own growth since then.
	st, counted := d.st.(interface{ Stats() wal.Stats })
	var written int64
	if counted {
		written = st.Stats().Bytes
	}
	for r := range d.req {
		res := diskDone{recs: r.recs, ticket: r.ticket, bytes: int64(len(r.recs)) * wal.RecordSize}
		switch {
		case d.each:
			for i := range r.recs {
				start := time.Now()
				err := d.st.Append(r.recs[i : i+1])
				res.fsyncNS = append(res.fsyncNS, int64(time.Since(start)))
				if err != nil {
					res.err = err
					break
				}
			}
		default:
			start := time.Now()
			res.err = d.st.Append(r.recs)
			res.fsyncNS = append(res.fsyncNS, int64(time.Since(start)))
		}
		if counted {
			now := st.Stats().Bytes
			res.bytes, written = now-written, now
		}
		d.done <- res // never blocks: the loop has not sent another request
	}
}

// stop ends the writer after its current request and closes the log.
func (d *diskState) stop() error {
	close(d.req)
	<-d.exited
	return d.st.Close()
}

// diskDone takes a finished request: meters, then the messages whose
// records are now durable leave, then the next group commit starts.
func (n *Node) diskDone(r diskDone) {
	d := n.disk
	d.busy = false
	d.buf = r.recs[:0]
	n.meters.DiskBytes += r.bytes
	n.meters.Fsyncs += int64(len(r.fsyncNS))
	n.meters.FsyncNS = append(n.meters.FsyncNS, r.fsyncNS...)
	if n.stepObs != nil && !n.dead {
		n.stepObs.Disk(n, n.clock.True(), r.bytes, r.fsyncNS)
	}
	if r.err != nil {
		// The records may not be durable: their messages must never
		// leave. The node stops taking part (Err reports why).
		n.fail(fmt.Errorf("udp: node %d: log: %w", n.id, r.err))
		d.held, d.heldT = d.held[:0], d.heldT[:0]
		return
	}
	if r.ticket > d.durable {
		d.durable = r.ticket
	}
	k := 0
	for k < len(d.held) && d.heldT[k] <= d.durable {
		k++
	}
	if k > 0 {
		for i := 0; i < k; i++ {
			n.route(&d.held[i])
		}
		d.held = d.held[:copy(d.held, d.held[k:])]
		d.heldT = d.heldT[:copy(d.heldT, d.heldT[k:])]
	}
	d.kick()
}

// LogPath is where node id keeps its log in dir.
func LogPath(dir string, id algorithms.NodeID) string {
	return filepath.Join(dir, fmt.Sprintf("node%d.wal", id))
}

// OpenLog opens node id's log in dir and returns the records it recovered,
// oldest first, for Config.Recovered. A torn tail (a write cut short by a
// crash) is cut off; a corrupt record inside the log is an error, since an
// acceptor must not rejoin on a log that lost promises. groupCommit is
// wal.Options.GroupCommit. fresh removes an earlier log first: a new
// cluster's acceptors start empty, and an old log's expiries are times on
// the clocks of a run that is over.
func OpenLog(dir string, id algorithms.NodeID, groupCommit, fresh bool) (*wal.Log, []algorithms.Record, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	path := LogPath(dir, id)
	if fresh {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
	}
	l, recs, err := wal.Open(path, wal.Options{GroupCommit: groupCommit})
	if err != nil {
		return nil, nil, fmt.Errorf("udp: node %d: log %s: %w", id, path, err)
	}
	return l, recs, nil
}

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
// What waits for what is the node's host.Disk, as in the simulator: etcd
// raft's MustSync rule, group commit (the paper's "extra thread that
// writes multiple messages (if available) to disk before calling
// fsync"), NoSync, and Ordered: every message of a later Output waits
// behind every earlier one that waits for the disk, so a node never says
// something newer before something older has been made safe. A node's
// event loop must not stop for an fsync (milliseconds on a real disk,
// during which its proposer and its timers would stall), so one writer
// goroutine per node does the writes and fsyncs while the loop goes on
// stepping; the loop hands it the records of a whole burst at once
// (flush) and holds back messages until the writer reports their records
// durable. With group commit off (NodeConfig.SyncEach,
// Spec.Disk.GroupCommit false) every Output's records are written and
// synced on their own, one Output after the other, one fsync per record
// (wal.Log.Append of one record), the unbatched cost.
//
// When a node is killed, records still waiting in its loop are lost, as
// in a crash; whatever already went to the file survives a process crash
// in the page cache (only a machine crash would lose it, which the
// simulator models and this environment does not).
//
// Meters are real measurements: the wall time of each wal Append that
// syncs (write + fsync) is one fsync's latency; bytes are what the log
// says it wrote (wal.Stats.Bytes), so a compaction's rewrite of the live
// state counts too. A compaction runs inside the Append that crossed the
// threshold, before it returns: its syncs are part of that fsync's
// latency rather than fsyncs of their own. (A storage without Stats is
// metered as records times wal.RecordSize.)

// logWriter is a node's log writer goroutine and its channels. What the
// writer takes and which messages wait for it is the node's host.Disk
// (group commit, tickets, Ordered): the loop hands the writer the records
// of the next sync (kick) and completes the sync when the writer is done
// (diskDone).
type logWriter struct {
	st   wal.Storage
	each bool // group commit off: one fsync per record

	req    chan []algorithms.Record
	done   chan diskDone
	exited chan struct{}
}

type diskDone struct {
	bytes   int64
	fsyncNS []int64
	err     error
}

func newLogWriter(st wal.Storage, each bool) *logWriter {
	return &logWriter{st: st, each: each,
		req: make(chan []algorithms.Record, 1), done: make(chan diskDone, 1), exited: make(chan struct{})}
}

// kick hands the records of the next sync to the writer if it is idle:
// all that wait (group commit) or the first Output's.
func (n *Node) kick() {
	if recs, ok := n.host.Disk.Start(); ok {
		n.disk.req <- recs // never blocks: one request at a time, buffer of one
	}
}

// writer is the node's disk goroutine. The records it gets stay
// unchanged until the loop takes its answer.
func (d *logWriter) writer() {
	defer close(d.exited)
	// Bytes the log had written when the last request ended: each
	// request is metered with the log's own growth since then.
	st, counted := d.st.(interface{ Stats() wal.Stats })
	var written int64
	if counted {
		written = st.Stats().Bytes
	}
	for recs := range d.req {
		res := diskDone{bytes: int64(len(recs)) * wal.RecordSize}
		switch {
		case d.each:
			for i := range recs {
				start := time.Now()
				err := d.st.Append(recs[i : i+1])
				res.fsyncNS = append(res.fsyncNS, int64(time.Since(start)))
				if err != nil {
					res.err = err
					break
				}
			}
		default:
			start := time.Now()
			res.err = d.st.Append(recs)
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
func (d *logWriter) stop() error {
	close(d.req)
	<-d.exited
	return d.st.Close()
}

// diskDone takes a finished request: meters, then the messages whose
// records are now durable leave, then the next group commit starts.
func (n *Node) diskDone(r diskDone) {
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
		n.host.Disk.Fail()
		return
	}
	// Routing never touches the disk, so the slice stays valid.
	rel := n.host.Disk.Done()
	for i := range rel {
		n.route(&rel[i])
	}
	n.kick()
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

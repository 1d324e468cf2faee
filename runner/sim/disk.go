package sim

import (
	"math"

	"leaselab/algorithms"
	"leaselab/runner/record"
)

// The simulated disk (classic Paxos's stable storage). In scenario files
// every fsync takes exactly FsyncLatency.
//
// An Output with Persist records is a write of len(Persist) *
// DiskRecordSize bytes. Unless the Output says NoSync, its messages are
// held back until an fsync has made its records durable (etcd raft's
// MustSync rule); its timers and events take effect at once.
//
// One fsync at a time per node. Its latency is
//
//	lognormal(mean FsyncLatency, sigma 0.5) + bytes / 200 MB/s
//	  + (Background ? uniform[0, 2 s] : 0)
//
// The lognormal gives the right-skewed spread of real fsyncs around the
// configured mean (mu = ln(mean) - sigma^2/2); the bandwidth term makes
// large group commits cost more than small ones. The background term
// models the paper's IOzone experiment (Fig. 10: `iozone -t 1 -s2G`): a
// writer keeps about 100 MB dirty in the page cache and, on the paper's
// ext3 with data=ordered, every fsync has to flush that too, which takes
// a second on average at 100 MB/s; with the 1 s response timeout almost no
// round of classic Paxos completes, as the paper observed.
//
// GroupCommit: records (with their messages) that arrive while a sync is
// running wait, and the next sync makes all of them durable at once, as
// the paper's extra writer thread did. Without it, every Output with
// records gets its own fsync, one after the other.
//
// NoSync (the fsync ablation): the answer does not wait for the disk. The
// records join the fsync queue as any others (and are synced with the
// next group commit), but the Output's messages leave at once. A crash
// loses the records whose fsync had not completed, so a restarted node,
// which trusts its log and skips the restart wait as durable nodes do,
// has forgotten only what it answered in the last fsync's latency before
// the crash.
//
// Durable records survive crashes and come back, oldest first, in
// Config.Recovered. They are kept only when the run can crash nodes
// (fault crashes, failover, scenarios); the log is compacted to the latest
// record per (resource, instance) when it grows, since a record carries an
// acceptor's whole state for that instance.

const (
	fsyncSigma         = 0.5
	diskBytesPerSec    = 200e6
	backgroundMaxFlush = 2e9 // ns
)

type disk struct {
	busy bool
	// The sync in progress: its records and the messages waiting for it.
	curRecs []algorithms.Record
	curMsgs []algorithms.Message
	// Outputs waiting for the next sync; bounds[i] ends output i.
	qRecs     []algorithms.Record
	qMsgs     []algorithms.Message
	qBounds   []diskBound
	durable   []algorithms.Record
	compactAt int
	started   int64 // true time the current sync began
}

type diskBound struct{ recs, msgs int }

// crash loses everything not durable.
func (d *disk) crash() {
	d.busy = false
	d.curRecs = d.curRecs[:0]
	d.curMsgs = d.curMsgs[:0]
	d.qRecs = d.qRecs[:0]
	d.qMsgs = d.qMsgs[:0]
	d.qBounds = d.qBounds[:0]
}

// Persist handles an Output with records.
func (s *sim) Persist(n algorithms.NodeID, out *algorithms.Output) {
	d := &s.nodes[n].disk
	s.rec.DiskWrite(s.now, int64(len(out.Persist))*record.DiskRecordSize)
	nosync := int64(0)
	if out.NoSync {
		nosync = 1
	}
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TracePersist, Node: n, X: int64(len(out.Persist)), Y: nosync})
	if out.NoSync {
		// The answer leaves now; the records wait for the next fsync.
		for i := range out.Msgs {
			s.Send(&out.Msgs[i])
		}
	} else {
		d.qMsgs = append(d.qMsgs, out.Msgs...)
	}
	d.qRecs = append(d.qRecs, out.Persist...)
	d.qBounds = append(d.qBounds, diskBound{recs: len(d.qRecs), msgs: len(d.qMsgs)})
	if !d.busy {
		s.startSync(n)
	}
}

// startSync begins an fsync of the next queued output (all of them with
// group commit).
func (s *sim) startSync(n algorithms.NodeID) {
	d := &s.nodes[n].disk
	if len(d.qBounds) == 0 {
		return
	}
	take := d.qBounds[0]
	k := 1
	if s.spec.Disk.GroupCommit {
		take = d.qBounds[len(d.qBounds)-1]
		k = len(d.qBounds)
	}
	d.curRecs = append(d.curRecs[:0], d.qRecs[:take.recs]...)
	d.curMsgs = append(d.curMsgs[:0], d.qMsgs[:take.msgs]...)
	// Shift the rest of the queue down.
	d.qRecs = d.qRecs[:copy(d.qRecs, d.qRecs[take.recs:])]
	d.qMsgs = d.qMsgs[:copy(d.qMsgs, d.qMsgs[take.msgs:])]
	rest := d.qBounds[k:]
	for i := range rest {
		rest[i].recs -= take.recs
		rest[i].msgs -= take.msgs
	}
	d.qBounds = d.qBounds[:copy(d.qBounds, rest)]
	d.busy = true
	d.started = s.now
	s.schedule(s.now+s.fsyncLatency(len(d.curRecs)), evDisk, n, 0, s.nodes[n].incarnation)
}

// fsyncLatency draws the latency of one fsync of recs records.
func (s *sim) fsyncLatency(recs int) int64 {
	if s.scripted {
		// Scenarios want exact timings: the mean, nothing drawn.
		return int64(s.spec.Disk.FsyncLatency)
	}
	var lat float64
	if mean := float64(s.spec.Disk.FsyncLatency); mean > 0 {
		mu := math.Log(mean) - fsyncSigma*fsyncSigma/2
		lat = math.Exp(mu + fsyncSigma*s.diskRng.NormFloat64())
	}
	lat += float64(recs*record.DiskRecordSize) / diskBytesPerSec * 1e9
	if s.spec.Disk.Background {
		lat += s.diskRng.Float64() * backgroundMaxFlush
	}
	return int64(lat)
}

// diskDone completes node n's fsync (if it is still the same life).
func (s *sim) diskDone(n algorithms.NodeID, incarnation uint32) {
	nd := &s.nodes[n]
	if !nd.up || nd.incarnation != incarnation || !nd.disk.busy {
		return
	}
	d := &nd.disk
	lat := s.now - d.started
	s.rec.Fsync(s.now, lat, 0)
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceSync, Node: n, X: lat, Y: int64(len(d.curRecs))})
	if s.keepDurable {
		d.durable = append(d.durable, d.curRecs...)
		d.compact()
	}
	d.busy = false
	// Sending may not touch the disk, so the slice stays valid.
	for i := range d.curMsgs {
		s.Send(&d.curMsgs[i])
	}
	d.curMsgs = d.curMsgs[:0]
	d.curRecs = d.curRecs[:0]
	s.startSync(n)
}

// compact keeps the latest record per (resource, instance) once the log
// has doubled since the last compaction.
func (d *disk) compact() {
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

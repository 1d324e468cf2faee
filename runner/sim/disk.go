package sim

import (
	"math"

	"leaselab/algorithms"
	"leaselab/runner/host"
	"leaselab/runner/record"
)

// The simulated disk (classic Paxos's stable storage). What a sync takes,
// which messages wait for it and what survives a crash is the node's
// host.Disk (group commit, MustSync, NoSync, the kept log); here is how
// long a sync takes. In scenario files every fsync takes exactly
// FsyncLatency.
//
// An Output with Persist records is a write of len(Persist) *
// DiskRecordSize bytes. One fsync at a time per node. Its latency is
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

// Persist meters and traces the write of out's records (host.Env).
func (s *sim) Persist(h *host.Host, out *algorithms.Output) {
	n := h.ID
	s.rec.DiskWrite(s.now, int64(len(out.Persist))*record.DiskRecordSize)
	nosync := int64(0)
	if out.NoSync {
		nosync = 1
	}
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TracePersist, Node: n, X: int64(len(out.Persist)), Y: nosync})
}

// Sync schedules the completion of the sync h's disk started (host.Env).
func (s *sim) Sync(h *host.Host) {
	nd := &s.nodes[h.ID]
	nd.syncStart = s.now
	s.schedule(s.now+s.fsyncLatency(h.Disk.Syncing()), evDisk, h.ID, 0, h.Life)
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

// diskDone completes node n's sync (if it is still the same life).
func (s *sim) diskDone(n algorithms.NodeID, life uint32) {
	nd := &s.nodes[n]
	if !nd.Up() || nd.Life != life || !nd.Disk.Busy() {
		return
	}
	lat := s.now - nd.syncStart
	s.rec.Fsync(s.now, lat, 0)
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceSync, Node: n, X: lat, Y: int64(nd.Disk.Syncing())})
	nd.Synced(s)
}

package sim_test

import (
	"testing"
	"time"

	_ "leaselab/classicpaxos" // the durable algorithm
	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/record"
	"leaselab/runner/udp/wal"
)

// diskSpec is a batch of classic Paxos, the durable algorithm, on one
// node: it is acceptor and proposer, so no network delay hides the disk's.
func diskSpec() runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = "classicpaxos"
	s.Workload = "batch"
	s.Acceptors, s.Proposers = 1, 1
	s.Leases = 200
	s.Disk = runner.DiskSpec{FsyncLatency: 2 * time.Millisecond, GroupCommit: true}
	return s
}

func TestDiskGroupCommit(t *testing.T) {
	s := diskSpec()
	grouped, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Disk.GroupCommit = false
	single, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if grouped.LeasesAcquired != s.Leases || single.LeasesAcquired != s.Leases {
		t.Fatalf("acquired %d and %d of %d", grouped.LeasesAcquired, single.LeasesAcquired, s.Leases)
	}
	// Two records a lease (the promise and the accept), and without group
	// commit each is its own fsync.
	records := 2 * int64(s.Leases)
	if single.Fsyncs != records {
		t.Errorf("one fsync per record expected: %d fsyncs for %d records", single.Fsyncs, records)
	}
	if grouped.Fsyncs >= single.Fsyncs/10 || grouped.Fsyncs == 0 {
		t.Errorf("group commit should batch: %d fsyncs vs %d", grouped.Fsyncs, single.Fsyncs)
	}
	if grouped.DiskBytes != records*record.DiskRecordSize || single.DiskBytes != grouped.DiskBytes {
		t.Errorf("bytes written %d and %d, want %d", grouped.DiskBytes, single.DiskBytes, records*record.DiskRecordSize)
	}
	// Serialised fsyncs make the batch far slower.
	if single.LeasesPerSec >= grouped.LeasesPerSec {
		t.Errorf("leases/s without group commit %.0f, with %.0f", single.LeasesPerSec, grouped.LeasesPerSec)
	}
	if grouped.FsyncLatencyMS.N != int(grouped.Fsyncs) || grouped.FsyncLatencyMS.P50 <= 0 {
		t.Errorf("fsync latency meter: %+v", grouped.FsyncLatencyMS)
	}
}

func TestDiskHoldsMessagesUntilSynced(t *testing.T) {
	s := diskSpec()
	s.Workload = "single"
	s.Disk.FsyncLatency = 50 * time.Millisecond
	s.Net.Jitter = 0
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Node 0 is acceptor and proposer: no network delay, so the latency is
	// the fsyncs alone, of the promise and of the accept (lognormal around
	// 50 ms each, never near zero).
	if res.LeasesAcquired != 1 || res.LatencyMS.P50 < 5 {
		t.Fatalf("acquired %d after %.3f ms; the promise and accept must wait for their fsyncs", res.LeasesAcquired, res.LatencyMS.P50)
	}
	s.Ablate = []string{"fsync"}
	res, err = runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The answers do not wait (the records are synced behind them; the run
	// ends at the acquisition, before those fsyncs complete).
	if res.LeasesAcquired != 1 || res.LatencyMS.P50 != 0 || res.Fsyncs > 1 || res.DiskBytes != 2*record.DiskRecordSize {
		t.Fatalf("NoSync: acquired %d after %.3f ms, %d fsyncs, %d bytes", res.LeasesAcquired, res.LatencyMS.P50, res.Fsyncs, res.DiskBytes)
	}
}

func TestDiskBackgroundWriter(t *testing.T) {
	s := diskSpec()
	s.Leases = 200
	s.Disk.Background = true
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.FsyncLatencyMS.P50 < 100 {
		t.Fatalf("a background writer should make fsyncs slow: %+v", res.FsyncLatencyMS)
	}
}

// TestDiskCrashRecovery: classic Paxos recovers its promises and accepts
// and needs no quarantine; answering before the fsync completes (the
// fsync ablation) loses the records a crash catches inside their fsync,
// and the checker sees two owners.
func TestDiskCrashRecovery(t *testing.T) {
	// Five proposers and frequent crashes with short downtimes on a slow
	// disk (the fsync ablation's command in experiments.Exposes): a crash
	// often lands inside an fsync.
	base := runner.DefaultSpec()
	base.Algo = "classicpaxos"
	base.Proposers = 5
	base.Duration = 2 * time.Minute
	base.Disk.FsyncLatency = 500 * time.Millisecond
	base.Faults.CrashRate, base.Faults.Downtime = 20, 10*time.Millisecond
	// As `leaselab check` draws them: the workload's shape varies by seed.
	cs := campaign.CheckSpec{Base: base, Faults: []string{"crash"}, Seeds: 30, FirstSeed: 1, Vary: campaign.Vary{Workload: true, PartitionLen: true}}
	ok, err := campaign.Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok.Violations != 0 || ok.LeasesAcquired == 0 {
		t.Fatalf("durable classic Paxos: %+v", ok)
	}
	// Without the wait a promise or accept leaves before its fsync, and
	// only a crash inside that fsync loses it.
	cs.Base.Ablate = []string{"fsync"}
	bad, err := campaign.Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Violations == 0 {
		t.Fatalf("unsynced records lost in crashes went unnoticed: %+v", bad)
	}
}

func TestDiskRecordSizeMatchesWAL(t *testing.T) {
	if record.DiskRecordSize != wal.RecordSize {
		t.Fatalf("DiskRecordSize %d, wal.RecordSize %d", record.DiskRecordSize, wal.RecordSize)
	}
}

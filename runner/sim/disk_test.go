package sim_test

import (
	"testing"
	"time"

	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/internal/toy"
	"leaselab/runner/record"
	"leaselab/runner/udp/wal"
)

func diskSpec() runner.Spec {
	s := toy.Spec("test-disk")
	s.Workload = "batch"
	s.Proposers = 1
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
	// Without group commit every grant is its own fsync.
	if single.Fsyncs != int64(s.Leases) {
		t.Errorf("one fsync per record expected: %d fsyncs for %d leases", single.Fsyncs, s.Leases)
	}
	if grouped.Fsyncs >= single.Fsyncs/10 || grouped.Fsyncs == 0 {
		t.Errorf("group commit should batch: %d fsyncs vs %d", grouped.Fsyncs, single.Fsyncs)
	}
	if grouped.DiskBytes != int64(s.Leases)*record.DiskRecordSize || single.DiskBytes != grouped.DiskBytes {
		t.Errorf("bytes written %d and %d, want %d", grouped.DiskBytes, single.DiskBytes, s.Leases*record.DiskRecordSize)
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
	// Node 0 is server and requester: no network delay, so the latency is
	// the fsync alone (lognormal around 50 ms, never near zero).
	if res.LeasesAcquired != 1 || res.LatencyMS.P50 < 5 {
		t.Fatalf("acquired %d after %.3f ms; the grant must wait for its fsync", res.LeasesAcquired, res.LatencyMS.P50)
	}
	s.Ablate = []string{"fsync"}
	res, err = runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The answer does not wait (the record is synced behind it; the run
	// ends at the acquisition, before that fsync completes).
	if res.LeasesAcquired != 1 || res.LatencyMS.P50 != 0 || res.Fsyncs > 1 || res.DiskBytes != record.DiskRecordSize {
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

// TestDiskCrashRecovery: the durable toy recovers its grants and needs no
// quarantine; answering before the fsync completes (the fsync ablation)
// loses the grants a crash catches inside their fsync, and the checker sees
// two owners.
func TestDiskCrashRecovery(t *testing.T) {
	base := toy.Spec("test-disk")
	base.Acceptors, base.Proposers = 3, 2 // node 2 is the server and never requests
	base.Release = false
	base.Hold = 0
	base.Pause = 0
	base.Duration = 30 * time.Second
	cs := campaign.CheckSpec{Base: base, Faults: []string{"crash"}, Seeds: 30, FirstSeed: 1}
	ok, err := campaign.Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok.Violations != 0 || ok.LeasesAcquired == 0 {
		t.Fatalf("durable toy: %+v", ok)
	}
	// Without the wait a grant leaves before its fsync, and only a crash
	// inside that fsync loses it: a slow disk makes the window wide.
	cs.Base.Ablate = []string{"fsync"}
	cs.Base.Disk.FsyncLatency = time.Second
	bad, err := campaign.Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Violations == 0 {
		t.Fatalf("unsynced grants lost in crashes went unnoticed: %+v", bad)
	}
}

func TestDiskRecordSizeMatchesWAL(t *testing.T) {
	if record.DiskRecordSize != wal.RecordSize {
		t.Fatalf("DiskRecordSize %d, wal.RecordSize %d", record.DiskRecordSize, wal.RecordSize)
	}
}

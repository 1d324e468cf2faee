package udp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leaselab/runner"
)

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// The writer overwrites its file cyclically (the file never grows past
// FileSize, however long it runs), syncs every SyncEvery bytes, and
// removes the file when stopped.
func TestBackgroundWriterBoundedAndRemoved(t *testing.T) {
	dir := t.TempDir()
	const (
		fileSize  = 4 << 20
		block     = 1 << 20
		syncEvery = 1 << 20
		wantSyncs = 12 // three times round the file
	)
	reached := make(chan struct{})
	var maxSize int64
	var path string
	var statErr error
	cfg := BackgroundConfig{Dir: dir, FileSize: fileSize, Block: block, SyncEvery: syncEvery}
	cfg.afterSync = func(k int64, f *os.File) {
		// On the writer's goroutine, between two writes: the file is
		// as large as it will get at this point.
		path = f.Name()
		if fi, err := f.Stat(); err != nil {
			statErr = err
		} else if fi.Size() > maxSize {
			maxSize = fi.Size()
		}
		if k == wantSyncs {
			close(reached)
		}
	}
	b, err := StartBackground(cfg)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-time.After(30 * time.Second):
		b.Stop()
		t.Fatal("the writer did not sync 12 times in 30 s")
	}
	st, err := b.Stop()
	if err != nil {
		t.Fatal(err)
	}
	// Stop returned, so the writer's goroutine has ended: its variables
	// are ours.
	if statErr != nil {
		t.Fatal(statErr)
	}
	t.Logf("%d bytes, %d syncs in %v: %.0f MB/s; largest file %d bytes", st.Bytes, st.Syncs, time.Duration(st.ElapsedNS), st.BytesPerSec/1e6, maxSize)
	if maxSize <= 0 || maxSize > fileSize {
		t.Fatalf("file reached %d bytes, bound %d", maxSize, fileSize)
	}
	// The stats count from the end of the warm-up (the first sync).
	if st.Syncs < wantSyncs-1 || st.Bytes < (wantSyncs-1)*syncEvery || st.BytesPerSec <= 0 {
		t.Fatalf("stats %+v", st)
	}
	if st.File != path {
		t.Fatalf("stats name %q, file was %q", st.File, path)
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
	if again, err := b.Stop(); err != nil || again != st {
		t.Fatalf("second Stop: %+v, %v", again, err)
	}
}

func TestBackgroundWriterRejects(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		cfg  BackgroundConfig
		want string
	}{
		{"no dir", BackgroundConfig{}, "no directory"},
		{"negative block", BackgroundConfig{Dir: dir, Block: -1}, "must not be negative"},
		{"negative min free", BackgroundConfig{Dir: dir, MinFree: -1}, "must not be negative"},
		{"file smaller than a block", BackgroundConfig{Dir: dir, FileSize: 1 << 10, Block: 1 << 20}, "multiple of the block size"},
		{"file not whole blocks", BackgroundConfig{Dir: dir, FileSize: 3 << 19, Block: 1 << 20}, "multiple of the block size"},
		// No filesystem here has an exbibyte free.
		{"too little free space", BackgroundConfig{Dir: dir, MinFree: 1 << 60}, "free, the writer needs at least"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := StartBackground(c.cfg)
			if err == nil {
				b.Stop()
				t.Fatalf("started with %+v", c.cfg)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to say %q", err, c.want)
			}
		})
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Fatalf("a refused writer left %v", names)
	}
}

// Classic Paxos over UDP with and without the background writer in the
// run's disk directory. The writer's effect on the fsyncs depends on the
// machine (a virtual disk with a write-back cache barely notices it), so
// the latencies are logged, not compared; what must hold: the writer
// really wrote during the run, its file is gone afterwards, and safety is
// untouched. A diskless algorithm gets the writer too.
func TestBatchWithBackgroundWriter(t *testing.T) {
	for _, c := range []struct {
		algo string
		bg   bool
	}{
		{"classicpaxos", false},
		{"classicpaxos", true},
		{"naive", true},
	} {
		s := udpSpec(c.algo, "batch")
		s.Proposers = 1
		s.Leases = 5000
		// A limit well past what the batch needs on an idle machine
		// (under 1 s), to keep the test short when the writer makes
		// classic Paxos time out; unfinished leases count as failed,
		// which is allowed.
		s.Duration = 4 * time.Second
		s.Params.DMax = 50 * time.Millisecond
		s.Disk.Background = c.bg
		s.Disk.Dir = t.TempDir()
		r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Window: 256})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s background %v: %d acquired, %d failed, %d timeouts, %.0f leases/s; %d fsyncs, latency p50 %.3f p90 %.3f p99 %.3f max %.3f ms; writer %.0f MB/s (%d bytes, %d syncs in %v)",
			c.algo, c.bg, r.LeasesAcquired, r.LeasesFailed, r.Timeouts, r.LeasesPerSec, r.Fsyncs,
			r.FsyncLatencyMS.P50, r.FsyncLatencyMS.P90, r.FsyncLatencyMS.P99, r.FsyncLatencyMS.Max,
			r.BackgroundBytesPerS/1e6, ex.Background.Bytes, ex.Background.Syncs, time.Duration(ex.Background.ElapsedNS))
		if r.Violations != 0 {
			t.Fatalf("%d violations", r.Violations)
		}
		if c.bg != (ex.Background.Bytes > 0) || c.bg != (r.BackgroundBytesPerS > 0) {
			t.Fatalf("background %v: writer wrote %d bytes, result says %.0f bytes/s", c.bg, ex.Background.Bytes, r.BackgroundBytesPerS)
		}
		for _, name := range dirEntries(t, s.Disk.Dir) {
			if strings.HasPrefix(name, "leaselab-background-") {
				t.Fatalf("the writer's file %s is still there", name)
			}
		}
	}
}

// The single workload (bench --workload single) runs the writer too and
// removes its file.
func TestSingleWithBackgroundWriter(t *testing.T) {
	s := udpSpec("naive", "single")
	s.Proposers = 1
	s.Disk.Background = true
	s.Disk.Dir = t.TempDir()
	r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d leases, writer %+v", r.LeasesAcquired, ex.Background)
	if r.LeasesAcquired+r.LeasesFailed != 1 || ex.Background.File == "" || filepath.Dir(ex.Background.File) != s.Disk.Dir {
		t.Fatalf("%d acquired, %d failed; writer %+v", r.LeasesAcquired, r.LeasesFailed, ex.Background)
	}
	if names := dirEntries(t, s.Disk.Dir); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

package udp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The background disk writer of the FaTLease paper's IOzone experiment
// (Sec. 5.3, Fig. 10: `iozone -t 1 -s2G`, one writer streaming a 2 GB
// file while the leases are negotiated), for Spec.Disk.Background in the
// udp environment. The simulator models the writer's effect on an fsync
// (runner/sim/disk.go); here a real writer competes with the real logs.
//
// One goroutine writes BackgroundBlock-sized blocks (1 MiB) to one file
// in the run's disk directory, the directory that holds the classic Paxos
// logs (so the same filesystem and the same device), and calls fsync after
// every BackgroundSyncEvery bytes (64 MiB). The file is overwritten
// cyclically at a fixed size (256 MiB), so the disk space it takes is
// bounded, and removed when the writer stops.
//
// Why fsync every 64 MiB rather than stream without fsync as IOzone's
// throughput test does: on a machine with many GB of RAM the kernel starts
// writing dirty pages back only once they exceed dirty_background_ratio
// (10% of RAM: 2.4 GB on a 24 GB machine) or are 30 s old, so a writer
// that overwrites a 256 MiB file without syncing only copies memory and
// never reaches the disk (measured here: 7 GB/s "written", log fsyncs
// unaffected). IOzone's 2 GB file on the paper's 2008 machine exceeded
// the dirty limits and so kept the disk busy; syncing every 64 MiB keeps
// this writer's data flowing to the device all the time in the same way,
// while bounding its dirty pages to 64 MiB (and so how long Stop waits for
// the current fsync). Measured on the development VM (ext4 on virtio,
// three loggers doing 48-byte write+fsync in a loop, 3 s each): syncing
// every 4, 16 and 64 MiB the writer reached 1.5, 1.9-2.1 and 2.1-2.3 GB/s
// and cut the loggers' fsyncs from 20-25 k to 7-9 k, 5-6 k and 2.2 k, with
// their p90 latency going from 0.6 ms to 2.3, 5.5 and 17 ms. 64 MiB is
// the closest to a streaming writer (highest rate, longest device
// queues) of the three.
//
// The writer also costs CPU (the copy into the page cache: about one core
// at 2 GB/s), as IOzone did in the paper; that is what slows the diskless
// algorithms, which get the writer too.

const (
	// BackgroundFileSize is the size of the file the writer overwrites
	// cyclically.
	BackgroundFileSize = 256 << 20
	// BackgroundBlock is the size of one write.
	BackgroundBlock = 1 << 20
	// BackgroundSyncEvery: the writer calls fsync after this many bytes.
	BackgroundSyncEvery = 64 << 20
	// BackgroundMinFree: the writer refuses to start on a filesystem with
	// less free space than this.
	BackgroundMinFree = 1 << 30
)

// BackgroundConfig configures a background writer; zero fields take the
// defaults above.
type BackgroundConfig struct {
	// Dir is where the writer's file goes (created if missing).
	Dir       string
	FileSize  int64
	Block     int
	SyncEvery int64
	MinFree   int64

	// afterSync, if set (tests), is called on the writer's goroutine
	// after each of its fsyncs with the number of fsyncs so far and the
	// writer's file.
	afterSync func(syncs int64, f *os.File)
}

// BackgroundStats is what a background writer did.
type BackgroundStats struct {
	// Bytes written (returned by write) from the end of the warm-up (see
	// StartBackground) to Stop; with an fsync every SyncEvery bytes, at
	// most SyncEvery of them were not yet on the disk at any moment. So
	// over a span that is short against SyncEvery / (the disk's rate),
	// tens of ms here, the rate is partly that of copying into the page
	// cache; over longer spans it is the disk's.
	Bytes int64 `json:"bytes"`
	// Syncs: fsync calls in the same span.
	Syncs int64 `json:"syncs"`
	// ElapsedNS: the span's length.
	ElapsedNS int64 `json:"elapsed_ns"`
	// BytesPerSec = Bytes / ElapsedNS.
	BytesPerSec float64 `json:"bytes_per_sec"`
	// File the writer used (removed by Stop).
	File string `json:"file"`
}

// Background is a running background writer.
type Background struct {
	cfg   BackgroundConfig
	f     *os.File
	stop  chan struct{}
	done  chan struct{}
	warm  chan struct{} // closed after the first fsync (or on an error)
	bytes atomic.Int64
	syncs atomic.Int64
	err   error // the writer's; read after done is closed

	mark      time.Time // end of the warm-up
	markBytes int64
	markSyncs int64

	stopOnce sync.Once
	stats    BackgroundStats
	stopErr  error
}

// StartBackground checks the configuration and the free space of
// cfg.Dir's filesystem, creates the writer's file there and starts
// writing. It returns once the writer has written and synced its first
// SyncEvery bytes (the warm-up), so that the disk is busy with it from the
// moment the caller starts measuring; the stats count from then.
func StartBackground(cfg BackgroundConfig) (*Background, error) {
	if cfg.Dir == "" {
		return nil, errors.New("udp: background writer: no directory")
	}
	if cfg.FileSize == 0 {
		cfg.FileSize = BackgroundFileSize
	}
	if cfg.Block == 0 {
		cfg.Block = BackgroundBlock
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = BackgroundSyncEvery
	}
	if cfg.MinFree == 0 {
		cfg.MinFree = BackgroundMinFree
	}
	switch {
	case cfg.Block < 0 || cfg.FileSize < 0 || cfg.SyncEvery < 0 || cfg.MinFree < 0:
		return nil, fmt.Errorf("udp: background writer: sizes must not be negative (file %d, block %d, sync every %d, min free %d)",
			cfg.FileSize, cfg.Block, cfg.SyncEvery, cfg.MinFree)
	case cfg.FileSize < int64(cfg.Block) || cfg.FileSize%int64(cfg.Block) != 0:
		return nil, fmt.Errorf("udp: background writer: file size %d must be a positive multiple of the block size %d", cfg.FileSize, cfg.Block)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("udp: background writer: %w", err)
	}
	free, err := freeBytes(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("udp: background writer: free space of %s: %w", cfg.Dir, err)
	}
	if free < cfg.MinFree {
		return nil, fmt.Errorf("udp: background writer: the filesystem of %s has %s free, the writer needs at least %s (its file takes %s); free some space or pick another --disk-dir",
			cfg.Dir, mib(free), mib(cfg.MinFree), mib(cfg.FileSize))
	}
	f, err := os.CreateTemp(cfg.Dir, "leaselab-background-*.dat")
	if err != nil {
		return nil, fmt.Errorf("udp: background writer: %w", err)
	}
	b := &Background{cfg: cfg, f: f, stop: make(chan struct{}), done: make(chan struct{}), warm: make(chan struct{})}
	go b.run()
	<-b.warm // the writer set the mark before it closed warm
	select {
	case <-b.done:
		// The writer failed during the warm-up.
		_, err := b.Stop()
		return nil, err
	default:
	}
	return b, nil
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// run is the writer's goroutine: write a block, every SyncEvery bytes
// fsync, until stop.
func (b *Background) run() {
	defer close(b.done)
	warm := false
	warmed := func() {
		if !warm {
			warm = true
			// Mark the end of the warm-up here, on the writer's goroutine
			// at its first sync: marked by the starter after <-warm, the
			// writer could already be a sync or two further on a fast disk.
			b.mark = time.Now()
			b.markBytes = b.bytes.Load()
			b.markSyncs = b.syncs.Load()
			close(b.warm)
		}
	}
	defer warmed()
	// Random contents, so that nothing between the writer and the platter
	// (a deduplicating or compressing virtual disk) can skip the work.
	buf := make([]byte, b.cfg.Block)
	rng := rand.New(rand.NewPCG(0x62676e64, uint64(b.cfg.Block)))
	for i := 0; i+8 <= len(buf); i += 8 {
		v := rng.Uint64()
		for k := 0; k < 8; k++ {
			buf[i+k] = byte(v >> (8 * k))
		}
	}
	var off, unsynced int64
	for {
		select {
		case <-b.stop:
			return
		default:
		}
		n, err := b.f.WriteAt(buf, off)
		b.bytes.Add(int64(n))
		unsynced += int64(n)
		if err != nil {
			b.err = err
			return
		}
		off += int64(n)
		if off >= b.cfg.FileSize {
			off = 0
		}
		if unsynced >= b.cfg.SyncEvery {
			if err := b.f.Sync(); err != nil {
				b.err = err
				return
			}
			k := b.syncs.Add(1)
			unsynced = 0
			warmed()
			if b.cfg.afterSync != nil {
				b.cfg.afterSync(k, b.f)
			}
		}
	}
}

// Stats reports what the writer has done since the warm-up, so far.
func (b *Background) Stats() BackgroundStats {
	s := BackgroundStats{
		Bytes:     b.bytes.Load() - b.markBytes,
		Syncs:     b.syncs.Load() - b.markSyncs,
		ElapsedNS: int64(time.Since(b.mark)),
		File:      b.f.Name(),
	}
	if s.ElapsedNS > 0 {
		s.BytesPerSec = float64(s.Bytes) / (float64(s.ElapsedNS) / 1e9)
	}
	return s
}

// Stop ends the writer after its current write or fsync (at most one
// SyncEvery's worth of data to flush), closes and removes its file, and
// returns its stats and the first error it met. Calling it again returns
// the same.
func (b *Background) Stop() (BackgroundStats, error) {
	b.stopOnce.Do(func() {
		// The span ends when the stop is asked for, not when the writer
		// gets round to it.
		b.stats = b.Stats()
		close(b.stop)
		<-b.done
		var errs []error
		if b.err != nil {
			errs = append(errs, fmt.Errorf("udp: background writer: %w", b.err))
		}
		if err := b.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("udp: background writer: %w", err))
		}
		// Unsynced pages of a removed file are dropped, not written: the
		// removal is quick.
		if err := os.Remove(b.f.Name()); err != nil {
			errs = append(errs, fmt.Errorf("udp: background writer: %w", err))
		}
		b.stopErr = errors.Join(errs...)
	})
	return b.stats, b.stopErr
}

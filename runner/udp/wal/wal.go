// Package wal is the stable storage of classic Paxos acceptors: an
// append-only log file per node of checksummed fixed-size records
// (algorithms.Record), synced with File.Sync before an acceptor's answer
// may leave.
//
// Recovery reads records oldest first and stops cleanly at a torn tail (a
// write cut short by a crash): the incomplete or corrupt last record is cut
// off and the log goes on from there. A corrupt record followed by good
// ones is not a torn tail but damaged storage: Open reports ErrCorrupt
// with the records before it, and the caller decides (an acceptor must not
// rejoin on a log that lost promises).
//
// Group commit (the paper's "extra thread that writes multiple messages
// (if available) to disk before calling fsync"): appends that arrive while
// a sync is in progress are written together and covered by the next
// single sync. Options.GroupCommit false syncs every record on its own, to
// measure the unbatched cost.
//
// Compaction: the log keeps in memory the live state (per resource, the
// last record of each of its two highest instances — exactly what an
// acceptor recovers) and, when the file passes Options.CompactAt bytes,
// rewrites it with only that state (write to a temporary file, sync,
// rename, sync the directory), so a long run does not grow without bound.
//
// This package is environment code (the UDP environment uses it); it may use
// goroutines and files. Of this module it imports only package algorithms.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"leaselab/algorithms"
)

// RecordSize is the size of one record on disk:
//
//	[0:4]   CRC-32C of bytes 4..47
//	[4]     format version (1)
//	[5]     zero
//	[6:8]   owner
//	[8:16]  resource
//	[16:24] instance
//	[24:32] promised ballot
//	[32:40] accepted ballot
//	[40:48] expiry
//
// all little endian.
const RecordSize = 48

const version = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt: a record failed its checksum and good records follow it.
var ErrCorrupt = errors.New("wal: corrupt record inside the log (not a torn tail)")

// ErrClosed: the log was closed.
var ErrClosed = errors.New("wal: closed")

// Encode writes r into b (len >= RecordSize).
func Encode(b []byte, r algorithms.Record) {
	b[4], b[5] = version, 0
	binary.LittleEndian.PutUint16(b[6:], uint16(r.Owner))
	binary.LittleEndian.PutUint64(b[8:], uint64(r.Resource))
	binary.LittleEndian.PutUint64(b[16:], r.Instance)
	binary.LittleEndian.PutUint64(b[24:], uint64(r.Promised))
	binary.LittleEndian.PutUint64(b[32:], uint64(r.Accepted))
	binary.LittleEndian.PutUint64(b[40:], uint64(r.Expiry))
	binary.LittleEndian.PutUint32(b[0:], crc32.Checksum(b[4:RecordSize], castagnoli))
}

// Decode reads a record, or fails if its checksum or version is wrong.
func Decode(b []byte) (algorithms.Record, error) {
	if len(b) < RecordSize {
		return algorithms.Record{}, fmt.Errorf("wal: short record (%d bytes)", len(b))
	}
	if crc32.Checksum(b[4:RecordSize], castagnoli) != binary.LittleEndian.Uint32(b[0:]) {
		return algorithms.Record{}, errors.New("wal: checksum mismatch")
	}
	if b[4] != version || b[5] != 0 {
		return algorithms.Record{}, fmt.Errorf("wal: unknown record format %d", b[4])
	}
	return algorithms.Record{
		Owner:    algorithms.NodeID(binary.LittleEndian.Uint16(b[6:])),
		Resource: algorithms.ResourceID(binary.LittleEndian.Uint64(b[8:])),
		Instance: binary.LittleEndian.Uint64(b[16:]),
		Promised: algorithms.Ballot(binary.LittleEndian.Uint64(b[24:])),
		Accepted: algorithms.Ballot(binary.LittleEndian.Uint64(b[32:])),
		Expiry:   algorithms.Local(binary.LittleEndian.Uint64(b[40:])),
	}, nil
}

// Storage is what an acceptor's environment needs of stable storage.
type Storage interface {
	// Append makes recs durable (written and synced) before it returns.
	Append(recs []algorithms.Record) error
	// Write writes recs without waiting for a sync.
	Write(recs []algorithms.Record) error
	// Sync makes everything written so far durable.
	Sync() error
	Close() error
}

// Options configure a Log.
type Options struct {
	// GroupCommit: concurrent appends share one sync. Off: one sync per
	// record.
	GroupCommit bool
	// CompactAt: rewrite the live state once the file is larger than
	// this many bytes (0: DefaultCompactAt; negative: never).
	CompactAt int64
}

// DefaultCompactAt is the default compaction threshold.
const DefaultCompactAt = 64 << 20

// Stats count what the log did.
type Stats struct {
	Syncs       int64 // File.Sync calls on the log
	Records     int64 // records appended
	Bytes       int64 // bytes written (compactions included)
	Compactions int64
	// Truncated: bytes of torn tail cut off at open.
	Truncated int64
}

type liveKey struct {
	res  algorithms.ResourceID
	inst uint64
}

// Log is a Storage backed by one append-only file.
type Log struct {
	path string
	opt  Options

	mu      sync.Mutex
	cond    *sync.Cond
	f       *os.File
	size    int64
	pending []byte // written by Append, not yet handed to the writer
	waiters []chan error
	syncing bool // the writer is writing/syncing a batch
	closed  bool
	err     error // sticky I/O error
	stats   Stats
	// live: per resource, its highest instances' last records.
	live map[algorithms.ResourceID]*[2]algorithms.Record
	done chan struct{}
}

// Open opens (creating if needed) the log at path, recovers its records
// (oldest first) and starts the group-commit writer.
func Open(path string, opt Options) (*Log, []algorithms.Record, error) {
	if opt.CompactAt == 0 {
		opt.CompactAt = DefaultCompactAt
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	recs, good, truncated, rerr := scan(f)
	if rerr != nil && !errors.Is(rerr, ErrCorrupt) {
		f.Close()
		return nil, nil, rerr
	}
	if rerr == nil && truncated > 0 {
		// A torn tail: cut it off so the next append starts on a
		// record boundary.
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if rerr != nil {
		f.Close()
		return nil, recs, rerr
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	l := &Log{path: path, opt: opt, f: f, size: good, live: map[algorithms.ResourceID]*[2]algorithms.Record{}, done: make(chan struct{})}
	l.stats.Truncated = truncated
	l.cond = sync.NewCond(&l.mu)
	for _, r := range recs {
		l.track(r)
	}
	go l.writer()
	return l, recs, nil
}

// Load reads the records of the log at path without opening it for
// writing (a missing file has none).
func Load(path string) ([]algorithms.Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, _, _, err := scan(f)
	return recs, err
}

// scan reads every whole, valid record. good is the offset after the last
// one; truncated the bytes after it that are a torn tail.
func scan(f *os.File) (recs []algorithms.Record, good, truncated int64, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, 0, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, 0, err
	}
	n := int64(len(data))
	for off := int64(0); off+RecordSize <= n; off += RecordSize {
		r, derr := Decode(data[off : off+RecordSize])
		if derr != nil {
			// Torn tail, or damage inside the log? Damage if any later
			// whole record is valid.
			for later := off + RecordSize; later+RecordSize <= n; later += RecordSize {
				if _, e := Decode(data[later : later+RecordSize]); e == nil {
					return recs, off, 0, fmt.Errorf("%w at offset %d", ErrCorrupt, off)
				}
			}
			return recs, off, n - off, nil
		}
		recs = append(recs, r)
		good = off + RecordSize
	}
	return recs, good, n - good, nil
}

// track updates the live state with r: the last record of each of a
// resource's two highest instances.
func (l *Log) track(r algorithms.Record) {
	s := l.live[r.Resource]
	if s == nil {
		s = &[2]algorithms.Record{}
		l.live[r.Resource] = s
	}
	switch {
	case r.Instance == s[1].Instance:
		s[1] = r
	case r.Instance > s[1].Instance:
		s[0], s[1] = s[1], r
	case r.Instance == s[0].Instance:
		s[0] = r
	case r.Instance > s[0].Instance:
		s[0] = r
	}
}

// Append makes recs durable before it returns. With group commit, appends
// that come while a sync runs are written and synced together.
func (l *Log) Append(recs []algorithms.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if !l.opt.GroupCommit {
		return l.appendEach(recs)
	}
	ch := make(chan error, 1)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.enqueue(recs)
	l.waiters = append(l.waiters, ch)
	l.cond.Signal()
	l.mu.Unlock()
	return <-ch
}

func (l *Log) enqueue(recs []algorithms.Record) {
	var b [RecordSize]byte
	for _, r := range recs {
		Encode(b[:], r)
		l.pending = append(l.pending, b[:]...)
		l.track(r)
	}
	l.stats.Records += int64(len(recs))
}

// appendEach writes and syncs every record on its own (group commit off).
func (l *Log) appendEach(recs []algorithms.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	for i := range recs {
		l.enqueue(recs[i : i+1])
		if err := l.flushLocked(true); err != nil {
			return err
		}
	}
	return l.maybeCompactLocked()
}

// Write writes recs without a sync.
func (l *Log) Write(recs []algorithms.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	for l.syncing {
		l.cond.Wait()
	}
	l.enqueue(recs)
	return l.flushLocked(false)
}

// Sync makes everything written durable.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	for l.syncing {
		l.cond.Wait()
	}
	return l.flushLocked(true)
}

// flushLocked writes the pending bytes (and syncs) with l.mu held.
func (l *Log) flushLocked(doSync bool) error {
	if l.err != nil {
		return l.err
	}
	if len(l.pending) > 0 {
		n, err := l.f.Write(l.pending)
		l.size += int64(n)
		l.stats.Bytes += int64(n)
		l.pending = l.pending[:0]
		if err != nil {
			l.err = err
			return err
		}
	}
	if doSync {
		l.stats.Syncs++
		if err := l.f.Sync(); err != nil {
			l.err = err
			return err
		}
	}
	return nil
}

// writer is the group-commit goroutine: it takes everything pending,
// writes it with one write and makes it durable with one sync, then wakes
// every append of the batch. Appends arriving meanwhile form the next
// batch.
func (l *Log) writer() {
	defer close(l.done)
	l.mu.Lock()
	for {
		for len(l.waiters) == 0 && !l.closed {
			l.cond.Wait()
		}
		if len(l.waiters) == 0 && l.closed {
			l.mu.Unlock()
			return
		}
		buf := l.pending
		l.pending = nil
		waiters := l.waiters
		l.waiters = nil
		l.syncing = true
		f, ferr := l.f, l.err
		l.mu.Unlock()

		err := ferr
		var n int
		if err == nil {
			n, err = f.Write(buf)
			if err == nil {
				err = f.Sync()
			}
		}

		l.mu.Lock()
		l.size += int64(n)
		l.stats.Bytes += int64(n)
		l.stats.Syncs++
		if err != nil && l.err == nil {
			l.err = err
		}
		if err == nil {
			err = l.maybeCompactLocked()
		}
		l.syncing = false
		l.cond.Broadcast()
		for _, w := range waiters {
			w <- err
		}
	}
}

// maybeCompactLocked rewrites the log with its live state once it is too
// big. Called with l.mu held and nothing pending in flight.
func (l *Log) maybeCompactLocked() error {
	if l.opt.CompactAt < 0 || l.size <= l.opt.CompactAt || l.err != nil {
		return l.err
	}
	res := make([]algorithms.ResourceID, 0, len(l.live))
	for r := range l.live {
		res = append(res, r)
	}
	sort.Slice(res, func(i, j int) bool { return res[i] < res[j] })
	buf := make([]byte, 0, 2*RecordSize*len(res))
	var b [RecordSize]byte
	for _, r := range res {
		for _, rc := range l.live[r] {
			if rc.Instance == 0 {
				continue
			}
			Encode(b[:], rc)
			buf = append(buf, b[:]...)
		}
	}
	tmp := l.path + ".compact"
	nf, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		_, err = nf.Write(buf)
	}
	if err == nil {
		err = nf.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, l.path)
	}
	if err == nil {
		err = SyncDir(filepath.Dir(l.path))
	}
	if err != nil {
		if nf != nil {
			nf.Close()
		}
		os.Remove(tmp)
		// The old log is intact: keep using it, try again later.
		return nil
	}
	l.f.Close()
	l.f = nf
	l.size = int64(len(buf))
	l.stats.Bytes += int64(len(buf))
	l.stats.Syncs++
	l.stats.Compactions++
	return nil
}

// SyncDir makes the entries of dir (files created, renamed or removed in
// it) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Stats returns the counters so far.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// Size is the log file's current size in bytes.
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size
}

// Close stops the writer (after the batch in flight) and closes the file.
// Records written with Write but not synced are synced first.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.flushLocked(true)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

package udp

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"

	"leaselab/algorithms"
)

// Storage makes a node's Output.Persist records durable (classic Paxos).
// The node appends the records of each step as they come and syncs once
// when it runs out of input, before it sends the messages that waited for
// them: records of a whole burst share one fsync (group commit), and no
// answer leaves before the state it implies is on disk.
type Storage interface {
	// Append writes records (not necessarily durably) and returns the
	// bytes written.
	Append(recs []algorithms.Record) (int, error)
	// Sync makes everything appended so far durable.
	Sync() error
	Close() error
}

// FileLog is a plain append-only log file: each record is 42 bytes plus a
// CRC-32C, written with one write per Sync and made durable with fsync
// (File.Sync). It is the udp environment's own fallback storage; recovery
// and compaction belong to classic Paxos's log package.
type FileLog struct {
	f   *os.File
	buf []byte
}

// OpenFileLog creates (or appends to) the log at path.
func OpenFileLog(path string) (*FileLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("udp: open log: %w", err)
	}
	return &FileLog{f: f}, nil
}

const fileLogRecord = 42 + 4

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Append buffers recs; they reach the file at the next Sync.
func (l *FileLog) Append(recs []algorithms.Record) (int, error) {
	le := binary.LittleEndian
	for _, r := range recs {
		n := len(l.buf)
		l.buf = le.AppendUint64(l.buf, uint64(r.Resource))
		l.buf = le.AppendUint64(l.buf, r.Instance)
		l.buf = le.AppendUint64(l.buf, uint64(r.Promised))
		l.buf = le.AppendUint64(l.buf, uint64(r.Accepted))
		l.buf = le.AppendUint16(l.buf, uint16(r.Owner))
		l.buf = le.AppendUint64(l.buf, uint64(r.Expiry))
		l.buf = le.AppendUint32(l.buf, crc32.Checksum(l.buf[n:], crcTable))
	}
	return len(recs) * fileLogRecord, nil
}

// Sync writes the buffered records and fsyncs the file.
func (l *FileLog) Sync() error {
	if len(l.buf) > 0 {
		if _, err := l.f.Write(l.buf); err != nil {
			return fmt.Errorf("udp: write log: %w", err)
		}
		l.buf = l.buf[:0]
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("udp: fsync log: %w", err)
	}
	return nil
}

// Close syncs and closes the file.
func (l *FileLog) Close() error {
	err := l.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

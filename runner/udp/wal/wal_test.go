package wal

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"leaselab/algorithms"
)

func rec(res, inst uint64, prom uint64) algorithms.Record {
	return algorithms.Record{
		Resource: algorithms.ResourceID(res), Instance: inst,
		Promised: algorithms.Ballot(prom), Accepted: algorithms.Ballot(prom / 2),
		Owner: algorithms.NodeID(res % 5), Expiry: algorithms.Local(1e9 + int64(prom)),
	}
}

func openT(t *testing.T, path string, opt Options) (*Log, []algorithms.Record) {
	t.Helper()
	l, recs, err := Open(path, opt)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l, recs
}

func TestEncodeDecode(t *testing.T) {
	for _, r := range []algorithms.Record{
		{},
		rec(1, 2, 3),
		{Resource: ^algorithms.ResourceID(0), Instance: ^uint64(0), Promised: ^algorithms.Ballot(0), Accepted: 1, Owner: algorithms.NoNode, Expiry: -5},
	} {
		var b [RecordSize]byte
		Encode(b[:], r)
		got, err := Decode(b[:])
		if err != nil || got != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, got, err)
		}
		for i := 0; i < RecordSize; i++ {
			c := b
			c[i] ^= 0x10
			if _, err := Decode(c[:]); err == nil {
				t.Fatalf("a flipped bit at byte %d went unnoticed", i)
			}
		}
	}
	if _, err := Decode(make([]byte, 10)); err == nil {
		t.Fatal("short record accepted")
	}
}

func TestRoundTrip(t *testing.T) {
	for _, gc := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "log")
		l, recs := openT(t, path, Options{GroupCommit: gc})
		if len(recs) != 0 {
			t.Fatalf("new log has %d records", len(recs))
		}
		var want []algorithms.Record
		for i := uint64(1); i <= 50; i++ {
			batch := []algorithms.Record{rec(i%7, i, i*3), rec(i%5, i+1, i*5)}
			if err := l.Append(batch); err != nil {
				t.Fatal(err)
			}
			want = append(want, batch...)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil || len(got) != len(want) {
			t.Fatalf("group commit %v: loaded %d records (%v), want %d", gc, len(got), err, len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		// Reopen and go on appending.
		l, recs = openT(t, path, Options{GroupCommit: gc})
		if len(recs) != len(want) {
			t.Fatalf("reopen: %d records", len(recs))
		}
		if err := l.Append([]algorithms.Record{rec(9, 9, 9)}); err != nil {
			t.Fatal(err)
		}
		l.Close()
		if got, _ := Load(path); len(got) != len(want)+1 {
			t.Fatalf("after reopen+append: %d records", len(got))
		}
	}
}

func TestTornTailAtEveryOffset(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	l, _ := openT(t, full, Options{GroupCommit: true})
	var want []algorithms.Record
	for i := uint64(1); i <= 5; i++ {
		want = append(want, rec(i, i, i))
		if err := l.Append(want[len(want)-1:]); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	last := len(data) - RecordSize
	for cut := last; cut < len(data); cut++ {
		path := filepath.Join(dir, "torn")
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		l, recs, err := Open(path, Options{GroupCommit: true})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if len(recs) != len(want)-1 {
			t.Fatalf("cut at %d: %d records, want %d", cut, len(recs), len(want)-1)
		}
		if st := l.Stats(); st.Truncated != int64(cut-last) {
			t.Fatalf("cut at %d: truncated %d", cut, st.Truncated)
		}
		// The log goes on cleanly after the cut.
		if err := l.Append([]algorithms.Record{rec(42, 42, 42)}); err != nil {
			t.Fatal(err)
		}
		l.Close()
		got, err := Load(path)
		if err != nil || len(got) != len(want) || got[len(got)-1] != rec(42, 42, 42) {
			t.Fatalf("cut at %d: after append %d records, %v", cut, len(got), err)
		}
	}
	// A torn tail made of garbage (a half-written record whose bytes are
	// not zero) is cut as well.
	path := filepath.Join(dir, "garbage")
	garbage := append(append([]byte{}, data[:last]...), data[last:last+20]...)
	garbage = append(garbage, make([]byte, RecordSize-20)...)
	os.WriteFile(path, garbage, 0o644)
	if _, recs, err := Open(path, Options{}); err != nil || len(recs) != len(want)-1 {
		t.Fatalf("garbage tail: %d records, %v", len(recs), err)
	}
}

func TestCorruptChecksum(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	l, _ := openT(t, path, Options{GroupCommit: true})
	for i := uint64(1); i <= 4; i++ {
		l.Append([]algorithms.Record{rec(i, i, i)})
	}
	l.Close()
	data, _ := os.ReadFile(path)

	// Corrupt last record: a torn tail, recovered without error.
	tail := append([]byte{}, data...)
	tail[len(tail)-3] ^= 0xff
	os.WriteFile(path, tail, 0o644)
	if _, recs, err := Open(path, Options{}); err != nil || len(recs) != 3 {
		t.Fatalf("corrupt last record: %d records, %v", len(recs), err)
	}

	// Corrupt second record with good ones after it: damage, reported.
	mid := append([]byte{}, data...)
	mid[RecordSize+10] ^= 0xff
	os.WriteFile(path, mid, 0o644)
	_, recs, err := Open(path, Options{})
	if !errors.Is(err, ErrCorrupt) || len(recs) != 1 {
		t.Fatalf("corrupt middle record: %d records, %v; want 1 and ErrCorrupt", len(recs), err)
	}
	if _, err := Load(path); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load: %v", err)
	}
}

func TestCompactionKeepsLatestState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, _ := openT(t, path, Options{GroupCommit: true, CompactAt: 40 * RecordSize})
	// Three resources, many instances each, several records per instance.
	for inst := uint64(1); inst <= 30; inst++ {
		for res := uint64(0); res < 3; res++ {
			for b := uint64(1); b <= 3; b++ {
				if err := l.Append([]algorithms.Record{rec(res, inst, inst*10+b)}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	st := l.Stats()
	if st.Compactions == 0 {
		t.Fatal("no compaction happened")
	}
	if l.Size() > 60*RecordSize {
		t.Fatalf("log not bounded: %d bytes", l.Size())
	}
	l.Close()
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// What an acceptor recovers: per resource the last record of
	// instances 29 and 30.
	last := map[[2]uint64]algorithms.Record{}
	for _, r := range got {
		last[[2]uint64{uint64(r.Resource), r.Instance}] = r
	}
	for res := uint64(0); res < 3; res++ {
		for _, inst := range []uint64{29, 30} {
			r, ok := last[[2]uint64{res, inst}]
			if !ok || r != rec(res, inst, inst*10+3) {
				t.Fatalf("resource %d instance %d: %+v (present %v), want the last record", res, inst, r, ok)
			}
		}
	}
}

func TestGroupCommitBatchesConcurrentAppends(t *testing.T) {
	const writers, each = 16, 20
	run := func(gc bool) Stats {
		path := filepath.Join(t.TempDir(), "log")
		l, _ := openT(t, path, Options{GroupCommit: gc})
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					if err := l.Append([]algorithms.Record{rec(uint64(w), uint64(i+1), 1)}); err != nil {
						t.Error(err)
						return
					}
				}
			}(w)
		}
		wg.Wait()
		st := l.Stats()
		l.Close()
		if got, _ := Load(path); len(got) != writers*each {
			t.Fatalf("group commit %v: %d records on disk, want %d", gc, len(got), writers*each)
		}
		return st
	}
	with, without := run(true), run(false)
	if without.Syncs != writers*each {
		t.Fatalf("without group commit: %d syncs, want one per record (%d)", without.Syncs, writers*each)
	}
	if with.Syncs >= writers*each {
		t.Fatalf("group commit did not batch: %d syncs for %d records", with.Syncs, writers*each)
	}
	t.Logf("%d records from %d writers: %d syncs with group commit, %d without", writers*each, writers, with.Syncs, without.Syncs)
}

func TestWriteWithoutSyncThenSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	l, _ := openT(t, path, Options{GroupCommit: true})
	if err := l.Write([]algorithms.Record{rec(1, 1, 1), rec(2, 1, 1)}); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.Syncs != 0 || st.Records != 2 {
		t.Fatalf("Write synced: %+v", st)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats(); st.Syncs != 1 {
		t.Fatalf("Sync: %+v", st)
	}
	l.Close()
	if err := l.Append([]algorithms.Record{rec(1, 1, 1)}); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	if got, _ := Load(path); len(got) != 2 {
		t.Fatalf("%d records", len(got))
	}
	var _ Storage = l
}

package wal

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"leaselab/algorithms"
)

// BenchmarkDisk measures, on the disk under b.TempDir() and in one run:
// records/s with group commit and without (both from 16 concurrent
// appenders, as an acceptor answering many proposers would), and the raw
// fsyncs/s of the same disk (64 bytes written + Sync, in a loop).
//
//	go test -run - -bench Disk -benchtime 2s ./runner/udp/wal/
func BenchmarkDisk(b *testing.B) {
	for _, gc := range []bool{true, false} {
		name := "GroupCommit"
		if !gc {
			name = "NoGroupCommit"
		}
		b.Run(name, func(b *testing.B) {
			l, _, err := Open(filepath.Join(b.TempDir(), "log"), Options{GroupCommit: gc})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			const writers = 16
			var wg sync.WaitGroup
			per := (b.N + writers - 1) / writers
			b.ResetTimer()
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < per; i++ {
						r := algorithms.Record{Resource: algorithms.ResourceID(w*per + i), Instance: 1, Promised: 1}
						if err := l.Append([]algorithms.Record{r}); err != nil {
							b.Error(err)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			b.StopTimer()
			st := l.Stats()
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(st.Records)/secs, "records/s")
			b.ReportMetric(float64(st.Syncs)/secs, "fsyncs/s")
			b.ReportMetric(float64(st.Records)/float64(st.Syncs), "records/fsync")
		})
	}
	b.Run("RawFsync", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "raw"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 64)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := f.Write(buf); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fsyncs/s")
	})
}

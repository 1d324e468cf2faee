package udp

import (
	"context"
	"strconv"
	"testing"
	"time"

	"leaselab/runner/udp/wire"
)

// BenchmarkLoopbackBatch measures lease throughput over loopback with the
// naive algorithm (one round trip per lease) for several datagram sizes:
// each iteration is a batch of 10,000 leases on a fresh 3-node cluster.
func BenchmarkLoopbackBatch(b *testing.B) {
	for _, size := range []int{1400, LoopbackDatagram, wire.MaxDatagram} {
		b.Run(byteSize(size), func(b *testing.B) {
			cfg := testCluster("naive", 3, 1)
			cfg.MaxDatagram = size
			var leases, ns int64
			for b.Loop() {
				r, err := RunBatch(context.Background(), cfg, BatchConfig{Leases: 10000, Limit: 30 * time.Second})
				if err != nil || r.Failed > 0 {
					b.Fatalf("err %v, failed %d", err, r.Failed)
				}
				leases += int64(r.Acquired)
				ns += r.ElapsedNS
			}
			b.ReportMetric(float64(leases)/(float64(ns)/1e9), "leases/s")
		})
	}
}

// BenchmarkLoopbackDatagrams is the raw rate of 64-byte datagrams from one
// goroutine to another over loopback, the machine's own limit.
func BenchmarkLoopbackDatagrams(b *testing.B) {
	for b.Loop() {
		r, err := RawDatagrams(64, 200*time.Millisecond)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.RecvPerSec, "datagrams/s")
	}
}

func byteSize(n int) string {
	if n%1024 == 0 {
		return strconv.Itoa(n/1024) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

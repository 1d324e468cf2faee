package udp

import (
	"strconv"
	"testing"
	"time"

	"leaselab/runner"
	"leaselab/runner/udp/wire"
)

// BenchmarkLoopbackBatch measures lease throughput over loopback with the
// naive algorithm (one round trip per lease) for several datagram sizes:
// each iteration is a batch of 10,000 leases on a fresh 3-node cluster.
func BenchmarkLoopbackBatch(b *testing.B) {
	for _, size := range []int{1400, LoopbackDatagram, wire.MaxDatagram} {
		b.Run(byteSize(size), func(b *testing.B) {
			s := udpSpec("naive", "batch")
			s.Proposers = 1
			s.Leases = 10000
			s.Duration = 30 * time.Second
			s.Net.Datagram = size
			var leases int64
			var sec float64
			for b.Loop() {
				r, _, err := RunSpec(s, runner.Options{}, EnvOptions{})
				if err != nil || r.LeasesFailed > 0 {
					b.Fatalf("err %v, failed %d", err, r.LeasesFailed)
				}
				leases += int64(r.LeasesAcquired)
				sec += float64(r.LeasesAcquired) / r.LeasesPerSec
			}
			b.ReportMetric(float64(leases)/sec, "leases/s")
		})
	}
}

// BenchmarkLoopbackDatagrams is the raw rate of 64-byte datagrams from one
// goroutine to another over loopback, the machine's own limit: one
// datagram a system call each way, and RawBatch a call (sendmmsg and
// recvmmsg).
func BenchmarkLoopbackDatagrams(b *testing.B) {
	for _, tc := range []struct {
		name string
		rate func(int, time.Duration) (RawRate, error)
	}{{"one", RawDatagrams}, {"batched", RawDatagramsBatched}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				r, err := tc.rate(64, 200*time.Millisecond)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.RecvPerSec, "datagrams/s")
				b.ReportMetric(r.LossPercent, "loss%")
			}
		})
	}
}

func byteSize(n int) string {
	if n%1024 == 0 {
		return strconv.Itoa(n/1024) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

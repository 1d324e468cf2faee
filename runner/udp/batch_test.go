package udp

import (
	"context"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/naive"
)

func testCluster(algo string, acceptors, proposers int) ClusterConfig {
	p := algorithms.DefaultParams()
	return ClusterConfig{Algo: algo, Cluster: algorithms.NewCluster(acceptors, proposers), Params: p, Seed: 1}
}

func TestBatchNaive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := RunBatch(ctx, testCluster("naive", 3, 1), BatchConfig{Leases: 20000, Window: 512, Limit: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d failed %d timeouts %d: %.0f leases/s, %d datagrams, %d msgs, wall %v",
		r.Acquired, r.Failed, r.Timeouts, r.LeasesPerSec, r.Meters.DatagramsSent, r.Meters.MsgsSent, time.Duration(r.WallNS))
	if r.Acquired != 20000 || r.Failed != 0 {
		t.Fatalf("acquired %d, failed %d of 20000", r.Acquired, r.Failed)
	}
	// Datagrams the kernel refused (SendErrors) are loss, which the
	// protocol retries; they are logged, not failed on. Undecodable
	// datagrams and unencodable messages are bugs.
	if r.Meters.SendErrors > 0 {
		t.Logf("%d datagrams lost to send errors (first: %s)", r.Meters.SendErrors, r.Meters.FirstSendError)
	}
	if r.Meters.BadDatagrams != 0 || r.Meters.EncodeErrors != 0 {
		t.Fatalf("bad datagrams %d, encode errors %d", r.Meters.BadDatagrams, r.Meters.EncodeErrors)
	}
}

func TestSingleNaive(t *testing.T) {
	r, err := RunSingle(context.Background(), testCluster("naive", 3, 1), 300, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.LatencyNS) != 300 || r.Failed != 0 {
		t.Fatalf("%d acquired, %d failed of 300", len(r.LatencyNS), r.Failed)
	}
	rtt, err := RawRTT(300)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("single naive lease median %v (p90 %v), raw rtt median %v",
		time.Duration(r.LatencyNS[150]), time.Duration(r.LatencyNS[270]), rtt[150])
}

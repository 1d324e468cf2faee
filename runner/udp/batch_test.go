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
	r, err := RunBatch(ctx, testCluster("naive", 3, 1), BatchConfig{Leases: 20000, Limit: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d failed %d timeouts %d: %.0f leases/s, %d datagrams, %d msgs, wall %v",
		r.Acquired, r.Failed, r.Timeouts, r.LeasesPerSec, r.Meters.DatagramsSent, r.Meters.MsgsSent, time.Duration(r.WallNS))
	if r.Acquired != 20000 || r.Failed != 0 {
		t.Fatalf("acquired %d, failed %d of 20000", r.Acquired, r.Failed)
	}
	if r.Meters.BadDatagrams != 0 || r.Meters.SendErrors != 0 {
		t.Fatalf("bad datagrams %d, send errors %d", r.Meters.BadDatagrams, r.Meters.SendErrors)
	}
}

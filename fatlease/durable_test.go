package fatlease

import (
	"testing"

	"leaselab/algorithms"
)

// The fsync ablation needs durable acceptors. What it does (records
// written nosync, answers sent at once) is
// classicpaxos/testdata/durable-answer-fsync-ablated.txt; the other
// durable interactions are classicpaxos/testdata/durable-*.txt.
func TestFsyncAblationNeedsDurable(t *testing.T) {
	if _, err := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Ablations: algorithms.Ablations{AblateFsync}}, Options{}); err == nil {
		t.Fatal("fsync ablation accepted without durable acceptors")
	}
}

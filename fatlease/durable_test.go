package fatlease

import (
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

// The fsync ablation needs durable acceptors. What it does (records
// written nosync, answers sent at once) is
// classicpaxos/testdata/durable-answer-fsync-ablated.txt; the other
// durable interactions are classicpaxos/testdata/durable-*.txt.
func TestFsyncAblationNeedsDurable(t *testing.T) {
	if _, err := Algorithm().New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: testParams(), Ablations: algorithms.Ablations{AblateFsync}, Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Fatal("fsync ablation accepted without durable acceptors")
	}
}

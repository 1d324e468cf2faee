package sim

import (
	"strings"
	"testing"

	"leaselab/algorithms"
	_ "leaselab/paxoslease"
	_ "leaselab/paxoslease/fairq"
	"leaselab/runner"
)

// Every registered algorithm answers an Acquire from the node that holds the lease
// at once, with that lease: a client that asks again (its watchdog gave
// the first request up, and the lease came after) is not left waiting.
func TestAcquireWhileHoldingIsAnswered(t *testing.T) {
	for _, algo := range algorithms.Names() {
		if strings.HasPrefix(algo, "test-") {
			continue // this package's planted test algorithms
		}
		t.Run(algo, func(t *testing.T) {
			sc := NewScript()
			a, _ := algorithms.Lookup(algo)
			cluster := "cluster acceptors=3 proposers=3"
			if a.ValidateConfig(runner.DefaultSpec().Params, algorithms.NewCluster(3, 3), nil) != nil {
				cluster = "cluster acceptors=1 proposers=3" // a single server (central)
			}
			for _, l := range []string{"algo " + algo, cluster, "acquire n1 r0"} {
				if err := sc.Exec(l); err != nil {
					t.Fatal(err)
				}
			}
			for range 20 {
				for _, l := range []string{"deliver all", "advance 5ms"} {
					if err := sc.Exec(l); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, l := range []string{"expect acquired 1", "acquire n1 r0", "expect acquired 2", "expect violations 0"} {
				if err := sc.Exec(l); err != nil {
					t.Fatal(err)
				}
			}
			if sc.Failed() != 0 {
				res, _ := sc.Finish()
				t.Fatalf("%v", res.Failed)
			}
		})
	}
}

package naive_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
	_ "leaselab/naive" // registers "naive" and "naive-undo"
)

// One acquisition driven by hand: node 0 asks the three acceptors (nodes
// 0, 1 and 2), two of them grant, and node 0 holds the lease until its own
// timer, started when it sent the requests, reaches the hold span. Every
// message is delivered by the code below; nothing runs on its own.
func Example() {
	algo, err := algorithms.Lookup("naive")
	if err != nil {
		panic(err)
	}
	params := algorithms.DefaultParams()
	params.LeaseSpan, params.MaxLease, params.Drift = 5*time.Second, 7*time.Second, 0.001
	cluster := algorithms.NewCluster(3, 1)
	nodes := make([]algorithms.Node, cluster.Nodes)
	for i := range nodes {
		nodes[i], err = algo.New(algorithms.Config{
			ID: algorithms.NodeID(i), Cluster: cluster, Params: params,
			Rand: rand.New(rand.NewPCG(1, uint64(i))),
		})
		if err != nil {
			panic(err)
		}
	}
	var out algorithms.Output
	step := func(id algorithms.NodeID, now time.Duration, in algorithms.Input) []algorithms.Message {
		out.Reset()
		nodes[id].Step(algorithms.Local(now), in, &out)
		for _, e := range out.Events {
			fmt.Printf("  n%d event %v owner=%v until=%v\n", id, e.Kind, e.Owner, time.Duration(e.Until))
		}
		return append([]algorithms.Message(nil), out.Msgs...)
	}

	fmt.Println("t=0: node 0 wants resource 1")
	reqs := step(0, 0, algorithms.Input{Kind: algorithms.Acquire, Resource: 1})
	fmt.Printf("  sends %d requests\n", len(reqs))

	fmt.Println("t=1ms: acceptors 1 and 2 receive the request")
	g1 := step(1, time.Millisecond, algorithms.Input{Kind: algorithms.Recv, Msg: reqs[1]})
	g2 := step(2, time.Millisecond, algorithms.Input{Kind: algorithms.Recv, Msg: reqs[2]})

	fmt.Println("t=2ms: node 0 receives both grants")
	step(0, 2*time.Millisecond, algorithms.Input{Kind: algorithms.Recv, Msg: g1[0]})
	step(0, 2*time.Millisecond, algorithms.Input{Kind: algorithms.Recv, Msg: g2[0]})
	// Output:
	// t=0: node 0 wants resource 1
	//   n0 event round owner=n0 until=0s
	//   sends 3 requests
	// t=1ms: acceptors 1 and 2 receive the request
	//   n1 event granted owner=n0 until=5.001s
	//   n2 event granted owner=n0 until=5.001s
	// t=2ms: node 0 receives both grants
	//   n0 event acquired owner=n0 until=4.99000999s
}

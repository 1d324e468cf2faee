package paxoslease_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
	_ "leaselab/paxoslease" // registers "paxoslease"
)

// Example drives a three-node cluster (each node acceptor and proposer)
// through one acquisition, an extension and a release, delivering every
// message at once. In a real run the runner does this, with latency, loss
// and per-node clocks.
func Example() {
	alg, err := algorithms.Lookup("paxoslease")
	if err != nil {
		panic(err)
	}
	cluster := algorithms.NewCluster(3, 3)
	params := algorithms.DefaultParams() // T = 5 s, M = 7 s, drift 0.001
	nodes := make([]algorithms.Node, cluster.Nodes)
	for i := range nodes {
		nodes[i], err = alg.New(algorithms.Config{
			ID: algorithms.NodeID(i), Cluster: cluster, Params: params,
			Rand: rand.New(rand.NewPCG(1, uint64(i))),
		})
		if err != nil {
			panic(err)
		}
	}
	now := algorithms.Local(0) // one shared clock, for the example only
	var queue []algorithms.Message
	type timer struct {
		node algorithms.NodeID
		key  algorithms.TimerKey
		at   algorithms.Local
	}
	var timers []timer // a setting replaces the node's timer with the same key
	step := func(id algorithms.NodeID, in algorithms.Input) {
		var out algorithms.Output
		nodes[id].Step(now, in, &out)
		queue = append(queue, out.Msgs...)
		for _, t := range out.Timers {
			kept := timers[:0]
			for _, old := range timers {
				if old.node != id || old.key != t.Key {
					kept = append(kept, old)
				}
			}
			timers = kept
			if !t.Cancel {
				timers = append(timers, timer{id, t.Key, t.At})
			}
		}
		for _, e := range out.Events {
			switch e.Kind {
			case algorithms.Acquired:
				fmt.Printf("n%d %v r%d ballot %v until %v\n", id, e.Kind, e.Resource, e.Ballot, time.Duration(e.Until))
			case algorithms.Lost, algorithms.Round, algorithms.Preempted:
				fmt.Printf("n%d %v r%d ballot %v\n", id, e.Kind, e.Resource, e.Ballot)
			}
		}
	}
	run := func() { // deliver until quiet
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			step(m.To, algorithms.Input{Kind: algorithms.Recv, Msg: m})
		}
	}
	// sleep advances the clock by d, firing the proposers' timers that
	// fall due (the acceptors' lease timers stay pending here).
	sleep := func(d time.Duration) {
		now = now.Add(d)
		for i := 0; i < len(timers); i++ {
			if t := timers[i]; t.at <= now && t.key.Kind == 1 {
				timers = append(timers[:i], timers[i+1:]...)
				step(t.node, algorithms.Input{Kind: algorithms.Fire, Timer: t.key})
				run()
				i = -1
			}
		}
	}
	for i := range nodes {
		step(algorithms.NodeID(i), algorithms.Input{Kind: algorithms.Start})
	}

	step(0, algorithms.Input{Kind: algorithms.Acquire, Resource: 42})
	run()
	now = now.Add(3 * time.Second)
	step(0, algorithms.Input{Kind: algorithms.Extend, Resource: 42})
	run()
	step(0, algorithms.Input{Kind: algorithms.Relinquish, Resource: 42})
	run()
	// n1 starts below the acceptors' promised ballot; the reject tells it
	// how far to jump, and after a random backoff it acquires.
	step(1, algorithms.Input{Kind: algorithms.Acquire, Resource: 42})
	run()
	sleep(params.Backoff)

	// The lease lasts T(1-ρ)/(1+ρ) from the Prepare: 9.99 ms short of T.

	// Output:
	// n0 round r42 ballot 1.0.0
	// n0 acquired r42 ballot 1.0.0 until 4.99000999s
	// n0 round r42 ballot 2.0.0
	// n0 acquired r42 ballot 2.0.0 until 7.99000999s
	// n0 lost r42 ballot 2.0.0
	// n1 round r42 ballot 1.0.1
	// n1 preempted r42 ballot 2.0.0
	// n1 round r42 ballot 2.0.1
	// n1 acquired r42 ballot 2.0.1 until 8.09000999s
}

package faults

import (
	"math/rand/v2"

	"leaselab/algorithms"
)

// StreamDriver etc. name the independent random streams drawn from a
// run's seed (rand.NewPCG(seed, stream)): one per purpose, so a draw for
// one purpose never shifts the draws of another.
const (
	StreamDriver = 0x6472697665720001 // the workload driver
	StreamNet    = 0x6e65740000000002 // per-message network draws (Net)
	StreamFault  = 0x6661756c74000003 // crashes and partitions (Schedule)
	StreamClock  = 0x636c6f636b000004 // clock offsets and rates (DrawClocks)
	StreamDisk   = 0x6469736b00000005 // fsync latencies
	StreamNode   = 0x6e6f646500000006 // Config.Rand of each node (NodeSource)
	StreamPause  = 0x7061757365000008 // process pauses (the simulator's pause schedule)
	StreamJump   = 0x6a756d7000000009 // clock jumps (the simulator's jump schedule)
	// StreamKind, xored with a hash of a fault kind's name, is the stream
	// a campaign draws that kind's parameters from (Choice.Rand).
	StreamKind = 0x6b696e640000000a
	// StreamArrivals: the gaps between open-loop arrivals (Spec.Rate).
	StreamArrivals = 0x617272697600000b
)

// Rand returns the random stream of one purpose for seed.
func Rand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// NodeSource is the random source behind Config.Rand of node n in the
// life that follows restarts earlier starts, in a simulated run with seed:
// the explorer (runner/explore) builds its nodes from the same sources, so
// a path it finds replays with the same draws.
func NodeSource(seed uint64, n algorithms.NodeID, restarts uint16) *rand.PCG {
	return rand.NewPCG(seed^uint64(n)<<32^uint64(restarts), StreamNode)
}

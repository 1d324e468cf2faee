package algorithms

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
)

// Explorable is a Node that the explorer (leaselab explore) can search
// exhaustively: it can be copied, and its state has a canonical encoding
// so that states reached along different paths are recognised as one.
//
// The explorer never models a protocol itself; it runs the same Step code
// that the simulator and the UDP hosts run, and uses these two methods only
// to branch (Clone) and to deduplicate (AppendState).
type Explorable interface {
	Node
	// Clone returns an independent deep copy of the node that draws its
	// randomness from r from now on. Stepping the copy must not change the
	// original, and the other way round.
	Clone(r *rand.Rand) Node
	// AppendState appends a canonical encoding of the node's whole state
	// to b and returns the extended slice. Two nodes with equal encodings
	// must answer every sequence of inputs with the same outputs, when the
	// inputs arrive at the same times relative to now. So:
	//   - every Local time kept is written relative to now (t - now), and
	//     a sentinel such as "0 = unset" is written as a distinct marker,
	//     not as a time;
	//   - maps and sets are written in key order, never iteration order;
	//   - state that cannot influence any future output (peaks, counters
	//     kept only for meters, free lists) is left out;
	//   - the random source is left out: the explorer treats randomness
	//     as fixed by the seed (see runner/explore).
	AppendState(b []byte, now Local) []byte
}

// CloneValues returns a copy of m whose values are copies of m's, all in
// one backing array (one allocation whatever the size, which keeps Clone
// cheap on the explorer's hot path). deep, if not nil, is called with
// each copy and its original to copy what the value itself points to.
func CloneValues[K comparable, V any](m map[K]*V, deep func(cp, orig *V)) map[K]*V {
	c := make(map[K]*V, len(m))
	backing := make([]V, 0, len(m))
	for k, v := range m {
		backing = append(backing, *v)
		cp := &backing[len(backing)-1]
		if deep != nil {
			deep(cp, v)
		}
		c[k] = cp
	}
	return c
}

// AppendMap appends the canonical encoding of a map of per-resource state
// for AppendState: the number of entries kept, then each kept key in
// ascending order followed by what value appends for its value. keep, if
// not nil, leaves out entries that act as absent ones (state that knows
// nothing). Up to 16 keys cost no allocation.
func AppendMap[V any](b []byte, m map[ResourceID]V, keep func(V) bool, value func(b []byte, v V) []byte) []byte {
	var buf [16]ResourceID
	keys := buf[:0]
	for k, v := range m {
		if keep == nil || keep(v) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(k))
		b = value(b, m[k])
	}
	return b
}

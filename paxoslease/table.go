package paxoslease

import (
	"math/bits"

	"leaselab/algorithms"
)

// slot is the whole long-lived state of one resource on one node: the
// acceptor's half (Sec. 3: highest promised ballot, accepted proposal and
// its timer) and the proposer's half (the lease it holds). 48 bytes, no
// pointers, so a table of a million of them is one allocation the garbage
// collector never scans.
//
// The accepted proposal's owner is not stored: a proposer only ever
// proposes itself, so the owner is the node field of the accepted ballot
// (Message.Owner must equal Ballot.Node(), which the acceptor checks).
//
// A round in flight (votes, phase, retry count) lives in Node.rounds, not
// here, so resources that are merely held cost nothing for it.
type slot struct {
	key      algorithms.ResourceID
	promised algorithms.Ballot // acceptor: highest ballot promised; never lowered
	accepted algorithms.Ballot // acceptor: ballot of the accepted proposal, 0 = empty
	accUntil algorithms.Local  // acceptor: when its own timer for accepted fires
	held     algorithms.Ballot // proposer: ballot of the lease it holds (or held), 0 = none
	until    algorithms.Local  // proposer: end of that lease on its own clock
}

// table maps ResourceID to slot with open addressing and Robin Hood
// linear probing. Why not a Go map: a map[uint64] of the same 40 bytes of
// state measured 117 bytes per entry at a million entries (Go 1.26, groups
// of 8 slots kept 7/16 to 7/8 full, plus growth headroom); Robin Hood
// probing keeps lookups short up to a 0.9 load, and growing by a quarter
// (not doubling) keeps the table between 0.72 and 0.9 full, 54 to 68 bytes
// per resource (BenchmarkMemoryPerResource). Nothing is ever deleted: an acceptor must never forget its
// highest promised ballot while it runs (Sec. 3), so a resource's slot lives
// as long as the node.
//
// Iteration order never leaks: the table is only ever probed by key.
type table struct {
	slots []slot
	dist  []uint8 // 0: empty; d+1: the slot's key sits d places after its home
	n     int
}

const (
	tableMinSize = 16
	// Grow when n exceeds 9/10 of the slots.
	tableLoadNum, tableLoadDen = 9, 10
	// A probe distance past this forces growth (keeps dist in a byte).
	tableMaxDist = 200
)

// hash is the splitmix64 finalizer: sequential resource ids (the batch
// workload's 0..N-1) spread evenly.
func hash(k algorithms.ResourceID) uint64 {
	x := uint64(k)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// home maps a hash onto [0, size) without a modulo (Lemire's reduction),
// so the size need not be a power of two.
func home(h uint64, size int) int {
	hi, _ := bits.Mul64(h, uint64(size))
	return int(hi)
}

// homeBlock consecutive resource ids share one hashed home and sit side
// by side after it: a batch touches ids in order, so its working set is a
// few contiguous runs of the table (few cache lines and pages) instead of
// one random place per resource. Hashing the block number still spreads
// strided or clustered id sets over the whole table.
const homeBlock = 8

// homeOf is k's home slot in a table of size slots.
func homeOf(k algorithms.ResourceID, size int) int {
	i := home(hash(k/homeBlock), size) + int(k%homeBlock)
	if i >= size {
		i %= size // small tables: size may be below homeBlock
	}
	return i
}

// len returns the number of resources in the table.
func (t *table) len() int { return t.n }

// get returns the slot of k, or nil. The pointer is valid until the next
// put.
func (t *table) get(k algorithms.ResourceID) *slot {
	size := len(t.slots)
	if size == 0 {
		return nil
	}
	i := homeOf(k, size)
	for d := 0; ; d++ {
		di := t.dist[i]
		if di == 0 || int(di)-1 < d {
			return nil // Robin Hood: k would have been placed by now
		}
		if t.slots[i].key == k {
			return &t.slots[i]
		}
		if i++; i == size {
			i = 0
		}
	}
}

// put returns the slot of k, adding a zero one if k is new. The pointer is
// valid until the next put.
func (t *table) put(k algorithms.ResourceID) *slot {
	if s := t.get(k); s != nil {
		return s
	}
	if (t.n+1)*tableLoadDen > len(t.slots)*tableLoadNum {
		t.grow()
	}
	for {
		if i, ok := t.insert(slot{key: k}); ok {
			t.n++
			return &t.slots[i]
		}
		t.grow() // a probe sequence got too long: spread the keys out
	}
}

// insert places s (whose key is absent) and returns where it landed. It
// fails, leaving the table unchanged, if some key would be displaced past
// tableMaxDist.
func (t *table) insert(s slot) (int, bool) {
	size := len(t.slots)
	// Check first that the Robin Hood chain ends within bounds, so a
	// failure never leaves a key half-moved.
	i := homeOf(s.key, size)
	d := 0
	for j := 0; ; j++ {
		if j == size {
			return 0, false
		}
		di := t.dist[i]
		if di == 0 {
			break
		}
		if int(di)-1 < d {
			d = int(di) - 1 // the displaced key continues from here
		}
		if d++; d > tableMaxDist {
			return 0, false
		}
		if i++; i == size {
			i = 0
		}
	}
	i = homeOf(s.key, size)
	d = 0
	placed := -1
	for {
		di := t.dist[i]
		if di == 0 {
			t.slots[i] = s
			t.dist[i] = uint8(d + 1)
			if placed < 0 {
				placed = i
			}
			return placed, true
		}
		if int(di)-1 < d {
			t.slots[i], s = s, t.slots[i]
			t.dist[i], d = uint8(d+1), int(di)-1
			if placed < 0 {
				placed = i
			}
		}
		d++
		if i++; i == size {
			i = 0
		}
	}
}

func (t *table) grow() {
	old, oldDist := t.slots, t.dist
	size := len(old) + len(old)/4
	if size < tableMinSize {
		size = tableMinSize
	}
	for {
		t.slots = make([]slot, size)
		t.dist = make([]uint8, size)
		ok := true
		for i := range old {
			if oldDist[i] != 0 {
				if _, ok = t.insert(old[i]); !ok {
					break
				}
			}
		}
		if ok {
			return
		}
		size += size / 4
	}
}

package paxoslease

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"leaselab/algorithms"
)

// slot is the whole long-lived state of one resource on one node: the
// acceptor's half (Sec. 3: highest promised ballot, accepted proposal and
// its timer) and the proposer's half (the lease it holds). 48 bytes, no
// pointers, so the records of a million resources are a few large
// allocations the garbage collector never scans.
//
// The accepted proposal's owner is not stored: a proposer only ever
// proposes itself, so the owner is the node field of the accepted ballot
// (Message.Owner must equal Ballot.Node(), which the acceptor checks).
// Likewise the held lease's ballot is this node's own, made with its own
// restart counter, so only its run counter is stored (Node.heldBallot);
// every ballot a node makes has a run counter of 1 or more (nextBallot),
// so 0 means none.
//
// A round in flight (votes, phase, retry count) lives in Node.rounds, not
// here, so resources that are merely held cost nothing for it.
type slot struct {
	key       algorithms.ResourceID
	promised  algorithms.Ballot // acceptor: highest ballot promised; never lowered
	accepted  algorithms.Ballot // acceptor: ballot of the accepted proposal, 0 = empty
	accUntil  algorithms.Local  // acceptor: when its own timer for accepted fires
	until     algorithms.Local  // proposer: end of the held lease on its own clock
	heldRound uint32            // proposer: run counter of the held (or last held) lease's ballot, 0 = none
	// tseq is the arming number of the acceptor's pending timer when the
	// node keeps its timers itself (KeepTimers, timers.go); 0: none.
	tseq uint32
}

// table maps ResourceID to slot. The slots are records numbered in the
// order their resources arrived, stored in chunks that never move once
// full; an index of open addressing with Robin Hood linear probing maps
// a key to its record number. Nothing is ever deleted: an acceptor must
// never forget its highest promised ballot while it runs (Sec. 3), so a
// resource's slot lives as long as the node. That is what makes record
// numbers stable, so the timer heap (timers.go) can name a slot by its
// number however the index moves.
//
// Why not a Go map: a map[uint64] of the same state measured 117 bytes per
// entry at a million entries (Go 1.26, groups of 8 slots kept 7/16 to 7/8
// full, plus growth headroom). Why records apart from the index: only the
// index (a 4-byte record number and a 1-byte probe distance a slot) keeps
// headroom, 0.53 to 0.8 full (growing by half, not doubling; a probe run
// past tableMaxDist makes it grow early), so the headroom costs about 1.2
// to 4.4 bytes a resource instead of 5 to 19 for a table of whole slots.
// (Growing by a quarter rebuilt the index five times over for every
// resource instead of three: BenchmarkMemoryPerResource, paired, 3.7 s vs
// 1.8 s per op at a million, at the same bytes per resource give or take
// 1.5.) Linear probing's runs lengthen fast past 0.8: at up to 0.9
// the inserts of a million-resource batch probed about twice as long
// (BenchmarkMemoryPerResource/1000000 about 1.5x slower) for under a byte
// a resource less; the
// records' own headroom is at most one chunk. A lookup reads a record only
// where the index says the key's home matches, so mostly one.
// BenchmarkMemoryPerResource measures it.
//
// Iteration order never leaks: the table is only ever probed by key, and
// walked in record order only where the result is sorted by key
// (AppendState).
type table struct {
	recs [][]slot // chunks of chunkLen records; record i is recs[i>>chunkShift][i&chunkMask]
	// The index: entrySize bytes a slot, the probe distance (0: empty;
	// d+1: the record's key sits d places after its home) and then the
	// record number, little-endian. One array, not two, so that a probe
	// run is one run of memory.
	ix []byte
	n  int // records

	// The acceptor's timers when the node keeps them (timers.go).
	tm timerSet
}

const (
	tableMinSize = 16
	// Grow the index when n exceeds 8/10 of its slots.
	tableLoadNum, tableLoadDen = 8, 10
	// A probe distance past this forces growth (keeps dist in a byte).
	tableMaxDist = 200

	// Records come in chunks of 1024 (48 KiB); the first chunk starts
	// small and doubles, so that a node of a few resources (the
	// simulator's, the explorer's many copies) stays small.
	chunkShift    = 10
	chunkLen      = 1 << chunkShift
	chunkMask     = chunkLen - 1
	chunkFirstLen = 4
	// Record numbers are uint32; the last one is kept free.
	tableMaxRecords = math.MaxUint32
	entrySize       = 5
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
// few contiguous runs of the index (few cache lines and pages) instead of
// one random place per resource. Hashing the block number still spreads
// strided or clustered id sets over the whole index.
const homeBlock = 8

// homeOf is k's home slot in an index of size slots.
func homeOf(k algorithms.ResourceID, size int) int {
	i := home(hash(k/homeBlock), size) + int(k%homeBlock)
	if i >= size {
		i %= size // small tables: size may be below homeBlock
	}
	return i
}

// len returns the number of resources in the table.
func (t *table) len() int { return t.n }

// size is the number of index slots.
func (t *table) size() int { return len(t.ix) / entrySize }

// entry returns index slot i: its probe distance + 1 (0: empty) and
// record number.
func (t *table) entry(i int) (uint8, uint32) {
	e := t.ix[i*entrySize : i*entrySize+entrySize]
	return e[0], binary.LittleEndian.Uint32(e[1:])
}

func (t *table) setEntry(i int, dist uint8, r uint32) {
	e := t.ix[i*entrySize : i*entrySize+entrySize]
	e[0] = dist
	binary.LittleEndian.PutUint32(e[1:], r)
}

// rec returns record i. The pointer is valid until the next put.
func (t *table) rec(i uint32) *slot {
	return &t.recs[i>>chunkShift][i&chunkMask]
}

// find returns the record number of k, or false.
func (t *table) find(k algorithms.ResourceID) (uint32, bool) {
	size := t.size()
	if size == 0 {
		return 0, false
	}
	i := homeOf(k, size)
	for d := 0; ; d++ {
		dist, r := t.entry(i)
		di := int(dist) - 1
		if di < d {
			return 0, false // empty, or Robin Hood: k would have been placed by now
		}
		// Only a key with k's home sits exactly d places after it.
		if di == d && t.rec(r).key == k {
			return r, true
		}
		if i++; i == size {
			i = 0
		}
	}
}

// get returns the slot of k, or nil. The pointer is valid until the next
// put.
func (t *table) get(k algorithms.ResourceID) *slot {
	if r, ok := t.find(k); ok {
		return t.rec(r)
	}
	return nil
}

// put returns the slot of k, adding a zero one if k is new. The pointer is
// valid until the next put.
func (t *table) put(k algorithms.ResourceID) *slot {
	if s := t.get(k); s != nil {
		return s
	}
	r := t.add(k)
	if t.n*tableLoadDen > t.size()*tableLoadNum || !t.insert(k, r) {
		t.grow() // the new index holds every record, r too
	}
	return t.rec(r)
}

// add appends a record for k and returns its number.
func (t *table) add(k algorithms.ResourceID) uint32 {
	if t.n >= tableMaxRecords {
		// 4 billion records are 192 GiB: memory runs out first.
		panic("paxoslease: more resources than a table numbers")
	}
	c := t.n >> chunkShift
	if c == len(t.recs) {
		size := chunkLen
		if c == 0 {
			size = chunkFirstLen
		}
		t.recs = append(t.recs, make([]slot, 0, size))
	}
	ch := t.recs[c]
	if len(ch) == cap(ch) { // only the first chunk, while it is small
		grown := make([]slot, len(ch), min(2*cap(ch), chunkLen))
		copy(grown, ch)
		ch = grown
	}
	t.recs[c] = append(ch, slot{key: k})
	r := uint32(t.n)
	t.n++
	return r
}

// insert places record r, of key k (absent from the index), in the
// index. It fails, leaving the index unchanged, if some key would be
// displaced past tableMaxDist.
func (t *table) insert(k algorithms.ResourceID, r uint32) bool {
	size := t.size()
	// Check first that the Robin Hood chain ends within bounds, so a
	// failure never leaves a key half-moved.
	i := homeOf(k, size)
	d := 0
	for j := 0; ; j++ {
		if j == size {
			return false
		}
		di := t.ix[i*entrySize]
		if di == 0 {
			break
		}
		if int(di)-1 < d {
			d = int(di) - 1 // the displaced key continues from here
		}
		if d++; d > tableMaxDist {
			return false
		}
		if i++; i == size {
			i = 0
		}
	}
	i = homeOf(k, size)
	d = 0
	for {
		di, ri := t.entry(i)
		if di == 0 {
			t.setEntry(i, uint8(d+1), r)
			return true
		}
		if int(di)-1 < d {
			t.setEntry(i, uint8(d+1), r)
			r, d = ri, int(di)-1
		}
		d++
		if i++; i == size {
			i = 0
		}
	}
}

// grow rebuilds the index, half as large again, from the records.
func (t *table) grow() {
	size := t.size() + t.size()/2
	if size < tableMinSize {
		size = tableMinSize
	}
	for {
		if t.n*tableLoadDen > size*tableLoadNum {
			size += size / 2
			continue
		}
		t.ix = make([]byte, size*entrySize)
		if t.refill() {
			return
		}
		size += size / 2
	}
}

// refill puts every record in the empty index; false if some key would
// be displaced past tableMaxDist. The records go in in the order of their
// homes (a radix sort of home and record number, read from the records
// front to back): each then lands at or just after the end of the run
// before it, so the index is written front to back too, where inserting
// in record order writes one random place of it per record, a cache miss
// each at a million resources.
func (t *table) refill() bool {
	size := t.size()
	if t.n < 64 || uint64(size) > math.MaxUint32 {
		for r := 0; r < t.n; r++ {
			if !t.insert(t.rec(uint32(r)).key, uint32(r)) {
				return false
			}
		}
		return true
	}
	order := make([]uint64, t.n) // home<<32 | record number
	for r := range order {
		order[r] = uint64(homeOf(t.rec(uint32(r)).key, size))<<32 | uint64(r)
	}
	order = radixSortHigh(order, bits.Len(uint(size)))
	// In home order each record goes to the first free place at or after
	// its home, which is its home or the place after the previous one:
	// the Robin Hood layout, written without probing. Those that would
	// run past the end (homes near it) go in last, wrapping round as
	// insert does.
	next := 0
	for i, o := range order {
		h, r := int(o>>32), uint32(o)
		p := max(h, next)
		if p >= size {
			for _, o := range order[i:] {
				if !t.insert(t.rec(uint32(o)).key, uint32(o)) {
					return false
				}
			}
			return true
		}
		if p-h > tableMaxDist {
			return false
		}
		t.setEntry(p, uint8(p-h+1), r)
		next = p + 1
	}
	return true
}

// radixSortHigh sorts a by its high 32 bits, of which only the low width
// count (a stable LSD radix sort of 11-bit digits); it returns the sorted
// slice, a or a buffer of the same length.
func radixSortHigh(a []uint64, width int) []uint64 {
	const digit = 11
	tmp := make([]uint64, len(a))
	for shift := 32; shift < 32+width; shift += digit {
		var count [1 << digit]int
		for _, v := range a {
			count[v>>shift&(1<<digit-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range a {
			d := v >> shift & (1<<digit - 1)
			tmp[count[d]] = v
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// clone returns a deep copy.
func (t *table) clone() table {
	c := table{n: t.n, ix: slices.Clone(t.ix), tm: t.tm}
	c.tm.run, c.tm.heap = slices.Clone(t.tm.run), slices.Clone(t.tm.heap)
	if t.recs != nil {
		c.recs = make([][]slot, len(t.recs))
		for i, ch := range t.recs {
			c.recs[i] = append(make([]slot, 0, cap(ch)), ch...)
		}
	}
	return c
}

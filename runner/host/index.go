package host

import (
	"math/bits"

	"leaselab/algorithms"
)

// index maps TimerKey to a timer entry (an index into Timers.ents): open
// addressing with linear probing, four bytes a slot; the key is read from
// the entry. Why not a Go map: a batch of a million leases keeps hundreds
// of thousands of timers live per node, and a map's randomized hash sends
// every access to a random place (the lookups were a fifth of the CPU of a
// 1,000,000-lease UDP batch), besides costing several times the memory.
// Here indexBlock consecutive resources of one kind share a hashed home and
// sit side by side after it, so a batch that works through resources in
// order touches few cache lines and pages.
//
// A removal leaves a tombstone, which lookups step over and inserts reuse;
// tombstones go when the table is rebuilt (when live slots and tombstones
// together pass the load factor), or at once when the slot after is empty.
// Shifting the rest of the probe run back instead (backward-shift
// deletion) hashed every later key of the run again, and blocks of
// consecutive resources make long runs: it was half the cost of a UDP
// proposer's timer set.
type index struct {
	slots []int32 // 1 + entry; 0: empty; tomb: removed
	n     int     // live slots
	dead  int     // tombstones
}

// tomb marks a slot whose entry was removed.
const tomb = -1

const (
	indexBlock   = 16
	indexMinSize = 64
	indexLoadNum = 3 // grow above 3/4 full
	indexLoadDen = 4
	indexKindMul = 0x9e3779b97f4a7c15
)

func home(k algorithms.TimerKey, size int) int {
	x := uint64(k.Resource)/indexBlock ^ uint64(k.Kind)*indexKindMul
	// splitmix64 finalizer
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	hi, _ := bits.Mul64(x, uint64(size))
	return int((hi + uint64(k.Resource)%indexBlock) % uint64(size))
}

func (t *index) len() int { return t.n }

// slot returns the slot holding k, or -1.
func (t *index) slot(k algorithms.TimerKey, ents []Timer) int {
	size := len(t.slots)
	if size == 0 {
		return -1
	}
	for i := home(k, size); ; {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s != tomb {
			if e := &ents[s-1]; e.Res == k.Resource && e.Kind == k.Kind {
				return i
			}
		}
		if i++; i == size {
			i = 0
		}
	}
}

// find returns k's entry, or -1.
func (t *index) find(k algorithms.TimerKey, ents []Timer) int32 {
	if i := t.slot(k, ents); i >= 0 {
		return t.slots[i] - 1
	}
	return -1
}

// insert adds k, which must be absent, as entry e (ents[e] holds k).
func (t *index) insert(k algorithms.TimerKey, e int32, ents []Timer) {
	if (t.n+t.dead+1)*indexLoadDen > len(t.slots)*indexLoadNum {
		t.rebuild(ents)
	}
	size := len(t.slots)
	i := home(k, size)
	for t.slots[i] > 0 {
		if i++; i == size {
			i = 0
		}
	}
	if t.slots[i] == tomb {
		t.dead--
	}
	t.slots[i] = e + 1
	t.n++
}

// remove removes k and returns its entry, or -1 if k is absent.
func (t *index) remove(k algorithms.TimerKey, ents []Timer) int32 {
	i := t.slot(k, ents)
	if i < 0 {
		return -1
	}
	e := t.slots[i] - 1
	t.n--
	size := len(t.slots)
	if t.slots[(i+1)%size] != 0 {
		t.slots[i] = tomb
		t.dead++
		return e
	}
	// No probe run goes on past an empty slot: this one, and the
	// tombstones just before it, can be empty too.
	t.slots[i] = 0
	for {
		if i--; i < 0 {
			i = size - 1
		}
		if t.slots[i] != tomb {
			return e
		}
		t.slots[i] = 0
		t.dead--
	}
}

// rebuild places every live entry in a table without tombstones, twice as
// large when the live ones alone pass half the load factor.
func (t *index) rebuild(ents []Timer) {
	old := t.slots
	size := len(old)
	if size < indexMinSize {
		size = indexMinSize
	}
	if 2*(t.n+1)*indexLoadDen > size*indexLoadNum {
		size *= 2
	}
	t.slots = make([]int32, size)
	t.dead = 0
	for _, s := range old {
		if s > 0 {
			t.place(ents[s-1].Key(), s-1)
		}
	}
}

func (t *index) place(k algorithms.TimerKey, e int32) {
	size := len(t.slots)
	i := home(k, size)
	for t.slots[i] != 0 {
		if i++; i == size {
			i = 0
		}
	}
	t.slots[i] = e + 1
}

// reset empties the index and keeps its memory.
func (t *index) reset() {
	clear(t.slots)
	t.n = 0
	t.dead = 0
}

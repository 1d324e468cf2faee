package host

import (
	"math/bits"

	"leaselab/algorithms"
)

// index maps TimerKey to a timer entry (an index into Timers.ents): open
// addressing with linear probing and backward-shift deletion, four bytes
// a slot; the key is read from the entry. Why not a Go map: a batch of a
// million leases keeps hundreds of thousands of timers live per node, and
// a map's randomized hash sends every access to a random place (the
// lookups were a fifth of the CPU of a 1,000,000-lease UDP batch),
// besides costing several times the memory. Here indexBlock consecutive
// resources of one kind share a hashed home and sit side by side after
// it, so a batch that works through resources in order touches few cache
// lines and pages.
type index struct {
	slots []int32 // 1 + entry; 0: empty
	n     int
}

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
		if e := &ents[s-1]; e.Res == k.Resource && e.Kind == k.Kind {
			return i
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
	if (t.n+1)*indexLoadDen > len(t.slots)*indexLoadNum {
		t.grow(ents)
	}
	t.place(k, e)
	t.n++
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

// remove removes k and returns its entry, or -1 if k is absent.
func (t *index) remove(k algorithms.TimerKey, ents []Timer) int32 {
	i := t.slot(k, ents)
	if i < 0 {
		return -1
	}
	e := t.slots[i] - 1
	size := len(t.slots)
	// Backward shift: move up every later entry of the run whose home
	// does not lie cyclically in (i, j].
	for j := i; ; {
		if j++; j == size {
			j = 0
		}
		s := t.slots[j]
		if s == 0 {
			break
		}
		h := home(ents[s-1].Key(), size)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = 0
	t.n--
	return e
}

func (t *index) grow(ents []Timer) {
	old := t.slots
	size := 2 * len(old)
	if size < indexMinSize {
		size = indexMinSize
	}
	t.slots = make([]int32, size)
	for _, s := range old {
		if s != 0 {
			t.place(ents[s-1].Key(), s-1)
		}
	}
}

// reset empties the index and keeps its memory.
func (t *index) reset() {
	clear(t.slots)
	t.n = 0
}

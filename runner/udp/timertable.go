package udp

import (
	"math/bits"

	"leaselab/algorithms"
)

// timerTable maps TimerKey to a deadline: the timers' live set. Open
// addressing with Robin Hood linear probing and backward-shift deletion.
// Why not a Go map: a batch of a million leases keeps hundreds of
// thousands of timers live per node, and a map's randomized hash sends
// every access to a random place (the lookups were a fifth of the CPU of
// a 1,000,000-lease UDP batch). Here timerBlock consecutive resources of
// one kind share a hashed home and sit side by side after it, so a batch
// that works through resources in order touches few cache lines and pages.
type timerTable struct {
	slots []timerSlot
	n     int
}

type timerSlot struct {
	res  algorithms.ResourceID
	at   algorithms.Local
	kind uint8
	dist int32 // 0: empty; d+1: the entry sits d places after its home
}

const (
	timerBlock   = 16
	timerMinSize = 64
	timerLoadNum = 3 // grow above 3/4 full
	timerLoadDen = 4
	timerKindMul = 0x9e3779b97f4a7c15
)

func timerHome(k algorithms.TimerKey, size int) int {
	x := uint64(k.Resource)/timerBlock ^ uint64(k.Kind)*timerKindMul
	// splitmix64 finalizer
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	hi, _ := bits.Mul64(x, uint64(size))
	return int((hi + uint64(k.Resource)%timerBlock) % uint64(size))
}

func (t *timerTable) len() int { return t.n }

// find returns k's index, or -1.
func (t *timerTable) find(k algorithms.TimerKey) int {
	size := len(t.slots)
	if size == 0 {
		return -1
	}
	i := timerHome(k, size)
	for d := int32(0); ; d++ {
		s := &t.slots[i]
		if s.dist == 0 || s.dist-1 < d {
			return -1
		}
		if s.res == k.Resource && s.kind == k.Kind {
			return i
		}
		if i++; i == size {
			i = 0
		}
	}
}

func (t *timerTable) get(k algorithms.TimerKey) (algorithms.Local, bool) {
	if i := t.find(k); i >= 0 {
		return t.slots[i].at, true
	}
	return 0, false
}

// set stores at for k, adding k if absent, and returns k's previous
// deadline (ok false: k was absent).
func (t *timerTable) set(k algorithms.TimerKey, at algorithms.Local) (old algorithms.Local, ok bool) {
	if i := t.find(k); i >= 0 {
		old, t.slots[i].at = t.slots[i].at, at
		return old, true
	}
	if (t.n+1)*timerLoadDen > len(t.slots)*timerLoadNum {
		t.grow()
	}
	t.insert(timerSlot{res: k.Resource, kind: k.Kind, at: at})
	t.n++
	return 0, false
}

func (t *timerTable) insert(s timerSlot) {
	size := len(t.slots)
	i := timerHome(algorithms.TimerKey{Resource: s.res, Kind: s.kind}, size)
	s.dist = 1
	for {
		c := &t.slots[i]
		if c.dist == 0 {
			*c = s
			return
		}
		if c.dist < s.dist {
			*c, s = s, *c
		}
		s.dist++
		if i++; i == size {
			i = 0
		}
	}
}

// del removes k if present.
func (t *timerTable) del(k algorithms.TimerKey) {
	i := t.find(k)
	if i < 0 {
		return
	}
	size := len(t.slots)
	for {
		j := i + 1
		if j == size {
			j = 0
		}
		if t.slots[j].dist <= 1 {
			t.slots[i] = timerSlot{}
			break
		}
		t.slots[i] = t.slots[j]
		t.slots[i].dist--
		i = j
	}
	t.n--
}

func (t *timerTable) grow() {
	old := t.slots
	size := 2 * len(old)
	if size < timerMinSize {
		size = timerMinSize
	}
	t.slots = make([]timerSlot, size)
	for _, s := range old {
		if s.dist != 0 {
			t.insert(s)
		}
	}
}

// each calls f on every entry, in table order (used only to rebuild the
// heap, whose order does not depend on the order of insertion).
func (t *timerTable) each(f func(k algorithms.TimerKey, at algorithms.Local)) {
	for _, s := range t.slots {
		if s.dist != 0 {
			f(algorithms.TimerKey{Resource: s.res, Kind: s.kind}, s.at)
		}
	}
}

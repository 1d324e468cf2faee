package naive

import (
	"maps"
	"slices"
	"sync"

	"leaselab/algorithms"
)

// slot is a node's whole state for one resource: the acceptor's grant and
// the proposer's proposal, side by side, 128 bytes: two cache lines (a
// chunk of slots is 32 KiB, so slots are line-aligned).
type slot struct {
	key      algorithms.ResourceID
	g        grant
	hasGrant bool
	hasProp  bool
	p        proposal
}

// table holds the slots of the resources a node has state for. Why not
// Go maps: a batch puts thousands of resources in flight at once, and a
// map lookup per message (hashing, probing a control group, then the
// proposal it points to) cost the simulator about a tenth of its time.
// Workloads number resources 0..N-1, so ids below denseMax find their slot
// through a plain index slice (one load, no hashing); any other id falls
// back to a map. A slot that holds neither a grant nor a proposal is
// freed and reused, last freed first, so idle resources cost 4 bytes of
// index each. Slots live in chunks of chunkSlots: a table that grows
// allocates whole chunks, which never move, so growing copies nothing, and
// a run's chunks, below the runtime's large-object size, are reused by the
// next run's nodes instead of being fresh pages (a doubling slice of slots
// measured twice the system time, page faults).
//
// A clone (the explorer's branching, one per node a move touches) copies
// only what is in use: the index up to the largest id added, and of the
// last chunk only the slots handed out, so that chunk is shorter than
// chunkSlots and grows by append when the clone adds a slot (as the first
// chunk of every table does). A one-resource node's clone then copies one
// 128-byte slot, not a 32 KiB chunk and a 4 KiB index.
//
// Nothing iterates the map: AppendState sorts the keys it writes.
type table struct {
	index  []int32 // by resource id: slot+1, 0 none
	sparse map[algorithms.ResourceID]int32
	chunks [][]slot // each chunkSlots long, but a clone's last one
	n      int32    // slots handed out
	top    int32    // 1 + the largest dense id ever added (index beyond it is all 0)
	free   []int32
}

const (
	denseMax   = 1 << 24
	chunkShift = 8
	chunkSlots = 1 << chunkShift
)

// chunkPool holds the whole chunks of released tables (Node.Release) for
// the next tables of the process. A pooled chunk is not cleared: add
// overwrites every slot it hands out, and nothing reads a slot beyond
// t.n.
var chunkPool sync.Pool // of *[]slot, chunkSlots long

// indexPool holds the indexes of released tables, cleared: a batch's
// index of 10,000 resources would otherwise double its way up, from 16
// entries, in every node of every run (0.3 MB a run of
// BenchmarkSimDeliver).
var indexPool sync.Pool // of *[]int32, all 0

// release hands t's whole chunks to chunkPool and its index to
// indexPool; t must not be used again. A first chunk still short (grown
// by append, as in most tables the explorer builds) is left to the
// garbage collector.
func (t *table) release() {
	for c := range t.chunks {
		if ch := t.chunks[c]; len(ch) == chunkSlots {
			chunkPool.Put(&ch)
		}
	}
	if ix := t.index; ix != nil {
		clear(ix[:min(int(t.top), len(ix))])
		indexPool.Put(&ix)
	}
	*t = table{}
}

// newChunk returns a whole chunk from chunkPool, or nil.
func newChunk() []slot {
	if ch, ok := chunkPool.Get().(*[]slot); ok {
		return *ch
	}
	return nil
}

// at returns slot i.
func (t *table) at(i int32) *slot { return &t.chunks[i>>chunkShift][i&(chunkSlots-1)] }

// grow makes slot i (= t.n, the next one handed out) exist. The first
// chunk is a released table's if there is one (the tables of consecutive
// runs), else one slot that grows by append up to chunkSlots (most nodes
// the explorer builds hold one or two resources); a later chunk is
// allocated whole.
func (t *table) grow(i int32) {
	c, off := int(i>>chunkShift), int(i&(chunkSlots-1))
	switch {
	case c == len(t.chunks):
		ch := newChunk()
		switch {
		case ch != nil:
		case c == 0:
			ch = make([]slot, 1)
		default:
			ch = make([]slot, chunkSlots)
		}
		t.chunks = append(t.chunks, ch)
	case off >= len(t.chunks[c]):
		t.chunks[c] = append(t.chunks[c], slot{}) // a short chunk
	}
}

// get returns r's slot, or nil. The pointer is valid until the next add.
func (t *table) get(r algorithms.ResourceID) *slot {
	if r < algorithms.ResourceID(len(t.index)) {
		if i := t.index[r]; i != 0 {
			return t.at(i - 1)
		}
		return nil
	}
	if r < denseMax || t.sparse == nil {
		return nil
	}
	if i, ok := t.sparse[r]; ok {
		return t.at(i)
	}
	return nil
}

// add returns r's slot, adding an empty one if r has none. The pointer is
// valid until the next add.
func (t *table) add(r algorithms.ResourceID) *slot {
	if s := t.get(r); s != nil {
		return s
	}
	var i int32
	if k := len(t.free); k > 0 {
		i = t.free[k-1]
		t.free = t.free[:k-1]
	} else {
		i = t.n
		t.n++
		t.grow(i)
	}
	s := t.at(i)
	*s = slot{key: r}
	if r < denseMax {
		if r >= algorithms.ResourceID(t.top) {
			t.top = int32(r) + 1
		}
		if r >= algorithms.ResourceID(len(t.index)) {
			t.growIndex(r)
		}
		t.index[r] = i + 1
	} else {
		if t.sparse == nil {
			t.sparse = make(map[algorithms.ResourceID]int32)
		}
		t.sparse[r] = i
	}
	return s
}

// growIndex makes the index hold dense id r: a pooled index if one is
// long enough, else one of twice the length (or more, to reach r).
func (t *table) growIndex(r algorithms.ResourceID) {
	if p, ok := indexPool.Get().(*[]int32); ok {
		if algorithms.ResourceID(len(*p)) > r && len(*p) > len(t.index) {
			copy(*p, t.index)
			t.index = *p
			return
		}
		indexPool.Put(p)
	}
	n := max(16, 2*len(t.index))
	for algorithms.ResourceID(n) <= r {
		n *= 2
	}
	grown := make([]int32, min(n, denseMax))
	copy(grown, t.index)
	t.index = grown
}

// tidy frees s (r's slot) if it holds nothing.
func (t *table) tidy(s *slot) {
	if s.hasGrant || s.hasProp {
		return
	}
	r := s.key
	var i int32
	if r < denseMax {
		i = t.index[r] - 1
		t.index[r] = 0
	} else {
		i = t.sparse[r]
		delete(t.sparse, r)
	}
	*s = slot{}
	t.free = append(t.free, i)
}

// clone returns a deep copy of what is in use (see table).
func (t *table) clone() table {
	c := table{
		index:  slices.Clone(t.index[:min(int(t.top), len(t.index))]),
		sparse: maps.Clone(t.sparse),
		chunks: make([][]slot, 0, len(t.chunks)),
		n:      t.n,
		top:    t.top,
		free:   slices.Clone(t.free),
	}
	for base := int32(0); base < t.n; base += chunkSlots {
		cc := slices.Clone(t.chunks[base>>chunkShift][:min(chunkSlots, t.n-base)])
		for j := range cc {
			p := &cc[j].p
			p.granted = p.granted.Clone()
			p.denied = p.denied.Clone()
		}
		c.chunks = append(c.chunks, cc)
	}
	return c
}

// keys appends to ks, in ascending order, the resources whose slot has a
// grant (grants) or a proposal (!grants).
func (t *table) keys(ks []algorithms.ResourceID, grants bool) []algorithms.ResourceID {
	for i := range t.n {
		s := t.at(i)
		if (grants && s.hasGrant) || (!grants && s.hasProp) {
			ks = append(ks, s.key)
		}
	}
	slices.Sort(ks)
	return ks
}

// grantOf returns the acceptor's grant on r, if it has one.
func (n *Node) grantOf(r algorithms.ResourceID) (grant, bool) {
	if s := n.tab.get(r); s != nil && s.hasGrant {
		return s.g, true
	}
	return grant{}, false
}

// setGrant makes g the acceptor's grant on r.
func (n *Node) setGrant(r algorithms.ResourceID, g grant) {
	s := n.tab.add(r)
	s.g, s.hasGrant = g, true
}

// dropGrant forgets the acceptor's grant on r.
func (n *Node) dropGrant(r algorithms.ResourceID) {
	if s := n.tab.get(r); s != nil && s.hasGrant {
		s.g, s.hasGrant = grant{}, false
		n.tab.tidy(s)
	}
}

// prop returns the proposer's proposal for r, or nil. The pointer is
// valid until the node adds a grant or proposal for another resource.
func (n *Node) prop(r algorithms.ResourceID) *proposal {
	if s := n.tab.get(r); s != nil && s.hasProp {
		return &s.p
	}
	return nil
}

// newProp returns a new, zero proposal for r (which has none).
func (n *Node) newProp(r algorithms.ResourceID) *proposal {
	s := n.tab.add(r)
	s.p, s.hasProp = proposal{}, true
	return &s.p
}

// dropProp forgets the proposal for r.
func (n *Node) dropProp(r algorithms.ResourceID) {
	if s := n.tab.get(r); s != nil && s.hasProp {
		s.p, s.hasProp = proposal{}, false
		n.tab.tidy(s)
	}
}

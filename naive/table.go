package naive

import (
	"maps"
	"slices"
	"sync"

	"leaselab/algorithms"
)

// slot is a table's entry: a resource and its value (an acceptor's
// grant, 32 bytes, or a proposer's proposal, 96 bytes).
type slot[V any] struct {
	key algorithms.ResourceID
	v   V
}

// table holds a node's values of one kind (grants, or proposals) by
// resource. Why not Go maps: a batch puts thousands of resources in
// flight at once, and a map lookup per message (hashing, probing a
// control group, then the proposal it points to) cost the simulator
// about a tenth of its time. Workloads number resources 0..N-1, so ids
// below denseMax find their slot through a plain index slice (one load,
// no hashing); any other id falls back to a map. A removed slot is freed
// and reused, last freed first, so idle resources cost 4 bytes of index
// each. Slots live in chunks of chunkSlots: a table that grows allocates
// whole chunks, which never move, so growing copies nothing, and a run's
// chunks and index, below the runtime's large-object size, are reused by
// the next run's nodes (tablePools) instead of being fresh pages (a
// doubling slice of slots measured twice the system time, page faults).
//
// Grants and proposals are separate tables, not one slot of both: a
// batch writes a slot for each resource at every acceptor, and an
// acceptor that proposes nothing then writes 32 bytes a resource, not
// the 128 of a slot with room for a proposal (the in-flight memory of a
// batch against the cache, DESIGN.md "Performance").
//
// A clone (the explorer's branching, one per node a move touches) copies
// only what is in use: the index up to the largest id added, and of the
// last chunk only the slots handed out, so that chunk is shorter than
// chunkSlots and grows by append when the clone adds a slot (as the first
// chunk of every table does). A one-resource node's clone then copies one
// slot, not a whole chunk and a 4 KiB index.
//
// Nothing iterates the map: keys sorts what it returns.
type table[V any] struct {
	index  []int32 // by resource id: slot+1, 0 none
	sparse map[algorithms.ResourceID]int32
	chunks [][]slot[V] // each chunkSlots long, but a clone's last one
	n      int32       // slots handed out
	top    int32       // 1 + the largest dense id ever added (index beyond it is all 0)
	free   []int32
	pools  *tablePools[V] // nil: nothing pooled (tests)
}

const (
	denseMax   = 1 << 24
	chunkShift = 8
	chunkSlots = 1 << chunkShift
)

// tablePools hold the whole chunks and the indexes of released tables
// (Node.Release) for the next tables of the process. A pooled chunk is not
// cleared: add overwrites every slot it hands out, and nothing reads a
// slot beyond t.n. A pooled index is all 0: a batch's index of 10,000
// resources would otherwise double its way up, from 16 entries, in every
// node of every run.
type tablePools[V any] struct {
	chunks sync.Pool // of *[]slot[V], chunkSlots long
	index  sync.Pool // of *[]int32, all 0
}

var (
	grantPools tablePools[grant]
	propPools  tablePools[proposal]
)

// release hands t's whole chunks and its index to its pools; t must not
// be used again. A first chunk still short (grown by append, as in most
// tables the explorer builds) is left to the garbage collector.
func (t *table[V]) release() {
	if p := t.pools; p != nil {
		for c := range t.chunks {
			if ch := t.chunks[c]; len(ch) == chunkSlots {
				p.chunks.Put(&ch)
			}
		}
		if ix := t.index; ix != nil {
			clear(ix[:min(int(t.top), len(ix))])
			p.index.Put(&ix)
		}
	}
	*t = table[V]{pools: t.pools}
}

// newChunk returns a whole chunk from t's pool, or nil.
func (t *table[V]) newChunk() []slot[V] {
	if t.pools != nil {
		if ch, ok := t.pools.chunks.Get().(*[]slot[V]); ok {
			return *ch
		}
	}
	return nil
}

// at returns slot i.
func (t *table[V]) at(i int32) *slot[V] { return &t.chunks[i>>chunkShift][i&(chunkSlots-1)] }

// grow makes slot i (= t.n, the next one handed out) exist. The first
// chunk is a released table's if there is one (the tables of consecutive
// runs), else one slot that grows by append up to chunkSlots (most nodes
// the explorer builds hold one or two resources); a later chunk is
// allocated whole.
func (t *table[V]) grow(i int32) {
	c, off := int(i>>chunkShift), int(i&(chunkSlots-1))
	switch {
	case c == len(t.chunks):
		ch := t.newChunk()
		switch {
		case ch != nil:
		case c == 0:
			ch = make([]slot[V], 1)
		default:
			ch = make([]slot[V], chunkSlots)
		}
		t.chunks = append(t.chunks, ch)
	case off >= len(t.chunks[c]):
		var zero slot[V]
		t.chunks[c] = append(t.chunks[c], zero) // a short chunk
	}
}

// slotOf returns the number of r's slot, or -1.
func (t *table[V]) slotOf(r algorithms.ResourceID) int32 {
	if r < algorithms.ResourceID(len(t.index)) {
		return t.index[r] - 1
	}
	if r < denseMax || t.sparse == nil {
		return -1
	}
	if i, ok := t.sparse[r]; ok {
		return i
	}
	return -1
}

// get returns r's value, or nil. The pointer is valid until the next add.
func (t *table[V]) get(r algorithms.ResourceID) *V {
	if i := t.slotOf(r); i >= 0 {
		return &t.at(i).v
	}
	return nil
}

// add returns r's value, adding a zero one if r has none. The pointer is
// valid until the next add.
func (t *table[V]) add(r algorithms.ResourceID) *V {
	if v := t.get(r); v != nil {
		return v
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
	*s = slot[V]{key: r}
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
	return &s.v
}

// growIndex makes the index hold dense id r: a pooled index if one is
// long enough, else one of twice the length (or more, to reach r).
func (t *table[V]) growIndex(r algorithms.ResourceID) {
	if t.pools != nil {
		if p, ok := t.pools.index.Get().(*[]int32); ok {
			if algorithms.ResourceID(len(*p)) > r && len(*p) > len(t.index) {
				copy(*p, t.index)
				t.index = *p
				return
			}
			t.pools.index.Put(p)
		}
	}
	n := max(16, 2*len(t.index))
	for algorithms.ResourceID(n) <= r {
		n *= 2
	}
	grown := make([]int32, min(n, denseMax))
	copy(grown, t.index)
	t.index = grown
}

// remove frees r's slot, if it has one.
func (t *table[V]) remove(r algorithms.ResourceID) {
	i := t.slotOf(r)
	if i < 0 {
		return
	}
	if r < denseMax {
		t.index[r] = 0
	} else {
		delete(t.sparse, r)
	}
	*t.at(i) = slot[V]{}
	t.free = append(t.free, i)
}

// clone returns a deep copy of what is in use (see table); deep, if not
// nil, makes each copied value independent of its original.
func (t *table[V]) clone(deep func(*V)) table[V] {
	c := table[V]{
		index:  slices.Clone(t.index[:min(int(t.top), len(t.index))]),
		sparse: maps.Clone(t.sparse),
		chunks: make([][]slot[V], 0, len(t.chunks)),
		n:      t.n,
		top:    t.top,
		free:   slices.Clone(t.free),
		pools:  t.pools,
	}
	for base := int32(0); base < t.n; base += chunkSlots {
		cc := slices.Clone(t.chunks[base>>chunkShift][:min(chunkSlots, t.n-base)])
		if deep != nil {
			for j := range cc {
				deep(&cc[j].v)
			}
		}
		c.chunks = append(c.chunks, cc)
	}
	return c
}

// keys appends to ks, in ascending order, the resources that have a slot
// (a slot is in use when its key's index entry names it: freed slots
// are on the free list).
func (t *table[V]) keys(ks []algorithms.ResourceID) []algorithms.ResourceID {
	for i := range t.n {
		if r := t.at(i).key; t.slotOf(r) == i {
			ks = append(ks, r)
		}
	}
	slices.Sort(ks)
	return ks
}

// grantOf returns the acceptor's grant on r, if it has one.
func (n *Node) grantOf(r algorithms.ResourceID) (grant, bool) {
	if g := n.grants.get(r); g != nil {
		return *g, true
	}
	return grant{}, false
}

// setGrant makes g the acceptor's grant on r.
func (n *Node) setGrant(r algorithms.ResourceID, g grant) { *n.grants.add(r) = g }

// dropGrant forgets the acceptor's grant on r.
func (n *Node) dropGrant(r algorithms.ResourceID) { n.grants.remove(r) }

// prop returns the proposer's proposal for r, or nil. The pointer is
// valid until the node adds a proposal for another resource.
func (n *Node) prop(r algorithms.ResourceID) *proposal { return n.props.get(r) }

// newProp returns a new, zero proposal for r (which has none).
func (n *Node) newProp(r algorithms.ResourceID) *proposal {
	p := n.props.add(r)
	*p = proposal{}
	return p
}

// dropProp forgets the proposal for r.
func (n *Node) dropProp(r algorithms.ResourceID) { n.props.remove(r) }

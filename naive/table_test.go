package naive

import (
	"slices"
	"testing"
	"unsafe"

	"leaselab/algorithms"
)

// TestSlotSize: a grant's slot is half a cache line and a proposal's a
// line and a half; a field added past that costs a batch a line more
// per resource at every acceptor, or at the proposer.
func TestSlotSize(t *testing.T) {
	if got := unsafe.Sizeof(slot[grant]{}); got != 32 {
		t.Errorf("grant slot is %d bytes, want 32", got)
	}
	if got := unsafe.Sizeof(slot[proposal]{}); got != 96 {
		t.Errorf("proposal slot is %d bytes, want 96", got)
	}
}

// TestTable: dense and sparse ids, slots freed when empty and reused,
// keys in ascending order.
func TestTable(t *testing.T) {
	n := &Node{}
	ids := []algorithms.ResourceID{5, denseMax + 7, 0, 3000, denseMax + 1}
	for i, r := range ids {
		n.setGrant(r, grant{owner: algorithms.NodeID(i), ballot: 1})
		if i%2 == 0 {
			n.newProp(r).failed = i
		}
	}
	for i, r := range ids {
		if g, ok := n.grantOf(r); !ok || g.owner != algorithms.NodeID(i) {
			t.Fatalf("grant of %d: %v %v", r, g, ok)
		}
		if p := n.prop(r); (p != nil) != (i%2 == 0) || (p != nil && p.failed != i) {
			t.Fatalf("proposal of %d: %v", r, p)
		}
	}
	want := []algorithms.ResourceID{0, 5, 3000, denseMax + 1, denseMax + 7}
	if got := n.grants.keys(nil); !slices.Equal(got, want) {
		t.Fatalf("grant keys %v, want %v", got, want)
	}
	if got := n.props.keys(nil); !slices.Equal(got, []algorithms.ResourceID{0, 5, denseMax + 1}) {
		t.Fatalf("proposal keys %v", got)
	}
	n.dropGrant(3000)
	n.dropGrant(5) // its proposal stays
	if _, ok := n.grantOf(3000); ok || n.prop(5) == nil {
		t.Fatal("dropGrant dropped the wrong state")
	}
	if _, ok := n.grantOf(5); ok {
		t.Fatal("grant of 5 still there")
	}
	before := n.grants.n
	n.setGrant(9, grant{owner: 1, ballot: 2})
	if n.grants.n != before {
		t.Fatal("a freed slot was not reused")
	}
	if got := n.grants.keys(nil); !slices.Equal(got, []algorithms.ResourceID{0, 9, denseMax + 1, denseMax + 7}) {
		t.Fatalf("grant keys after the drops %v", got)
	}
	n.dropGrant(denseMax + 7)
	if _, ok := n.grantOf(denseMax + 7); ok {
		t.Fatal("sparse slot not freed")
	}
}

// TestTableCloneCopiesWhatIsUsed: a clone copies the slots handed out and
// the index up to the largest id, and grows like any table afterwards
// (past its short last chunk and past its short index) without touching
// the original.
func TestTableCloneCopiesWhatIsUsed(t *testing.T) {
	n := &Node{}
	for r := range algorithms.ResourceID(3) {
		n.setGrant(r, grant{owner: 1, ballot: algorithms.Ballot(r + 1)})
	}
	c := n.grants.clone(nil)
	if len(c.index) != 3 || len(c.chunks) != 1 || len(c.chunks[0]) != 3 {
		t.Fatalf("clone holds an index of %d and %d chunks (first %d slots); want 3, 1, 3", len(c.index), len(c.chunks), len(c.chunks[0]))
	}
	cn := &Node{grants: c}
	for r := algorithms.ResourceID(0); r < 600; r++ {
		cn.setGrant(r, grant{owner: 2, ballot: algorithms.Ballot(r + 7)})
	}
	for r := algorithms.ResourceID(0); r < 600; r++ {
		if g, ok := cn.grantOf(r); !ok || g.owner != 2 || g.ballot != algorithms.Ballot(r+7) {
			t.Fatalf("clone's grant of %d: %v %v", r, g, ok)
		}
	}
	for r := range algorithms.ResourceID(600) {
		g, ok := n.grantOf(r)
		if want := r < 3; ok != want || (ok && (g.owner != 1 || g.ballot != algorithms.Ballot(r+1))) {
			t.Fatalf("original's grant of %d changed: %v %v", r, g, ok)
		}
	}
}

// TestTableRelease: a table built from chunks another node released
// (chunkPool, not cleared) holds only what it was given: stale slots of
// the released table are never read.
func TestTableRelease(t *testing.T) {
	old := &Node{grants: table[grant]{pools: &grantPools}, props: table[proposal]{pools: &propPools}}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		old.setGrant(r, grant{owner: 1, ballot: algorithms.Ballot(r + 1)})
		old.newProp(r).failed = int(r)
	}
	old.Release()
	if old.grants.n != 0 || old.grants.chunks != nil || old.props.n != 0 || old.props.chunks != nil {
		t.Fatalf("released tables still hold %d and %d slots", old.grants.n, old.props.n)
	}
	n := &Node{grants: table[grant]{pools: &grantPools}, props: table[proposal]{pools: &propPools}}
	const base = 10 * chunkSlots
	for i := range algorithms.ResourceID(2 * chunkSlots) {
		n.setGrant(base+i, grant{owner: 2, ballot: 7})
	}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		if _, ok := n.grantOf(r); ok || n.prop(r) != nil {
			t.Fatalf("resource %d of the released table is in the new one", r)
		}
	}
	if got := n.props.keys(nil); len(got) != 0 {
		t.Fatalf("proposals %v in a table that has none", got)
	}
	got := n.grants.keys(nil)
	if len(got) != 2*chunkSlots || got[0] != base || got[len(got)-1] != base+2*chunkSlots-1 {
		t.Fatalf("grant keys: %d, from %v", len(got), got[:1])
	}
	for _, s := range n.grants.clone(nil).chunks {
		for j := range s {
			if s[j].v.owner != 2 {
				t.Fatalf("clone slot %d: %+v", j, s[j])
			}
		}
	}
}

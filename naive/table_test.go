package naive

import (
	"slices"
	"testing"
	"unsafe"

	"leaselab/algorithms"
)

// TestSlotSize: a slot is two cache lines; a field added past that costs
// a third line on most messages of a large batch.
func TestSlotSize(t *testing.T) {
	if got := unsafe.Sizeof(slot{}); got != 128 {
		t.Fatalf("slot is %d bytes, want 128", got)
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
	if got := n.tab.keys(nil, true); !slices.Equal(got, want) {
		t.Fatalf("grant keys %v, want %v", got, want)
	}
	if got := n.tab.keys(nil, false); !slices.Equal(got, []algorithms.ResourceID{0, 5, denseMax + 1}) {
		t.Fatalf("proposal keys %v", got)
	}
	n.dropGrant(3000) // no proposal: the slot is freed
	n.dropGrant(5)    // proposal left: the slot stays
	if n.tab.get(3000) != nil || n.prop(5) == nil {
		t.Fatal("dropGrant freed the wrong slots")
	}
	before := n.tab.n
	n.setGrant(9, grant{owner: 1, ballot: 2})
	if n.tab.n != before {
		t.Fatal("a freed slot was not reused")
	}
	n.dropGrant(denseMax + 7)
	if n.tab.get(denseMax+7) != nil {
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
	c := n.tab.clone()
	if len(c.index) != 3 || len(c.chunks) != 1 || len(c.chunks[0]) != 3 {
		t.Fatalf("clone holds an index of %d and %d chunks (first %d slots); want 3, 1, 3", len(c.index), len(c.chunks), len(c.chunks[0]))
	}
	cn := &Node{tab: c}
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
	old := &Node{}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		old.setGrant(r, grant{owner: 1, ballot: algorithms.Ballot(r + 1)})
		old.newProp(r).failed = int(r)
	}
	old.Release()
	if old.tab.n != 0 || old.tab.chunks != nil {
		t.Fatalf("released table still holds %d slots", old.tab.n)
	}
	n := &Node{}
	const base = 10 * chunkSlots
	for i := range algorithms.ResourceID(2 * chunkSlots) {
		n.setGrant(base+i, grant{owner: 2, ballot: 7})
	}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		if _, ok := n.grantOf(r); ok || n.prop(r) != nil {
			t.Fatalf("resource %d of the released table is in the new one", r)
		}
	}
	if got := n.tab.keys(nil, false); len(got) != 0 {
		t.Fatalf("proposals %v in a table that has none", got)
	}
	got := n.tab.keys(nil, true)
	if len(got) != 2*chunkSlots || got[0] != base || got[len(got)-1] != base+2*chunkSlots-1 {
		t.Fatalf("grant keys: %d, from %v", len(got), got[:1])
	}
	// A table on the released index (cleared) and chunks: only its own
	// resource is there.
	old2 := &Node{}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		old2.setGrant(r, grant{owner: 1, ballot: algorithms.Ballot(r + 1)})
	}
	old2.Release()
	n2 := &Node{}
	n2.setGrant(5, grant{owner: 3, ballot: 9})
	if len(n2.tab.index) < 3*chunkSlots {
		// sync.Pool may drop what it holds (a collection, another P).
		t.Logf("the new table did not get the released index (length %d)", len(n2.tab.index))
	}
	for r := range algorithms.ResourceID(3 * chunkSlots) {
		if g, ok := n2.grantOf(r); ok != (r == 5) || (ok && g.owner != 3) {
			t.Fatalf("resource %d in the table on a released index: %v %v", r, g, ok)
		}
	}
	if got := n2.tab.keys(nil, true); !slices.Equal(got, []algorithms.ResourceID{5}) {
		t.Fatalf("grant keys %v", got)
	}
	for _, s := range n.tab.clone().chunks {
		for j := range s {
			if s[j].hasProp || s[j].g.owner != 2 {
				t.Fatalf("clone slot %d: %+v", j, s[j])
			}
		}
	}
}

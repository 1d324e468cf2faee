package algorithms

import (
	"bytes"
	"testing"
)

// TestNodeSet checks the set against a map, for ids within the inline
// word, across it and far past it.
func TestNodeSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []NodeID
	}{
		{"empty", nil},
		{"inline", []NodeID{0, 1, 63, 5}},
		{"overflow", []NodeID{64, 99, 127, 128}},
		{"both, with repeats", []NodeID{3, 70, 3, 200, 70, 63, 64}},
		{"far", []NodeID{1000, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s NodeSet
			want := map[NodeID]bool{}
			for _, id := range tc.ids {
				if got := s.Add(id); got == want[id] {
					t.Fatalf("Add(%d) = %v with %d already in: %v", id, got, id, want[id])
				}
				want[id] = true
			}
			if s.Len() != len(want) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(want))
			}
			for id := NodeID(0); id < 1100; id++ {
				if s.Has(id) != want[id] {
					t.Fatalf("Has(%d) = %v, want %v", id, s.Has(id), want[id])
				}
			}

			c := s.Clone()
			c.Add(5)
			c.Add(300)
			if s.Has(300) || (!want[5] && s.Has(5)) {
				t.Fatal("adding to the clone changed the original")
			}

			for id := range want {
				s.Remove(id)
			}
			s.Remove(5000) // not there, no word for it: nothing happens
			var empty NodeSet
			if s.Len() != 0 || !bytes.Equal(s.AppendState(nil), empty.AppendState(nil)) {
				t.Fatalf("emptied set: Len %d, encoding %x, want that of the zero set", s.Len(), s.AppendState(nil))
			}

			c.Reset()
			if c.Len() != 0 || c.Has(300) || !bytes.Equal(c.AppendState(nil), empty.AppendState(nil)) {
				t.Fatal("Reset left ids behind")
			}
		})
	}
}

// TestNodeSetNoAllocation: a set of ids below 64 never allocates, and a
// large one allocates once, not on every Reset.
func TestNodeSetNoAllocation(t *testing.T) {
	var s NodeSet
	if n := testing.AllocsPerRun(100, func() {
		s.Reset()
		for id := NodeID(0); id < 64; id++ {
			s.Add(id)
		}
		_ = s.Len()
		_ = s.Clone()
	}); n != 0 {
		t.Errorf("%v allocations per round of 64 ids", n)
	}
	s.Add(99)
	if n := testing.AllocsPerRun(100, func() {
		s.Reset()
		s.Add(99)
		s.Add(3)
	}); n != 0 {
		t.Errorf("%v allocations per round of ids past 64", n)
	}
}

func TestCountOf(t *testing.T) {
	var a, b, c NodeSet
	for _, id := range []NodeID{1, 2, 3, 70, 71} {
		a.Add(id)
	}
	for _, id := range []NodeID{2, 71} {
		b.Add(id)
	}
	for _, id := range []NodeID{9, 3, 150} {
		c.Add(id)
	}
	// (a \ b) ∪ c = {1, 3, 70} ∪ {3, 9, 150}
	if n := CountOf(&a, &b, &c, func(a, b, c uint64) uint64 { return a&^b | c }); n != 5 {
		t.Errorf("|(a \\ b) ∪ c| = %d, want 5", n)
	}
}

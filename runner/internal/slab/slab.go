// Package slab is a growable array of slots with a free list: values
// live at stable int32 indices (which events and lists can hold instead
// of pointers), and freed slots are reused last-freed first, so the
// indices a run hands out are the same in every run.
package slab

// Slab holds values of T in numbered slots. The zero value is empty and
// ready.
type Slab[T any] struct {
	items []T
	free  []int32
}

// Alloc returns a slot for a new value: the slot freed last, still holding
// what it held (callers keep generation counters there), or a new zero
// slot.
func (s *Slab[T]) Alloc() int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	var zero T
	s.items = append(s.items, zero)
	return int32(len(s.items) - 1)
}

// Put stores v in a slot (Alloc) and returns its index.
func (s *Slab[T]) Put(v T) int32 {
	i := s.Alloc()
	s.items[i] = v
	return i
}

// At returns slot i. The pointer is valid until the next Alloc or Put.
func (s *Slab[T]) At(i int32) *T { return &s.items[i] }

// Free makes slot i reusable. Its value stays until the slot is reused.
func (s *Slab[T]) Free(i int32) { s.free = append(s.free, i) }

// Len is the number of slots ever allocated, free or not: the range of
// indices to scan for live values.
func (s *Slab[T]) Len() int { return len(s.items) }

// InUse is the number of slots allocated and not freed.
func (s *Slab[T]) InUse() int { return len(s.items) - len(s.free) }

// Grow makes room for n more slots without reallocating.
func (s *Slab[T]) Grow(n int) {
	if n > cap(s.items)-len(s.items) {
		a := make([]T, len(s.items), len(s.items)+n)
		copy(a, s.items)
		s.items = a
	}
}

// Reset empties the slab and keeps its memory. It then hands out the same
// indices, holding the same zero values, as a new slab: a slot past the
// end is written with the zero value when it is handed out again.
// Values of freed slots stay reachable until then.
func (s *Slab[T]) Reset() {
	s.items = s.items[:0]
	s.free = s.free[:0]
}

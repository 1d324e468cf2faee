package slab

import "testing"

func TestReuseLastFreedFirst(t *testing.T) {
	var s Slab[int]
	for i := range 3 {
		if got := s.Put(10 + i); got != int32(i) {
			t.Fatalf("put %d: slot %d, want %d", i, got, i)
		}
	}
	s.Free(0)
	s.Free(2)
	if s.InUse() != 1 || s.Len() != 3 {
		t.Fatalf("in use %d of %d, want 1 of 3", s.InUse(), s.Len())
	}
	if got := s.Alloc(); got != 2 || *s.At(got) != 12 {
		t.Fatalf("alloc: slot %d holding %d, want slot 2 still holding 12", got, *s.At(got))
	}
	if got := s.Put(7); got != 0 || *s.At(0) != 7 {
		t.Fatalf("put: slot %d holding %d, want slot 0 holding 7", got, *s.At(0))
	}
	if got := s.Alloc(); got != 3 || *s.At(3) != 0 {
		t.Fatalf("alloc with nothing free: slot %d holding %d, want a new zero slot 3", got, *s.At(3))
	}
}

func TestResetHandsOutNewSlots(t *testing.T) {
	var s Slab[int]
	s.Put(5)
	s.Put(6)
	s.Free(0)
	s.Reset()
	if s.Len() != 0 || s.InUse() != 0 {
		t.Fatalf("after reset: %d slots, %d in use, want none", s.Len(), s.InUse())
	}
	if got := s.Alloc(); got != 0 || *s.At(0) != 0 {
		t.Fatalf("alloc after reset: slot %d holding %d, want a new zero slot 0", got, *s.At(0))
	}
}

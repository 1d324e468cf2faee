package algorithms

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// NodeSet is a set of NodeIDs: the acceptors that answered a phase,
// counted once each however often their answers arrive. The zero value is
// empty and ready to use.
//
// Ids below 64 live in one inline word, so a set of the usual cluster
// costs 16 bytes in its holder (the word and a nil pointer) and no
// allocation; ids from 64 up go to overflow words allocated the first
// time such an id is added and kept, cleared, across Reset, so that a
// large cluster allocates once per set, not once per round.
type NodeSet struct {
	lo uint64    // ids 0..63
	hi *[]uint64 // word i holds ids 64(i+1)..64(i+1)+63; nil until one is added
}

// Add puts id in s and reports whether it was new.
//
// Add, Has and Remove look at the inline word themselves and call out
// only for the overflow words, so that Has and Remove are small enough
// for the compiler to inline into the algorithms' answer handling (every
// answer of every round goes through them; Add stays just over the
// inlining budget).
func (s *NodeSet) Add(id NodeID) bool {
	if id >= 64 {
		return s.addHi(id)
	}
	was := s.lo
	s.lo |= 1 << id
	return s.lo != was
}

func (s *NodeSet) addHi(id NodeID) bool {
	w, b := s.word(id, true), uint64(1)<<(id%64)
	if *w&b != 0 {
		return false
	}
	*w |= b
	return true
}

// Has reports whether id is in s.
func (s *NodeSet) Has(id NodeID) bool {
	if id < 64 {
		return s.lo&(1<<id) != 0
	}
	return s.hasHi(id)
}

func (s *NodeSet) hasHi(id NodeID) bool {
	w := s.word(id, false)
	return w != nil && *w&(1<<(id%64)) != 0
}

// Remove takes id out of s.
func (s *NodeSet) Remove(id NodeID) {
	if id >= 64 {
		s.removeHi(id)
		return
	}
	s.lo &^= 1 << id
}

func (s *NodeSet) removeHi(id NodeID) {
	if w := s.word(id, false); w != nil {
		*w &^= 1 << (id % 64)
	}
}

// Len is the number of ids in s.
func (s *NodeSet) Len() int {
	n := bits.OnesCount64(s.lo)
	if s.hi != nil {
		for _, w := range *s.hi {
			n += bits.OnesCount64(w)
		}
	}
	return n
}

// Reset empties s, keeping its overflow words for reuse.
func (s *NodeSet) Reset() {
	s.lo = 0
	if s.hi != nil {
		clear(*s.hi)
	}
}

// Clone returns an independent copy of s (for Explorable.Clone).
func (s *NodeSet) Clone() NodeSet {
	c := NodeSet{lo: s.lo}
	if s.hi != nil {
		hi := slices.Clone(*s.hi)
		c.hi = &hi
	}
	return c
}

// AppendState appends a canonical encoding of s (for
// Explorable.AppendState): equal sets give equal bytes, whatever overflow
// words they happen to keep.
func (s *NodeSet) AppendState(b []byte) []byte {
	b = binary.AppendUvarint(b, s.lo)
	var hi []uint64
	if s.hi != nil {
		hi = *s.hi
	}
	for len(hi) > 0 && hi[len(hi)-1] == 0 {
		hi = hi[:len(hi)-1]
	}
	b = binary.AppendUvarint(b, uint64(len(hi)))
	for _, w := range hi {
		b = binary.AppendUvarint(b, w)
	}
	return b
}

// CountOf counts the ids of the set that f makes of a, b and c word by
// word, such as |(a \ b) ∪ c| with f(a, b, c) = a&^b | c. It allocates
// nothing. f(0, 0, 0) must be 0.
func CountOf(a, b, c *NodeSet, f func(a, b, c uint64) uint64) int {
	n := bits.OnesCount64(f(a.lo, b.lo, c.lo))
	words := max(a.words(), b.words(), c.words())
	for i := 0; i < words; i++ {
		n += bits.OnesCount64(f(a.at(i), b.at(i), c.at(i)))
	}
	return n
}

// word returns the word that holds id, growing the overflow words if grow
// is set, else nil when s has no word for id.
func (s *NodeSet) word(id NodeID, grow bool) *uint64 {
	if id < 64 {
		return &s.lo
	}
	i := int(id/64) - 1
	if s.hi == nil || i >= len(*s.hi) {
		if !grow {
			return nil
		}
		if s.hi == nil {
			s.hi = new([]uint64)
		}
		*s.hi = append(*s.hi, make([]uint64, i+1-len(*s.hi))...)
	}
	return &(*s.hi)[i]
}

func (s *NodeSet) words() int {
	if s.hi == nil {
		return 0
	}
	return len(*s.hi)
}

// at is overflow word i, 0 past the end.
func (s *NodeSet) at(i int) uint64 {
	if s.hi == nil || i >= len(*s.hi) {
		return 0
	}
	return (*s.hi)[i]
}

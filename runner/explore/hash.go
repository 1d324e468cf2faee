package explore

import (
	"encoding/binary"
	"math/bits"
)

// fp is a 128-bit fingerprint of a canonical encoding.
type fp struct{ a, b uint64 }

// hasher folds 64-bit words into two independent 64-bit lanes with the
// 128-bit multiply-and-fold step of wyhash (different keys and a rotated
// input per lane), finished with a length-dependent mix. It is fixed (no
// per-process seed), so fingerprints, and therefore every result of the
// explorer, are the same in every run.
type hasher struct {
	a, b uint64
	n    uint64
}

const (
	hk0 = 0xa0761d6478bd642f
	hk1 = 0xe7037ed1a0b428db
	hk2 = 0x8ebc6af09c88c6e3
	hk3 = 0x589965cc75374cc3
	hk4 = 0x1d8e4e27c47d124f
)

func mum(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return hi ^ lo
}

func newHasher() hasher { return hasher{a: hk0, b: hk1} }

func (h *hasher) word(w uint64) {
	h.n++
	h.a = mum(h.a^w^hk2, hk1^h.n)
	h.b = mum(h.b^bits.RotateLeft64(w, 32)^hk3, hk4+h.n)
}

func (h *hasher) bytes(p []byte) {
	h.word(uint64(len(p)))
	for len(p) >= 8 {
		h.word(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	if len(p) > 0 {
		var t [8]byte
		copy(t[:], p)
		h.word(binary.LittleEndian.Uint64(t[:]))
	}
}

func (h *hasher) sum() fp {
	a := mum(h.a^h.n, hk0^hk3)
	b := mum(h.b^h.n, hk1^hk4)
	return fp{a: a, b: b}
}

func hashBytes(p []byte) fp {
	h := newHasher()
	h.bytes(p)
	return h.sum()
}

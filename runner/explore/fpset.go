package explore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// fpSet is the visited set: 128-bit fingerprints and nothing else, in
// open-addressing tables with linear probing, one per shard (the top bits
// of fp.a choose the shard, the next bits the slot). A shard doubles when
// it is three quarters full, so a visited state costs 16 bytes / load,
// between 21 and 43 bytes. The shards start at sizes spread over a factor
// of two (fpMinSlots to twice that), so they reach their thresholds at
// different times: the set grows smoothly, by one shard (1/256 of it) at a
// time, never by twice the whole set at once, and a memory cap is reached
// with the tables about 56% full on average, not at whatever point of one
// doubling of all of them. The
// tables live outside the Go heap (mapped memory where the system has it,
// see fpmem_unix.go): the garbage collector neither scans them nor counts
// them toward its next goal, and a table given back is returned to the
// system at once, so the memory cap can count them exactly.
//
// The zero fingerprint marks an empty slot; a state whose fingerprint is
// zero is stored as {0, 1} (one more collision, chance 2^-128).
type fpSet struct {
	shards []fpShard
	shift  uint // fp.a >> shift is the shard
	count  int64
	bytes  int64 // table bytes held
	// allow, if set, is asked before a shard grows by extra bytes; false
	// refuses (insert then reports errFull).
	allow func(extra int64) bool
}

type fpShard struct {
	slots []fp // any length (home scales the hash to it)
	n     int
	mem   []byte // backing of slots (fpAlloc)
}

// errFull: the set would have to grow beyond what allow permits.
var errFull = errors.New("explore: the visited set reached the memory cap")

const (
	fpShardBits = 8
	fpMinSlots  = 1 << 10
)

func newFPSet() *fpSet {
	s := &fpSet{shards: make([]fpShard, 1<<fpShardBits), shift: 64 - fpShardBits}
	for i := range s.shards {
		n := fpMinSlots + i*fpMinSlots>>fpShardBits
		s.shards[i].alloc(n)
		s.bytes += int64(n) * 16
	}
	return s
}

func (sh *fpShard) alloc(n int) {
	sh.mem = fpAlloc(n * 16)
	sh.slots = fpSlots(sh.mem, n)
}

// canon maps the zero fingerprint (the empty mark) to {0, 1}.
func canon(f fp) fp {
	if f == (fp{}) {
		return fp{b: 1}
	}
	return f
}

// home is f's first slot in a table of n slots: the bits of fp.a below the
// shard's, scaled to [0, n) (a multiply, no division).
func home(f fp, n int) int {
	hi, _ := bits.Mul64(f.a<<fpShardBits, uint64(n))
	return int(hi)
}

// insert adds f and reports whether it was new; errFull if the set must
// grow and may not.
func (s *fpSet) insert(f fp) (bool, error) {
	f = canon(f)
	sh := &s.shards[f.a>>s.shift]
	if (sh.n+1)*4 > len(sh.slots)*3 {
		extra := int64(len(sh.slots)) * 16 * 2
		if s.allow != nil && !s.allow(extra) {
			if sh.has(f) {
				return false, nil
			}
			return false, errFull
		}
		s.grow(sh)
	}
	n := len(sh.slots)
	for i := home(f, n); ; i = next(i, n) {
		switch sh.slots[i] {
		case f:
			return false, nil
		case fp{}:
			sh.slots[i] = f
			sh.n++
			s.count++
			return true, nil
		}
	}
}

// next is the slot after i in a table of n.
func next(i, n int) int {
	if i++; i == n {
		return 0
	}
	return i
}

// has reports whether f is in the shard.
func (sh *fpShard) has(f fp) bool {
	n := len(sh.slots)
	for i := home(f, n); ; i = next(i, n) {
		switch sh.slots[i] {
		case f:
			return true
		case fp{}:
			return false
		}
	}
}

// contains reports whether f is in the set.
func (s *fpSet) contains(f fp) bool {
	f = canon(f)
	return s.shards[f.a>>s.shift].has(f)
}

func (s *fpSet) grow(sh *fpShard) {
	old, oldMem := sh.slots, sh.mem
	sh.alloc(2 * len(old))
	s.bytes += int64(len(old)) * 16
	for _, f := range old {
		if f != (fp{}) {
			sh.place(f)
		}
	}
	fpFree(oldMem)
}

// place puts f, known to be absent, in the shard.
func (sh *fpShard) place(f fp) {
	n := len(sh.slots)
	i := home(f, n)
	for sh.slots[i] != (fp{}) {
		i = next(i, n)
	}
	sh.slots[i] = f
}

// free gives every table back.
func (s *fpSet) free() {
	for i := range s.shards {
		fpFree(s.shards[i].mem)
		s.shards[i] = fpShard{}
	}
	s.bytes = 0
}

// writeTo writes the set: per shard its slot count and its occupied
// fingerprints.
func (s *fpSet) writeTo(w io.Writer) error {
	var buf [16]byte
	for i := range s.shards {
		sh := &s.shards[i]
		binary.LittleEndian.PutUint64(buf[:8], uint64(len(sh.slots)))
		binary.LittleEndian.PutUint64(buf[8:], uint64(sh.n))
		if _, err := w.Write(buf[:]); err != nil {
			return err
		}
		out := make([]byte, 0, 1<<16)
		for _, f := range sh.slots {
			if f == (fp{}) {
				continue
			}
			out = binary.LittleEndian.AppendUint64(out, f.a)
			out = binary.LittleEndian.AppendUint64(out, f.b)
			if len(out) >= 1<<16 {
				if _, err := w.Write(out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// readFrom replaces the set's contents with what writeTo wrote.
func (s *fpSet) readFrom(r io.Reader) error {
	var hdr [16]byte
	buf := make([]byte, 1<<16)
	for i := range s.shards {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return fmt.Errorf("visited set: %w", err)
		}
		size, n := int(binary.LittleEndian.Uint64(hdr[:8])), int(binary.LittleEndian.Uint64(hdr[8:]))
		if size < fpMinSlots || size > 1<<40 || n*4 > size*3 {
			return fmt.Errorf("visited set: shard %d has %d of %d slots", i, n, size)
		}
		sh := &s.shards[i]
		s.bytes -= int64(len(sh.slots)) * 16
		s.count -= int64(sh.n)
		fpFree(sh.mem)
		sh.alloc(size)
		sh.n = 0
		s.bytes += int64(size) * 16
		for left := n; left > 0; {
			k := min(left, len(buf)/16)
			if _, err := io.ReadFull(r, buf[:16*k]); err != nil {
				return fmt.Errorf("visited set: %w", err)
			}
			for j := range k {
				f := fp{a: binary.LittleEndian.Uint64(buf[16*j:]), b: binary.LittleEndian.Uint64(buf[16*j+8:])}
				if f == (fp{}) || int(f.a>>s.shift) != i {
					return fmt.Errorf("visited set: a fingerprint in the wrong shard")
				}
				sh.place(f)
			}
			left -= k
		}
		sh.n = n
		s.count += int64(n)
	}
	return nil
}

package explore

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFPSet: inserts report new and repeated fingerprints (the zero one
// too), tables grow, a refused growth is errFull without losing what is
// there, and a written set reads back to the same contents.
func TestFPSet(t *testing.T) {
	s := newFPSet()
	defer s.free()
	rng := rand.New(rand.NewPCG(1, 2))
	var fps []fp
	for range 300_000 {
		fps = append(fps, fp{a: rng.Uint64(), b: rng.Uint64()})
	}
	fps = append(fps, fp{}, fp{b: 1}) // the empty mark and what it maps to
	for i, f := range fps {
		fresh, err := s.insert(f)
		if err != nil || !fresh && i < len(fps)-1 {
			t.Fatalf("insert %d: fresh %v, err %v", i, fresh, err)
		}
	}
	if s.count != int64(len(fps)-1) {
		t.Fatalf("count %d, want %d", s.count, len(fps)-1)
	}
	for i, f := range fps {
		if fresh, _ := s.insert(f); fresh || !s.contains(f) {
			t.Fatalf("fingerprint %d not found again", i)
		}
	}
	if s.contains(fp{a: 7, b: 7}) {
		t.Fatal("contains a fingerprint never inserted")
	}
	if per := float64(s.bytes) / float64(s.count); per < 16/0.75 || per > 16/0.375+1 {
		t.Fatalf("%.1f bytes per fingerprint, want 21 to 43", per)
	}

	var buf bytes.Buffer
	if err := s.writeTo(&buf); err != nil {
		t.Fatal(err)
	}
	r := newFPSet()
	defer r.free()
	if err := r.readFrom(&buf); err != nil {
		t.Fatal(err)
	}
	if r.count != s.count || r.bytes != s.bytes {
		t.Fatalf("read back %d fingerprints in %d bytes, wrote %d in %d", r.count, r.bytes, s.count, s.bytes)
	}
	for i, f := range fps {
		if !r.contains(f) {
			t.Fatalf("fingerprint %d lost in writing and reading", i)
		}
	}

	// Refuse every growth: inserting goes on until a shard is full, then
	// errFull; what was there stays, and repeats are still recognised.
	r.allow = func(int64) bool { return false }
	full := false
	for range 1_000_000 {
		f := fp{a: rng.Uint64(), b: rng.Uint64()}
		if _, err := r.insert(f); err == errFull {
			full = true
			break
		}
	}
	if !full {
		t.Fatal("a set that may not grow never reported errFull")
	}
	if fresh, err := r.insert(fps[0]); fresh || err != nil {
		t.Fatalf("a repeat in a full set: fresh %v, err %v", fresh, err)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1GiB", 1 << 30}, {"512MiB", 512 << 20}, {"1.5GB", 1_500_000_000}, {"800mb", 800_000_000},
		{"4096", 4096}, {"2G", 2 << 30}, {"none", -1}, {"10KiB", 10 << 10},
	} {
		if got, err := ParseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GiB", "1XB", "1e30GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
}

func TestDefaultMaxPending(t *testing.T) {
	for _, tc := range []struct{ a, p, want int }{{1, 3, 3}, {3, 2, 4}, {3, 3, 4}, {5, 2, 7}, {1, 1, 1}, {2, 1, 2}} {
		if got := DefaultMaxPending(tc.a, tc.p); got != tc.want {
			t.Errorf("DefaultMaxPending(%d, %d) = %d, want %d", tc.a, tc.p, got, tc.want)
		}
	}
}

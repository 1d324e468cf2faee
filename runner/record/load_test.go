package record

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Every value falls in the bucket whose bounds surround it, and buckets
// are narrower than 1/128 of their values.
func TestHistogramBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []int64{0, 1, 127, 128, 129, 255, 256, 257, 1000, 1 << 20, 1<<20 + 1, 123456789, math.MaxInt64}
	for i := 0; i < 10000; i++ {
		vals = append(vals, r.Int64N(1<<r.IntN(62)+1))
	}
	for _, v := range vals {
		i := histIndex(v)
		if hi := histUpper(i); hi < v {
			t.Fatalf("%d in bucket %d whose upper bound is %d", v, i, hi)
		}
		if i > 0 && histUpper(i-1) >= v {
			t.Fatalf("%d in bucket %d, but bucket %d reaches %d", v, i, i-1, histUpper(i-1))
		}
		if lo := histUpper(i-1) + 1; i > 0 && float64(histUpper(i)-lo) > float64(lo)/128 {
			t.Fatalf("bucket %d [%d, %d] is wider than 1/128 of its values", i, lo, histUpper(i))
		}
	}
	var h Histogram
	for _, v := range []int64{5, 5, 1000, 2000000} {
		h.Record(v)
	}
	b := h.Buckets(1)
	if len(b) != 3 || b[0].LE != 5 || b[0].Count != 2 || b[2].LE != 2000000 || b[2].Count != 1 || b[1].LE < 1000 || b[1].LE > 1008 {
		t.Errorf("buckets %+v", b)
	}
}

// Throughput buckets double as the run grows and keep every count.
func TestThroughputBuckets(t *testing.T) {
	var tp throughput
	for ms := int64(0); ms < 10000; ms++ {
		tp.add(ms * 1e6)
	}
	if tp.width != 64e6 || len(tp.counts) != 157 {
		t.Errorf("width %d, %d buckets", tp.width, len(tp.counts))
	}
	var n int64
	for _, c := range tp.counts {
		n += c
	}
	if n != 10000 || tp.counts[0] != 64 {
		t.Errorf("%d counted, first bucket %d", n, tp.counts[0])
	}
}

// The recorder's per-resource state stays two cache lines (see resState)
// and a pending request three words.
func TestRecorderStateSizes(t *testing.T) {
	if n := unsafe.Sizeof(resState{}); n != 128 {
		t.Errorf("resState is %d bytes, want 128", n)
	}
	if n := unsafe.Sizeof(want{}); n != 24 {
		t.Errorf("want is %d bytes, want 24", n)
	}
}

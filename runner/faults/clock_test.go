package faults

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

func TestClockTrueAt(t *testing.T) {
	clocks := []Clock{
		{},
		{Offset: 12345},
		{Offset: -99999},
		{RatePPB: 1_000_000},  // +1000 ppm
		{RatePPB: -1_000_000}, // -1000 ppm
		{Offset: 7, RatePPB: 333},
		{Offset: -3, RatePPB: -499_999_999},
		{Offset: 5_000_000_000, RatePPB: 123_456_789},
	}
	for _, c := range clocks {
		for _, l := range []algorithms.Local{-1_000_000, -1, 0, 1, 2, 999, 1_000_000_007, 3_600_000_000_000, 86_400_000_000_123} {
			tt := c.TrueAt(l)
			if c.Local(tt) < l || c.Local(tt-1) >= l {
				t.Errorf("clock %+v: TrueAt(%d) = %d, local there %d, one before %d", c, l, tt, c.Local(tt), c.Local(tt-1))
			}
		}
	}
	// The rate is applied exactly: 1000 ppm over one hour is 3.6 s.
	c := Clock{RatePPB: 1_000_000}
	if got := c.Local(3_600_000_000_000); got != 3_603_600_000_000 {
		t.Fatalf("local after an hour at +1000ppm: %d", got)
	}
	if got := (Clock{RatePPB: -1}).Local(1); got != 0 {
		t.Fatalf("floor of a negative correction: %d", got)
	}
	if got := (Clock{}).TrueAt(1 << 62); got != 1<<63-1 {
		t.Fatalf("far deadline should be never, got %d", got)
	}
}

// TestMulDivFloor checks mulDivFloor against big-integer floor division
// on both of its paths (products below 2^64 and above), signs mixed.
func TestMulDivFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 20000; i++ {
		var a, b int64
		switch i % 3 {
		case 0: // small: the constant-division path
			a, b = r.Int64N(1<<40)-1<<39, r.Int64N(1<<22)-1<<21
		case 1: // products past 2^64: the 128-bit path
			a, b = r.Int64N(1<<62)-1<<61, r.Int64N(1<<30)-1<<29
		default:
			a, b = r.Int64N(2_000_000_000)-1_000_000_000, r.Int64N(2_000_000_000)-1_000_000_000
		}
		want := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
		want.Div(want, big.NewInt(1_000_000_000)) // Euclidean: floor for a positive divisor
		if !want.IsInt64() {
			continue
		}
		if got := mulDivFloor(a, b); got != want.Int64() {
			t.Fatalf("mulDivFloor(%d, %d) = %d, want %d", a, b, got, want.Int64())
		}
	}
}

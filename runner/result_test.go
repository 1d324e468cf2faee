package runner

import (
	"math"
	"testing"
)

func TestJainIndex(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int
		asked  []bool
		want   float64
	}{
		{"equal shares", []int{5, 5, 5, 5}, nil, 1},
		{"one takes all of four", []int{0, 9, 0, 0}, nil, 0.25},
		{"two of four share", []int{3, 3, 0, 0}, nil, 0.5},
		{"nobody got any", []int{0, 0}, nil, 0},
		{"no takers", nil, nil, 0},
		{"only askers count", []int{0, 4, 4}, []bool{false, true, true}, 1},
		{"an asker beyond the counts got nothing", []int{0, 4}, []bool{false, true, true}, 0.5},
		{"uneven", []int{1, 2, 3}, nil, 36.0 / (3 * 14)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := JainIndex(tc.counts, tc.asked); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("JainIndex(%v, %v) = %v, want %v", tc.counts, tc.asked, got, tc.want)
			}
		})
	}
}

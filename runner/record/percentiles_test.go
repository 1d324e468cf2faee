package record

import "testing"

func TestNearestRank(t *testing.T) {
	for _, c := range []struct {
		in   []int
		p    float64
		want int
	}{
		{[]int{7}, 0.5, 7},
		{[]int{7}, 0.99, 7},
		{[]int{1, 2}, 0.5, 1},
		{[]int{1, 2}, 0.51, 2},
		{[]int{1, 2, 3, 4}, 0.5, 2},
		{[]int{1, 2, 3, 4}, 0.75, 3},
		{[]int{1, 2, 3, 4}, 0.76, 4},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99, 10},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1, 10},
	} {
		if got := NearestRank(c.in, c.p); got != c.want {
			t.Errorf("NearestRank(%v, %g) = %d, want %d", c.in, c.p, got, c.want)
		}
	}
	p := PercentilesMS([]int64{4e6, 1e6, 3e6, 2e6})
	if p.P50 != 2 || p.P90 != 4 || p.Max != 4 || p.Mean != 2.5 || p.N != 4 {
		t.Errorf("PercentilesMS %+v", p)
	}
}

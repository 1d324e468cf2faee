package pool

import (
	"sync"
	"testing"
)

func TestRunsEveryJobOnceWithDistinctWorkers(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		var mu sync.Mutex
		busy := make(map[int]bool)
		ran := make([]int, 50)
		var ended []int
		Pool{Workers: workers}.Run(len(ran), func(w, i int) {
			mu.Lock()
			if busy[w] || w < 0 || w >= workers {
				t.Errorf("worker %d handed job %d while busy or out of range", w, i)
			}
			busy[w] = true
			mu.Unlock()
			ran[i]++
			mu.Lock()
			busy[w] = false
			mu.Unlock()
		}, func(i int) bool { ended = append(ended, i); return true })
		for i, n := range ran {
			if n != 1 {
				t.Errorf("workers %d: job %d ran %d times", workers, i, n)
			}
		}
		if len(ended) != len(ran) {
			t.Errorf("workers %d: done called %d times, want %d", workers, len(ended), len(ran))
		}
	}
}

func TestDoneFalseStartsNoMore(t *testing.T) {
	var mu sync.Mutex
	started := 0
	Pool{Workers: 2}.Run(100, func(_, i int) {
		mu.Lock()
		started++
		mu.Unlock()
	}, func(i int) bool { return i < 3 })
	// Jobs start in order; the first done(i) with i >= 3 stops the pool,
	// and at most two jobs are in flight then.
	if started < 4 || started > 6 {
		t.Fatalf("started %d jobs, want 4 to 6", started)
	}
}

func TestAloneRunsAlone(t *testing.T) {
	var mu sync.Mutex
	inflight, bad := 0, 0
	alone := func(i int) bool { return i%5 == 0 }
	Pool{Workers: 4, Alone: alone}.Run(40, func(_, i int) {
		mu.Lock()
		inflight++
		if alone(i) && inflight != 1 {
			bad++
		}
		mu.Unlock()
		mu.Lock()
		if inflight > 1 && alone(i) {
			bad++
		}
		inflight--
		mu.Unlock()
	}, nil)
	if bad > 0 {
		t.Fatalf("%d alone jobs had company", bad)
	}
}

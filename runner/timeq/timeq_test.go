package timeq

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestOrderAndTies(t *testing.T) {
	var q Queue[string]
	if _, ok := q.Next(); ok {
		t.Fatal("empty queue has a next time")
	}
	q.Push(5, "c")
	q.Push(1, "a")
	q.Push(5, "d") // same time as "c": after it
	q.Push(3, "b")
	var got []string
	for q.Len() > 0 {
		_, v := q.Pop()
		got = append(got, v)
	}
	if want := "abcd"; join(got) != want {
		t.Fatalf("got %q, want %q", join(got), want)
	}
}

func join(s []string) (out string) {
	for _, x := range s {
		out += x
	}
	return
}

// Against a stable sort of (time, push order) for random pushes and pops.
func TestMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q Queue[int]
	type pushed struct {
		t   int64
		idx int
	}
	var model []pushed
	next := 0
	for step := 0; step < 20000; step++ {
		if r.IntN(3) > 0 || q.Len() == 0 {
			tm := int64(r.IntN(50))
			q.Push(tm, next)
			model = append(model, pushed{tm, next})
			next++
			continue
		}
		sort.SliceStable(model, func(i, j int) bool { return model[i].t < model[j].t })
		tm, v := q.Pop()
		if tm != model[0].t || v != model[0].idx {
			t.Fatalf("step %d: popped (%d, %d), want (%d, %d)", step, tm, v, model[0].t, model[0].idx)
		}
		if nt, ok := q.Next(); ok && nt < tm {
			t.Fatalf("next %d before popped %d", nt, tm)
		}
		model = model[1:]
	}
}

func TestResetEmpties(t *testing.T) {
	var q Queue[string]
	q.Push(1, "old")
	q.Push(2, "older")
	q.Reset()
	if q.Len() != 0 {
		t.Fatalf("%d values after reset, want 0", q.Len())
	}
	q.Push(4, "a")
	q.Push(4, "b")
	if _, v := q.Pop(); v != "a" {
		t.Fatalf("first of a tie after reset: %q, want a", v)
	}
}

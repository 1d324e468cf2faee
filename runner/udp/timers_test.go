package udp

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"leaselab/algorithms"
)

// TestTimers checks the timer set against a Go map over random sets,
// replacements, cancellations and firings, for key sets that are
// sequential, clustered in one block, strided and random: the live set
// must match, and timers must fall due in (deadline, resource, kind)
// order.
func TestTimers(t *testing.T) {
	cases := []struct {
		name string
		key  func(r *rand.Rand, i int) algorithms.TimerKey
	}{
		{"sequential", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(i / 3), Kind: uint8(i % 3)}
		}},
		{"one block", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.IntN(timerBlock)), Kind: uint8(r.IntN(4))}
		}},
		{"strided", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.IntN(3000) * 1024), Kind: 1}
		}},
		{"random", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.Uint64() % 5000), Kind: uint8(r.IntN(256))}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			tm := newTimers()
			ref := map[algorithms.TimerKey]algorithms.Local{}
			var keys []algorithms.TimerKey
			now := algorithms.Local(0)
			for i := 0; i < 20000; i++ {
				switch op := r.IntN(20); {
				case op < 12:
					k := c.key(r, i)
					at := now + algorithms.Local(r.Int64N(1e6))
					tm.set(k, at)
					ref[k] = at
					keys = append(keys, k)
				case op < 18 && len(keys) > 0:
					k := keys[r.IntN(len(keys))]
					tm.cancel(k)
					delete(ref, k)
				default:
					now += algorithms.Local(r.Int64N(2e4))
					fireDue(t, tm, ref, now)
				}
				if tm.len() != len(ref) {
					t.Fatalf("op %d: len %d, want %d", i, tm.len(), len(ref))
				}
			}
			for _, k := range keys {
				want, wok := ref[k]
				e := tm.index.find(k, tm.ents)
				if (e >= 0) != wok || wok && tm.ents[e].at != want {
					t.Fatalf("key %v: entry %d, want %d %v", k, e, want, wok)
				}
			}
			fireDue(t, tm, ref, 1<<62)
			if tm.len() != 0 || tm.index.len() != 0 {
				t.Fatalf("after firing all: %d live, %d indexed", tm.len(), tm.index.len())
			}
			if _, ok := tm.next(); ok {
				t.Fatal("next on an empty set says a timer is pending")
			}
		})
	}
}

// fireDue fires every timer due at now and checks the order against ref,
// removing them from it.
func fireDue(t *testing.T, tm *timers, ref map[algorithms.TimerKey]algorithms.Local, now algorithms.Local) {
	t.Helper()
	type due struct {
		k  algorithms.TimerKey
		at algorithms.Local
	}
	var want []due
	for k, at := range ref {
		if at <= now {
			want = append(want, due{k, at})
		}
	}
	slices.SortFunc(want, func(a, b due) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.k.Resource, b.k.Resource), cmp.Compare(a.k.Kind, b.k.Kind))
	})
	for _, w := range want {
		if at, ok := tm.next(); !ok || at != w.at {
			t.Fatalf("next = %d %v, want %d", at, ok, w.at)
		}
		k, ok := tm.due(now)
		if !ok || k != w.k {
			t.Fatalf("due = %v %v, want %v", k, ok, w.k)
		}
		delete(ref, k)
	}
	if k, ok := tm.due(now); ok {
		t.Fatalf("due = %v after all due timers fired", k)
	}
}

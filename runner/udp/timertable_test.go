package udp

import (
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

// TestTimerTable checks the table against a Go map over random sets,
// updates and deletions, for key sets that are sequential, clustered in
// one block, strided and random.
func TestTimerTable(t *testing.T) {
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
			var tt timerTable
			ref := map[algorithms.TimerKey]algorithms.Local{}
			var keys []algorithms.TimerKey
			for i := 0; i < 20000; i++ {
				switch op := r.IntN(10); {
				case op < 6:
					k := c.key(r, i)
					at := algorithms.Local(r.Int64N(1e9))
					tt.set(k, at)
					ref[k] = at
					keys = append(keys, k)
				case len(keys) > 0:
					k := keys[r.IntN(len(keys))]
					tt.del(k)
					delete(ref, k)
				}
			}
			if tt.len() != len(ref) {
				t.Fatalf("len %d, want %d", tt.len(), len(ref))
			}
			for _, k := range keys {
				at, ok := tt.get(k)
				want, wok := ref[k]
				if ok != wok || at != want {
					t.Fatalf("get %v = %d %v, want %d %v", k, at, ok, want, wok)
				}
			}
			n := 0
			tt.each(func(k algorithms.TimerKey, at algorithms.Local) {
				if ref[k] != at {
					t.Fatalf("each %v = %d, want %d", k, at, ref[k])
				}
				n++
			})
			if n != len(ref) {
				t.Fatalf("each saw %d, want %d", n, len(ref))
			}
		})
	}
}

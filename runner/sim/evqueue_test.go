package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue gives events in (time, scheduling order) order, as a stable
// sort of everything pushed would, for pushes spread over many buckets,
// crowded into one, and made while popping (into the current bucket too).
func TestEvQueueOrder(t *testing.T) {
	for _, tc := range []struct {
		name         string
		from, spread int64 // pushes fall in [now+from, now+from+spread)
		pushes       int
	}{
		{"sparse", 0, 1 << 30, 2000},
		{"one bucket, many ties", 0, 64, 5000},
		{"a later bucket, many ties", 1 << bucketShift, 64, 5000},
		{"a few buckets", 0, 4 << bucketShift, 20000},
		{"small buckets", 0, 40 << bucketShift, 300},
		{"small buckets, ties", 1 << bucketShift, 8, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(tc.pushes)))
			var q evQueue
			type pushed struct {
				t  int64
				id int32
			}
			var want, got []pushed
			var now int64
			id := int32(0)
			push := func() {
				e := timedEvent{t: now + tc.from + r.Int64N(tc.spread), simEvent: simEvent{arg: id}}
				want = append(want, pushed{e.t, id})
				id++
				q.push(e)
			}
			for range tc.pushes {
				push()
			}
			for q.Len() > 0 {
				e := q.pop()
				if e.t < now {
					t.Fatalf("event at %d after one at %d", e.t, now)
				}
				now = e.t
				got = append(got, pushed{e.t, e.arg})
				if r.IntN(4) == 0 && id < int32(2*tc.pushes) {
					push()
				}
			}
			slices.SortStableFunc(want, func(a, b pushed) int {
				switch {
				case a.t < b.t:
					return -1
				case a.t > b.t:
					return 1
				}
				return 0
			})
			if !slices.Equal(got, want) {
				t.Fatalf("popped %d events out of order (pushed %d)", len(got), len(want))
			}
		})
	}
}

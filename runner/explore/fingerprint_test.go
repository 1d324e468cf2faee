package explore

import (
	"math/rand/v2"
	"testing"
)

// fingerprintWorlds collects the worlds along a few seeded random paths of
// c, each a frontier world (its own hosts, its node hashes filled), as the
// searches keep them.
func fingerprintWorlds(tb testing.TB, c Config, paths, steps int) (*config, []*world) {
	tb.Helper()
	cf, err := prepareAny(c)
	if err != nil {
		tb.Fatal(err)
	}
	x := cf.newExec()
	var out []*world
	var ms []move
	var sw world
	for i := range paths {
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		w, err := cf.root(x, rng.IntN(len(cf.roots)))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, w)
		for range steps {
			if ms = cf.moves(w, ms[:0]); len(ms) == 0 {
				break
			}
			sw.copyFrom(w)
			x.w = &sw
			if !x.apply(w, ms[rng.IntN(len(ms))]) {
				continue
			}
			if x.err != nil {
				tb.Fatal(x.err)
			}
			child := sw.clone()
			x.w = child
			x.fillNodeHashes()
			w = child
			out = append(out, w)
		}
	}
	return cf, out
}

func fingerprintConfig() Config {
	c := DefaultConfig()
	c.Algo = "paxoslease"
	c.Acceptors, c.Proposers = 3, 2
	c.Crashes, c.Drops, c.Dups, c.Pauses = 1, 1, 1, 1
	return c
}

// TestFingerprintStable: a world's fingerprint does not depend on whether
// its node hashes come from the parent or are computed, and worlds along
// a path that differ get different fingerprints (the encoding sees them).
func TestFingerprintStable(t *testing.T) {
	cf, ws := fingerprintWorlds(t, fingerprintConfig(), 8, 30)
	x := cf.newExec()
	distinct := map[fp]bool{}
	for _, w := range ws {
		x.w, x.parent, x.touched, x.cnhSet = w, nil, 0, 0
		full := x.fingerprint()
		x.parent = w
		if reused := x.fingerprint(); reused != full {
			t.Fatalf("fingerprint with the parent's node hashes %v, computed %v", reused, full)
		}
		distinct[full] = true
	}
	if len(distinct) < len(ws)/2 {
		t.Fatalf("%d worlds, only %d distinct fingerprints", len(ws), len(distinct))
	}
}

// BenchmarkFingerprint measures the explorer's hot path on worlds of a
// paxoslease search: "own" with the node hashes taken from the parent (the
// fingerprint's own encoding: disks, timers, the sorted messages, holds,
// budgets, pauses), "full" with every node's AppendState hashed too.
func BenchmarkFingerprint(b *testing.B) {
	cf, ws := fingerprintWorlds(b, fingerprintConfig(), 8, 30)
	x := cf.newExec()
	for _, tc := range []struct {
		name  string
		reuse bool
	}{{"own", true}, {"full", false}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink uint64
			for b.Loop() {
				for _, w := range ws {
					x.w, x.parent, x.touched, x.cnhSet = w, nil, 0, 0
					if tc.reuse {
						x.parent = w
					}
					sink ^= x.fingerprint().a
				}
			}
			_ = sink
		})
	}
}

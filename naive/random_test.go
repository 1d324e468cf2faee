package naive

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

// walk drives a cluster through a random interleaving drawn from seed:
// deliveries in any order, duplicates, losses, client requests, crashes and
// restarts, and timers fired in deadline order on one shared clock (no
// drift: the drift margin is tested by TestHoldSpan). After every step it
// checks the lease invariant on the nodes' own beliefs: at most one node
// holds the resource. It returns the number of acquisitions, and the first
// violation with the steps that led to it.
func walk(t *testing.T, seed uint64, o opts, steps int) (acquired int, violation string) {
	c := newCluster(t, o)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	restarts := make([]uint16, len(c.nodes))
	var log []string
	proposers := o.proposers
	for s := 0; s < steps; s++ {
		switch x := rng.IntN(100); {
		case x < 78 && len(c.flight) > 0:
			j := rng.IntN(len(c.flight))
			m := c.flight[j]
			if rng.IntN(5) != 0 { // else: duplicate, keep a copy in flight
				c.flight = append(c.flight[:j], c.flight[j+1:]...)
			}
			log = append(log, "deliver "+m.String())
			c.send(m)
		case x < 80 && len(c.flight) > 0:
			j := rng.IntN(len(c.flight))
			log = append(log, "drop "+c.flight[j].String())
			c.flight = append(c.flight[:j], c.flight[j+1:]...)
		case x < 87:
			p := rng.IntN(proposers)
			log = append(log, fmt.Sprintf("acquire n%d", p))
			c.acquire(p, res)
		case x < 90:
			p := rng.IntN(proposers)
			log = append(log, fmt.Sprintf("giveup n%d", p))
			c.step(p, algorithms.Input{Kind: algorithms.Relinquish, Resource: res})
		case x < 93:
			p := rng.IntN(proposers)
			log = append(log, fmt.Sprintf("extend n%d", p))
			c.step(p, algorithms.Input{Kind: algorithms.Extend, Resource: res})
		case x < 94:
			i := rng.IntN(len(c.nodes))
			restarts[i]++
			log = append(log, fmt.Sprintf("crash+restart n%d", i))
			c.restart(i, restarts[i])
		default:
			// Fire the earliest timer of any node, all clocks moving to it.
			node, at := -1, algorithms.Local(0)
			var key algorithms.TimerKey
			for i := range c.nodes {
				for k, d := range c.timers[i] {
					if node < 0 || d < at || d == at && (i < node || i == node && lessKey(k, key)) {
						node, at, key = i, d, k
					}
				}
			}
			if node < 0 {
				continue
			}
			for i := range c.clock {
				if at > c.clock[i] {
					c.clock[i] = at
				}
			}
			log = append(log, fmt.Sprintf("fire n%d %+v at %d", node, key, at))
			c.fire(node, key.Resource, key.Kind)
		}
		if h := c.holders(res); len(h) > 1 {
			from := len(log) - 60
			if from < 0 {
				from = 0
			}
			return acquired, fmt.Sprintf("seed %d step %d: holders %v\n%v", seed, s, h, log[from:])
		}
		for i := range c.events {
			acquired += len(c.evs(i, algorithms.Acquired))
			for _, e := range c.events[i] {
				log = append(log, fmt.Sprintf("  n%d %v b=%v owner=%d until=%d", i, e.Kind, e.Ballot, e.Owner, e.Until))
			}
		}
		c.clearEvents()
	}
	return acquired, ""
}

// lessKey orders timer keys so the walk never depends on map order.
func lessKey(a, b algorithms.TimerKey) bool {
	if a.Resource != b.Resource {
		return a.Resource < b.Resource
	}
	return a.Kind < b.Kind
}

// Random interleavings with loss, duplication, reordering and crashes never
// give two holders, for both variants.
func TestRandomInterleavingsSafe(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 50
	}
	for _, undo := range []bool{false, true} {
		total := 0
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			acq, v := walk(t, seed, opts{acceptors: 3, proposers: 4, undo: undo}, 400)
			if v != "" {
				t.Fatalf("undo=%v: two holders:\n%s", undo, v)
			}
			total += acq
		}
		// Not vacuous: leases were acquired and extended along the way.
		if total < seeds {
			t.Fatalf("undo=%v: only %d acquisitions in %d walks", undo, total, seeds)
		}
		t.Logf("undo=%v: %d acquisitions in %d walks, no two holders", undo, total, seeds)
	}
}

// The same walk finds two holders when a rule is ablated: the walk can
// fail, so its silence above means something.
func TestRandomInterleavingsCatchAblations(t *testing.T) {
	for _, ab := range []string{AblCountByMessage, AblRestartWait, AblOwnerOnlyRelease} {
		t.Run(ab, func(t *testing.T) {
			for seed := uint64(1); seed <= 2000; seed++ {
				if _, v := walk(t, seed, opts{acceptors: 3, proposers: 4, ablate: algorithms.Ablations{ab}}, 400); v != "" {
					t.Logf("found: %s", v)
					return
				}
			}
			t.Fatalf("no violation with %s ablated in 2000 walks", ab)
		})
	}
}

// Same seed, same run: the node draws its backoff only from Config.Rand.
func TestDeterministic(t *testing.T) {
	run := func() []algorithms.Event {
		p := testParams()
		p.Backoff = 200_000_000
		c := newCluster(t, opts{acceptors: 3, proposers: 3, params: p})
		for i := 0; i < 3; i++ {
			c.acquire(i, res)
		}
		for a := 0; a < 3; a++ {
			c.deliver(algorithms.Request, a, a)
		}
		c.flush()
		var all []algorithms.Event
		for i := 0; i < 3; i++ {
			c.fire(i, res, timerProposer)
			all = append(all, c.events[i]...)
		}
		return all
	}
	a, b := run(), run()
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) == 0 {
		t.Fatalf("two runs differ:\n%v\n%v", a, b)
	}
}

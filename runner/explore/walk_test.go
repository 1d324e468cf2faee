package explore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	"leaselab/runner/sim"
)

// walk takes random moves from a random initial state without branching
// and writes the path as a scenario that ends with what the explorer's
// world says at the end: the violations, or the messages in flight and
// every resource's holder. Replaying it checks that the explorer and the
// scenario interpreter agree, on the real algorithms, move by move.
func walk(t *testing.T, c Config, seed uint64, steps int) (string, bool) {
	t.Helper()
	cf, err := prepareAny(c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	x := cf.newExec()
	x.walk = true
	w, err := cf.root(x, rng.IntN(len(cf.roots)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	cf.header(&b, w)
	var ms []move
	for range steps {
		if w.bad {
			break
		}
		if ms = cf.moves(w, ms[:0]); len(ms) == 0 {
			break
		}
		m := ms[rng.IntN(len(ms))]
		fmt.Fprintf(&b, "%s\n", cf.describe(w, m))
		x.w = w
		x.apply(w, m)
		if x.err != nil {
			t.Fatal(x.err)
		}
		w.bad = w.overlaps() > 0
	}
	if w.bad {
		b.WriteString("advance 1ns\n")
		fmt.Fprintf(&b, "expect violations %d\n", w.overlaps())
		return b.String(), true
	}
	b.WriteString("expect violations 0\n")
	fmt.Fprintf(&b, "expect pending %d\n", len(w.pending))
	if c.Liveness {
		fmt.Fprintf(&b, "expect unanswered %d\n", len(w.asks))
	}
	for r := range cf.Resources {
		holder := "none"
		for _, h := range w.holds {
			if h.res == algorithms.ResourceID(r) {
				holder = h.owner.String()
			}
		}
		fmt.Fprintf(&b, "expect holder r%d %s\n", r, holder)
	}
	return b.String(), false
}

// TestWalksAgreeWithReplay: random paths over every algorithm and
// ablation, each replayed by sim.Replay, which must see the same
// pending messages, holders and violations.
func TestWalksAgreeWithReplay(t *testing.T) {
	found, slews, waits, downs, pauses, asked, unanswered := 0, 0, 0, 0, 0, 0, 0
	for _, name := range []string{"naive", "naive-undo", "paxoslease", "fatlease", "classicpaxos"} {
		a, err := algorithms.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		abls := []string{""}
		for _, ab := range a.Ablations {
			abls = append(abls, ab.Name)
		}
		for _, abl := range abls {
			c := DefaultConfig()
			c.Algo = name
			if abl != "" {
				c.Ablate = algorithms.Ablations{abl}
			}
			c.Inputs, c.Crashes, c.Drops, c.Dups, c.Slews, c.Pauses = 6, 2, 2, 2, 3, 2
			c.Clocks, c.ClockLevels = "extremes", 3
			c.TimeStep = 70 * time.Millisecond                           // deliveries between deadlines
			c.Params.ResponseTimeout = 3 * c.Params.ResponseTimeout / 10 // retries happen too
			c.Params.MaxRounds = 3
			for seed := range uint64(30) {
				// Ten more walks track the clients' requests too, and
				// end by comparing them with the interpreter's; shorter,
				// so that some end with a round under way.
				steps := 80
				if c.Liveness = seed >= 20; c.Liveness {
					steps = 10 + 4*int(seed-20)
				}
				sc, _ := walk(t, c, seed, steps)
				asked += strings.Count(sc, "\nexpect unanswered ")
				if c.Liveness && !strings.Contains(sc, "\nexpect unanswered 0\n") {
					unanswered++
				}
				_, path, _ := strings.Cut(sc, "\nstart\n")
				slews += strings.Count(path, "\nclock n")
				waits += strings.Count(path, "before the next deadline")
				downs += strings.Count(sc, "(receiver down)")
				pauses += strings.Count(path, "\npause n")
				var out strings.Builder
				rr, err := sim.Replay(strings.NewReader(sc), &out)
				if err != nil {
					t.Fatalf("%s %s seed %d: %v\n%s", name, abl, seed, err, sc)
				}
				if len(rr.Failed) > 0 {
					t.Fatalf("%s %s seed %d: %v\nscenario:\n%s\ntrace:\n%s", name, abl, seed, rr.Failed, sc, out.String())
				}
				if len(rr.Violations) > 0 {
					found++
				}
			}
		}
	}
	t.Logf("%d walks ended in a violation; %d clock rate changes, %d time steps, %d deliveries to a node that was down, %d pauses; %d compared the requests pending, %d with some unanswered", found, slews, waits, downs, pauses, asked, unanswered)
	if slews == 0 || waits == 0 || downs == 0 || pauses == 0 || asked == 0 || unanswered == 0 {
		t.Fatal("the walks took no clock rate change, time step, delivery to a node that was down or pause, or never compared a request pending: they check nothing of those")
	}
}

// TestFindsAblations: the explorer finds, by itself, what some safety
// rules of the real algorithms buy, and every counterexample replays to
// the same violation (the README lists all ablations with their budgets).
func TestFindsAblations(t *testing.T) {
	for _, tc := range []struct {
		algo, ablate         string
		acceptors, proposers int
		inputs               int
	}{
		{"naive", "restart-wait", 3, 2, 2},
		{"naive-undo", "owner-only-release", 1, 2, 4},
		{"paxoslease", "owner-only-release", 1, 2, 4},
	} {
		t.Run(tc.algo+"/"+tc.ablate, func(t *testing.T) {
			c := DefaultConfig()
			c.Algo, c.Ablate = tc.algo, algorithms.Ablations{tc.ablate}
			c.Acceptors, c.Proposers, c.Inputs = tc.acceptors, tc.proposers, tc.inputs
			res, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if res.Violations == 0 {
				t.Fatalf("nothing found: %+v", res)
			}
			sameViolation(t, res, replay(t, res.Scenario))
			// With the rule on, the same bounded space has no violation.
			c.Ablate = nil
			c.MaxStates = 2 * res.States
			clean, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if clean.Violations != 0 {
				t.Fatalf("a violation with every rule on:\n%s", clean.Scenario)
			}
		})
	}
}

// TestExhaustsPaxosLeaseSmall: every rule on, one acquisition and one
// crash anywhere: the space is searched completely, without a violation.
func TestExhaustsPaxosLeaseSmall(t *testing.T) {
	c := DefaultConfig()
	c.Inputs = 1
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.Violations != 0 {
		t.Fatalf("%+v", res)
	}
	t.Logf("%d states, depth %d", res.States, res.MaxDepth)
}

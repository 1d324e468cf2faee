package verify

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/algorithms/example"
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	_ "leaselab/paxoslease/fairq"
	"leaselab/runner/explore"
	"leaselab/runner/sim"
)

// The matrix keeps what the package doc promises it covers, for every
// algorithm: at least 20 configurations, each one the algorithm accepts,
// and every dimension the bugs so far needed.
func TestMatrixCoverage(t *testing.T) {
	for _, algo := range algorithms.Names() {
		t.Run(algo, func(t *testing.T) {
			es, err := Matrix(algo)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) < 20 {
				t.Errorf("%d configurations, want at least 20", len(es))
			}
			a, _ := algorithms.Lookup(algo)
			seen := map[string]bool{}
			cover := map[string]bool{}
			for _, e := range es {
				if seen[e.ID] {
					t.Errorf("duplicate ID %s", e.ID)
				}
				seen[e.ID] = true
				if e.Kind == KindCheck {
					cs, err := checkSpec(algo, nil, e.Args, 1, 1)
					if err != nil {
						t.Errorf("%s %s: %v", e.ID, e.Flags(), err)
						continue
					}
					if err := cs.Base.Validate(); err != nil {
						t.Errorf("%s %s: %v", e.ID, e.Flags(), err)
					}
					cover["check"] = true
					continue
				}
				cf := explore.DefaultConfig()
				cf.Algo = algo
				if err := applyExplore(&cf, e.Args); err != nil {
					t.Errorf("%s %s: %v", e.ID, e.Flags(), err)
					continue
				}
				// Depth 1 (one walk of one move for random walks, which
				// would otherwise walk until a cap): the explorer validates
				// the configuration and builds its initial states.
				cf.MaxDepth, cf.Workers, cf.Walks = 1, 1, 1
				if _, err := explore.Explore(cf); err != nil {
					t.Errorf("%s %s: %v", e.ID, e.Flags(), err)
				}
				// A pending bound below one round to every acceptor stops
				// every round before its second phase: the search never
				// reaches a lease, and its verdict is vacuous (five
				// acceptors under the bound of 4 did that).
				if round := explore.DefaultMaxPending(cf.Acceptors, cf.Proposers); cf.MaxPending > 0 && cf.MaxPending < round {
					t.Errorf("%s %s: --max-pending %d, below one round to %d acceptors (%d)", e.ID, e.Flags(), cf.MaxPending, cf.Acceptors, round)
				}
				// Two holders at once need two proposers (Vacuous asks a
				// search to see leases of two nodes).
				if cf.Proposers < 2 {
					t.Errorf("%s %s: %d proposer", e.ID, e.Flags(), cf.Proposers)
				}
				cover["random walks"] = cover["random walks"] || cf.Strategy == "random"
				cover["acceptors="+strconv.Itoa(cf.Acceptors)] = true
				cover["inputs="+strconv.Itoa(cf.Inputs)] = true
				cover["crashes="+strconv.Itoa(cf.Crashes)] = true
				cover["clocks="+cf.Clocks] = true
				cover["proposer-only"] = cover["proposer-only"] || cf.Proposers > cf.Acceptors
				cover["unbounded"] = cover["unbounded"] || cf.MaxPending == 0
				cover["bounded"] = cover["bounded"] || cf.MaxPending > 0
				cover["dups"] = cover["dups"] || cf.Dups > 0
				cover["resources"] = cover["resources"] || cf.Resources > 1
				cover["extend"] = cover["extend"] || len(cf.InputKinds) == 0 || slices.Contains(cf.InputKinds, algorithms.Extend)
				cover["timeout above quarantine"] = cover["timeout above quarantine"] || cf.Params.ResponseTimeout > cf.Params.MaxLease
				cover["fsync latency"] = cover["fsync latency"] || cf.FsyncLatency > 0
				// A restart wait of M(1+ρ)(1-ρ) falls short of a lease of T
				// on drifting clocks (E23).
				cover["wait tight against the lease"] = cover["wait tight against the lease"] ||
					cf.Clocks == "drift" && float64(cf.Params.MaxLease)*(1-cf.ClockDrift*cf.ClockDrift) < float64(cf.Params.LeaseSpan)
			}
			want := []string{"check", "inputs=2", "inputs=3", "inputs=4", "inputs=5", "crashes=0", "crashes=1", "crashes=2",
				"clocks=exact", "clocks=drift", "clocks=skew", "clocks=extremes", "proposer-only", "unbounded", "bounded",
				"dups", "resources", "extend", "timeout above quarantine", "wait tight against the lease"}
			if a.Durable {
				want = append(want, "fsync latency")
			}
			if a.ValidateConfig(algorithms.DefaultParams(), algorithms.NewCluster(3, 3), nil) == nil {
				want = append(want, "acceptors=1", "acceptors=2", "acceptors=3", "acceptors=5", "random walks")
			}
			for _, w := range want {
				if !cover[w] {
					t.Errorf("no configuration covers %s", w)
				}
			}
		})
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Algo: "nosuch"},
		{Algo: "paxoslease", Ablate: algorithms.Ablations{"nope"}},
		{Algo: "paxoslease", Only: []string{"E999"}},
		{Algo: "paxoslease", Budget: -time.Second},
		{Algo: "paxoslease", Workers: -1},
	} {
		if _, err := Run(c); err == nil || !strings.Contains(err.Error(), ErrBadConfig.Error()) {
			t.Errorf("%+v: got %v, want a bad-config error", c, err)
		}
	}
}

// A short battery with every rule on runs its whole matrix (each
// configuration capped by its share of a few seconds) and finds nothing.
func TestRulesOnShort(t *testing.T) {
	r, err := Run(Config{Algo: "paxoslease", Budget: 6 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations != 0 || r.FoundBy != "" {
		t.Fatalf("every rule on: %d violations, found by %s (%s)", r.Violations, r.FoundBy, r.FoundByCommand)
	}
	if r.Ran < 20 {
		t.Errorf("%d configurations ran, want at least 20", r.Ran)
	}
	// A battery in which no lease is handed out passes every safety check
	// (TestMuteAlgorithmIsVacuous). At 6 s a configuration gets about a
	// fifth of a second, so on a loaded machine some see no lease (6 of 30
	// with three busy loops beside the test on 2 cores; none idle), but
	// most must.
	if n, first := r.Vacuous(); 3*n > r.Ran {
		t.Errorf("%d of %d configurations saw no lease (or, a search, leases of one node only); first %s: %d leases, %d holders", n, r.Ran, first.ID, first.Leases, first.Holders)
	}
	for _, c := range r.Configurations {
		if c.Command == "" && c.Stopped != StopBudget {
			t.Errorf("%s ran without a command: %+v", c.ID, c)
		}
	}
}

// ablationTable is the committed table (see TestAblationTable).
const ablationTable = "ablations.md"

var allFinders = flag.Bool("finders", false, "TestAblationFinders: run every finder, the campaigns and the slow searches (over "+quickFinder.String()+" in the table) too (92 s on 2 cores with the table of 2026-11-26)")

// quickFinder: by default only the searches whose configuration took at
// most this in the committed table run (a few seconds in all, for CI);
// the others (campaigns, which shrink what they find, and the
// depth-first searches, minutes each) only with -finders; -short runs
// none.
const quickFinder = 500 * time.Millisecond

// finder is a row of the committed table.
type finder struct {
	id      string
	seconds float64 // the configuration's own seconds
}

// finders reads the found-by column of the committed table:
// "algo/ablation" to configuration ID.
func finders(t *testing.T) map[string]finder {
	t.Helper()
	b, err := os.ReadFile(ablationTable)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]finder{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 10 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`") {
			continue
		}
		algo := strings.TrimSpace(cells[1])
		abl := strings.Trim(strings.TrimSpace(cells[2]), "`")
		sec, _ := strconv.ParseFloat(strings.TrimSpace(cells[8]), 64)
		m[algo+"/"+abl] = finder{id: strings.TrimSpace(cells[3]), seconds: sec}
	}
	return m
}

// Every safety ablation of every algorithm has a row in the committed
// table, and the configuration recorded as its finder finds it again:
// a violation whose counterexample replays to one.
func TestAblationFinders(t *testing.T) {
	found := finders(t)
	for _, algo := range algorithms.Names() {
		abls, err := SafetyAblations(algo)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range abls {
			ab := algorithms.Ablations{x}
			if y := Companions[algo+"/"+x]; y != "" {
				// Not found alone (the table says so); found with y.
				if f, ok := found[algo+"/"+x]; !ok || f.id != "**not found**" {
					t.Errorf("%s/%s alone: the table says %q, want a row saying it is not found", algo, x, f.id)
				}
				ab = append(ab, y)
			}
			name := algo + "/" + strings.Join(ab, ",")
			t.Run(name, func(t *testing.T) {
				f, ok := found[name]
				id := f.id
				if !ok || id == "" || strings.HasPrefix(id, "**") {
					t.Fatalf("%s has no finder in %s: regenerate it (doc.go says how)", name, ablationTable)
				}
				switch {
				case testing.Short():
					t.Skip("-short: the table has a finder; not run")
				case (f.seconds > quickFinder.Seconds() || !strings.HasPrefix(id, "E")) && !*allFinders:
					t.Skipf("%s (%.1f s in the table): run with -finders", id, f.seconds)
				}
				budget := time.Minute
				if f.seconds > 5 {
					budget = 10 * time.Minute
				}
				r, err := Run(Config{Algo: algo, Ablate: ab, Only: []string{id}, Budget: budget, Workers: 2,
					Scenario: true, ShrinkTime: 20 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if r.Violations == 0 || r.FoundBy != id {
					t.Fatalf("%s no longer finds %s: %+v", id, x, r.Configurations)
				}
				if r.Configurations[0].Kind == KindCheck && r.ViolatingSpec == nil {
					t.Fatalf("a campaign's violation without its spec")
				}
				var out strings.Builder
				rr, err := sim.Replay(strings.NewReader(r.Scenario), &out)
				if err != nil {
					t.Fatalf("replay: %v\n%s", err, r.Scenario)
				}
				if len(rr.Violations) == 0 {
					t.Fatalf("the counterexample replays without a violation:\n%s", r.Scenario)
				}
			})
		}
	}
}

// A battery stopped after its first configuration (Config.Stop, verify's
// Ctrl-C) starts no other: it says Interrupted, the rest say so, and a
// merge refuses it as a part.
func TestStopEndsTheBattery(t *testing.T) {
	stop := make(chan struct{})
	c := Config{Algo: "central", Budget: time.Minute, Only: []string{"E1", "E2", "E3"}, Stop: stop}
	c.Progress = func(e Event) {
		if e.Done && e.Index == 0 {
			close(stop)
		}
	}
	res, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cr := range res.Configurations {
		got = append(got, cr.Stopped)
	}
	if !res.Interrupted || res.Ran != 1 || got[1] != StopInterrupted || got[2] != StopInterrupted {
		t.Fatalf("interrupted %v, ran %d, stopped %v", res.Interrupted, res.Ran, got)
	}
	es, err := Select(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPart(SpecOf(c, es), 0, 3, res); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("CheckPart of an interrupted part: %v", err)
	}
}

package verify

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/faults"
	"leaselab/runner/internal/planted"
	"leaselab/runner/sim"
)

// tokenIDs are the IDs of algo's campaigns with a fenced store: the
// fixed mixes (quick re-acquisition, the token campaign, the quick
// hand-off with extensions) and the token swarm (a swarm restricted to
// the kinds the algorithm's tokens survive), which judge every seed, and
// the whole swarm.
func tokenIDs(t *testing.T, algo string) (fixed, swarm []string) {
	t.Helper()
	es, err := Matrix(algo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		switch {
		case e.Kind != KindCheck || !strings.Contains(e.Flags(), "--store fenced"):
		case strings.Contains(e.Flags(), "--faults swarm "):
			swarm = append(swarm, e.ID)
		default:
			fixed = append(fixed, e.ID)
		}
	}
	if len(fixed) != 4 || len(swarm) != 1 {
		t.Fatalf("%s: campaigns with a fenced store that judge every seed %v, whole swarms %v: want four and one", algo, fixed, swarm)
	}
	return fixed, swarm
}

// The battery judges fencing tokens: its token campaign, its quick
// re-acquisition and quick hand-off campaigns, its token swarm and its
// swarm (in the seeds whose draws allow it) each fail a planted PaxosLease
// whose nodes give a lease their previous lease's token (the lease
// invariant holds, so no other configuration can), with the command that
// re-runs the seed, and pass PaxosLease, judging its seeds (a token
// campaign that judged none would be vacuous; a swarm judges some).
func TestBatteryJudgesTokens(t *testing.T) {
	fixed, swarm := tokenIDs(t, planted.StaleToken)
	for _, id := range append(fixed, swarm...) {
		ids := []string{id}
		r, err := Run(Config{Algo: planted.StaleToken, Only: ids, Budget: 2 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Configurations[0]
		if r.Violations != 0 || r.TokenFailures == 0 || r.TokensBy != ids[0] || r.TokensSpec == nil || c.Stopped != StopTokens {
			t.Fatalf("%s: %d violations, %d token failures by %q (stopped %s): want 0, some, by %s", ids[0], r.Violations, r.TokenFailures, r.TokensBy, c.Stopped, ids[0])
		}
	}
	fixed, swarm = tokenIDs(t, "paxoslease")
	ok, err := Run(Config{Algo: "paxoslease", Only: append(fixed, swarm...), Budget: 4 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ok.TokenFailures != 0 || ok.Violations != 0 {
		t.Fatalf("paxoslease: %d token failures, %d violations", ok.TokenFailures, ok.Violations)
	}
	byID := map[string]ConfigResult{}
	for _, c := range ok.Configurations {
		byID[c.ID] = c
	}
	for _, id := range fixed {
		if c := byID[id]; !c.Tokens || c.TokensJudged == 0 || c.TokensJudged != c.Seeds {
			t.Fatalf("%s: tokens %v, %d of %d seeds judged: want every one", id, c.Tokens, c.TokensJudged, c.Seeds)
		}
	}
	sw := byID[swarm[0]]
	if sw.ID != swarm[0] || sw.Tokens || sw.TokensJudged == 0 || sw.TokensJudged == sw.Seeds {
		t.Fatalf("%s: tokens %v, %d of %d seeds judged: want some, not all (seeds that drew crashes are not)", sw.ID, sw.Tokens, sw.TokensJudged, sw.Seeds)
	}
	if n, _ := ok.Vacuous(); n != 0 {
		t.Fatalf("%d vacuous configurations", n)
	}
	if c := byID[fixed[1]]; !slices.Contains(strings.Fields(c.Command), "fenced") {
		t.Fatalf("command %q does not name the store", c.Command)
	}
}

// The battery's token searches (explore --tokens) find the same planted
// PaxosLease with a counterexample on which replay exits 1, each of
// those on one acceptor on its own (the three-acceptor one finds it at
// depth 23, after about 3 million states: too long for a test), and
// pass PaxosLease. They are in the matrices of the algorithms whose
// tokens a search can judge, and of no other.
func TestBatteryTokenSearches(t *testing.T) {
	searches := func(algo string, oneAcceptor bool) []string {
		es, err := Matrix(algo)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range es {
			if e.Kind == KindExplore && strings.Contains(e.Flags(), "--tokens=true") && (!oneAcceptor || strings.Contains(e.Flags(), "--acceptors 1 ")) {
				ids = append(ids, e.ID)
			}
		}
		return ids
	}
	for algo, want := range map[string]int{"paxoslease": 6, "fatlease": 6, "classicpaxos": 7, "naive": 0, "naive-undo": 0, "central": 7, "fairq": 3} {
		if got := len(searches(algo, false)); got != want {
			t.Errorf("%s: %d token searches, want %d", algo, got, want)
		}
	}
	ids := searches(planted.StaleToken, true)
	for _, id := range ids {
		r, err := Run(Config{Algo: planted.StaleToken, Only: []string{id}, Budget: 3 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		c := r.Configurations[0]
		if r.Violations != 0 || r.TokenFailures == 0 || r.TokensBy != id || c.Stopped != StopTokens ||
			!strings.HasPrefix(r.TokensRun, "leaselab explore") || r.TokensScenario == "" {
			t.Fatalf("%s: %d violations, %d token failures by %q (stopped %s, run %q)", id, r.Violations, r.TokenFailures, r.TokensBy, c.Stopped, r.TokensRun)
		}
		rr, err := sim.Replay(strings.NewReader(r.TokensScenario), io.Discard)
		if err != nil || len(rr.Violations) != 0 || len(rr.Failed) != 1 {
			t.Fatalf("%s: the counterexample replays with %v, %d violations, failed %q, want one failed expectation:\n%s", id, err, len(rr.Violations), rr.Failed, r.TokensScenario)
		}
	}
	// PaxosLease, and fairq in its lockstep searches (--sync), the only
	// ones that can judge its tokens.
	for _, algo := range []string{"paxoslease", "fairq"} {
		ok, err := Run(Config{Algo: algo, Only: searches(algo, false), Budget: 6 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if ok.TokenFailures != 0 || ok.Violations != 0 {
			t.Fatalf("%s: %d token failures, %d violations", algo, ok.TokenFailures, ok.Violations)
		}
		if n, _ := ok.Vacuous(); n != 0 {
			t.Fatalf("%s: %d vacuous configurations", algo, n)
		}
	}
}

// Every campaign in every algorithm's matrix that writes to a fenced
// store and is meant to judge every seed (a fixed mix, or the token
// swarm) runs only kinds that cause none of the algorithm's token
// conditions; a fixed mix with such a kind runs without a store, and the
// same campaign without that kind runs fenced at the end.
func TestFencedCampaignsJudgeEverySeed(t *testing.T) {
	for _, algo := range []string{"naive", "naive-undo", "paxoslease", "fatlease", "classicpaxos", "central", "fairq"} {
		a, err := algorithms.Lookup(algo)
		if err != nil {
			t.Fatal(err)
		}
		es, err := Matrix(algo)
		if err != nil {
			t.Fatal(err)
		}
		quick := 0
		for _, e := range es {
			if e.Kind != KindCheck {
				continue
			}
			f := e.Flags()
			if strings.Contains(f, "--pause 1ms --hold 10ms") && strings.Contains(f, "--store fenced") {
				quick++
			}
			if !strings.Contains(f, "--store fenced") || strings.Contains(f, "--faults swarm ") {
				continue
			}
			kv, _ := pairs(e.Args)
			for _, p := range kv {
				if p[0] != "faults" {
					continue
				}
				for _, k := range strings.Split(p[1], ",") {
					if k == "swarm" {
						continue
					}
					fk, err := faults.LookupKind(k)
					if err != nil {
						t.Fatalf("%s %s: %v", algo, e.ID, err)
					}
					if fk.Causes&a.TokenBreaks != 0 {
						t.Errorf("%s %s (%s): %s causes %s, which %s names", algo, e.ID, f, k, fk.Causes&a.TokenBreaks, algo)
					}
				}
			}
		}
		if quick != 1 {
			t.Errorf("%s: %d fenced quick re-acquisition campaigns, want 1", algo, quick)
		}
	}
}

// The quick hand-off campaign (the battery's last) finds central with its
// token read off the client's clock (planted.ClientToken) on the default
// network, and so does the first token search, which now judges
// central; central itself passes that campaign with every seed judged.
func TestQuickHandoffFindsClientToken(t *testing.T) {
	es, err := Matrix(planted.ClientToken)
	if err != nil {
		t.Fatal(err)
	}
	last := es[len(es)-1]
	if last.Kind != KindCheck || !strings.Contains(last.Flags(), "--hold 1ms") || !strings.Contains(last.Flags(), "--store fenced") {
		t.Fatalf("the last entry is %s %s, want the quick hand-off", last.ID, last.Flags())
	}
	first := ""
	for _, e := range es {
		if e.Kind == KindExplore && strings.Contains(e.Flags(), "--tokens=true") {
			first = e.ID
			break
		}
	}
	for _, id := range []string{last.ID, first} {
		r, err := Run(Config{Algo: planted.ClientToken, Only: []string{id}, Budget: 5 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Violations != 0 || r.TokenFailures == 0 || r.TokensBy != id {
			t.Fatalf("%s: %d violations, %d token failures by %q: want 0, some, by %s", id, r.Violations, r.TokenFailures, r.TokensBy, id)
		}
	}
	ok, err := Run(Config{Algo: "central", Only: []string{last.ID}, Budget: 3 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := ok.Configurations[0]
	if ok.TokenFailures != 0 || ok.Violations != 0 || !c.Tokens || c.Seeds == 0 || c.TokensJudged != c.Seeds || c.Leases == 0 {
		t.Fatalf("central %s: %d token failures, %d violations, %d of %d seeds judged, %d leases", last.ID, ok.TokenFailures, ok.Violations, c.TokensJudged, c.Seeds, c.Leases)
	}
}

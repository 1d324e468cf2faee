package verify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/runner/internal/planted"
)

// tokenIDs are the IDs of algo's campaigns with a fenced store.
func tokenIDs(t *testing.T, algo string) []string {
	t.Helper()
	es, err := Matrix(algo)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range es {
		if e.Kind == KindCheck && strings.Contains(e.Flags(), "--store fenced") {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("%s: campaigns with a fenced store %v, want one", algo, ids)
	}
	return ids
}

// The battery judges fencing tokens: its token campaign fails a planted
// PaxosLease whose nodes give a lease their previous lease's token (the
// lease invariant holds, so no other configuration can), with the
// command that re-runs the seed, and passes PaxosLease, judging its
// seeds (a campaign that judged none would be vacuous).
func TestBatteryJudgesTokens(t *testing.T) {
	ids := tokenIDs(t, planted.StaleToken)
	r, err := Run(Config{Algo: planted.StaleToken, Only: ids, Budget: 2 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Configurations[0]
	if r.Violations != 0 || r.TokenFailures == 0 || r.TokensBy != ids[0] || r.TokensSpec == nil || c.Stopped != StopTokens || !c.Tokens {
		t.Fatalf("%s: %d violations, %d token failures by %q (stopped %s): want 0, some, by %s", ids[0], r.Violations, r.TokenFailures, r.TokensBy, c.Stopped, ids[0])
	}
	ok, err := Run(Config{Algo: "paxoslease", Only: tokenIDs(t, "paxoslease"), Budget: 2 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	c = ok.Configurations[0]
	if ok.TokenFailures != 0 || ok.Violations != 0 || c.TokensJudged == 0 || c.TokensJudged != c.Seeds {
		t.Fatalf("paxoslease: %d token failures, %d violations, %d of %d seeds judged", ok.TokenFailures, ok.Violations, c.TokensJudged, c.Seeds)
	}
	if n, _ := ok.Vacuous(); n != 0 {
		t.Fatalf("%d vacuous configurations", n)
	}
	if !slices.Contains(strings.Fields(c.Command), "fenced") {
		t.Fatalf("command %q does not name the store", c.Command)
	}
}

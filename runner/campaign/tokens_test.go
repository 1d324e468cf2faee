package campaign

import (
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/internal/planted"
)

// tokenCampaign is a campaign of algo under the fault kinds kinds with a
// holder writing to a fenced store every 50 ms.
func tokenCampaign(algo, kinds string, seeds int) CheckSpec {
	cs := liveCampaign(algo, "all", 1, seeds)
	cs.Faults = strings.Split(kinds, ",")
	cs.Base.Writes, cs.Base.Store = 50*time.Millisecond, "fenced"
	return cs
}

// A seed's tokens are judged only with a fenced store, and only where no
// fault on in it causes a condition its algorithm names in TokenBreaks
// or breaks what every algorithm assumes.
func TestTokensJudged(t *testing.T) {
	for _, c := range []struct {
		algo   string
		set    func(s *runner.Spec)
		judged bool
	}{
		{"paxoslease", func(s *runner.Spec) {}, true},
		{"paxoslease", func(s *runner.Spec) { s.Store = "plain" }, false},
		{"paxoslease", func(s *runner.Spec) { s.Writes = 0 }, false},
		{"paxoslease", func(s *runner.Spec) { s.Net.Loss = 0.05; s.Faults.PauseRate = 1 }, true},
		{"paxoslease", func(s *runner.Spec) { s.Faults.CrashRate = 1 }, false},      // restart
		{"classicpaxos", func(s *runner.Spec) { s.Faults.CrashRate = 1 }, true},     // durable: no break named
		{"classicpaxos", func(s *runner.Spec) { s.Clocks.Jumps = 1 }, false},        // unassumed
		{"naive", func(s *runner.Spec) { s.Clocks.Skew = time.Millisecond }, false}, // clocks
		{"naive", func(s *runner.Spec) { s.Net.Stale = 1 }, false},                  // late
		{"naive-undo", func(s *runner.Spec) {
			s.Net.RTT, s.Params.ResponseTimeout = 800*time.Millisecond, 2*time.Second
		}, false}, // delay (a slow network)
		{"naive-undo", func(s *runner.Spec) {}, true}, // the default network
		{"central", func(s *runner.Spec) {
			s.Acceptors, s.Net.RTT, s.Params.ResponseTimeout, s.Faults.CrashRate = 1, 800*time.Millisecond, 2*time.Second, 1
		}, true}, // its tokens are its server's: no condition named
		{"paxoslease", func(s *runner.Spec) {
			s.Net.RTT, s.Net.Jitter, s.Params.ResponseTimeout = 800*time.Millisecond, 300*time.Millisecond, 2*time.Second
		}, true},
		{"naive", func(s *runner.Spec) { s.Faults.CrashRate = 1; s.Faults.PauseRate = 1 }, true}, // neither
		{"fairq", func(s *runner.Spec) { s.Faults.PauseRate = 1 }, false},                        // lapse
		{"fairq", func(s *runner.Spec) { s.Net.Loss = 0.05 }, false},                             // lapse
		{"fairq", func(s *runner.Spec) { s.Net.Dup = 0.05 }, true},
	} {
		s := tokenCampaign(c.algo, "dup", 1).Base
		c.set(&s)
		p, err := runner.Resolve(s)
		if err != nil {
			t.Fatalf("%s: %v", c.algo, err)
		}
		if got := TokensJudged(p); got != c.judged {
			causes, assumed := faults.TokenCauses(&s)
			t.Errorf("%s, causes %s (assumed %v) against %s: judged %v, want %v", c.algo, causes, assumed, p.Algo.TokenBreaks, got, c.judged)
		}
	}
}

// Every algorithm's tokens grow under the faults its TokenBreaks leave
// (the battery's token campaign, faults.TokenKinds), every seed judged;
// a planted token that did not grow fails the campaign, while its lease
// invariant holds; and under a fault an algorithm names, nothing is
// judged (PaxosLease's tokens break when its acceptors restart: the
// store rejects current writes, and the campaign passes).
func TestTokenCampaigns(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for _, algo := range algorithms.Names() {
		if strings.HasPrefix(algo, "test-") {
			continue
		}
		t.Run(algo, func(t *testing.T) {
			a, _ := algorithms.Lookup(algo)
			kinds := faults.TokenKinds(a.TokenBreaks)
			res, err := Check(tokenCampaign(algo, strings.Join(kinds, ","), seeds), runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.TokensJudged != seeds || res.TokenFailures != 0 || res.Violations != 0 || res.Writes == 0 {
				t.Fatalf("under %v: %d of %d seeds judged, %d token failures in seeds %v, %d violations, %d writes",
					kinds, res.TokensJudged, seeds, res.TokenFailures, res.TokenFailureSeeds, res.Violations, res.Writes)
			}
		})
	}
	t.Run(planted.StaleToken, func(t *testing.T) {
		res, err := Check(tokenCampaign(planted.StaleToken, "dup", seeds), runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations != 0 || res.TokenFailures == 0 || len(res.TokenFailureSpecs) == 0 || res.TokenFailureSpecs[0].Seed != res.TokenFailureSeeds[0] {
			t.Fatalf("%d violations, %d token failures in seeds %v: want 0 violations and failures with their specs", res.Violations, res.TokenFailures, res.TokenFailureSeeds)
		}
	})
	t.Run("paxoslease/crash", func(t *testing.T) {
		res, err := Check(tokenCampaign("paxoslease", "crash", 60), runner.Options{}) // 0.03 s; 15 seeds broke no token
		if err != nil {
			t.Fatal(err)
		}
		if res.LiveRejects == 0 || res.TokensJudged != 0 || res.TokenFailures != 0 {
			t.Fatalf("%d live rejects, %d seeds judged, %d token failures: want restarts to break the tokens, unjudged", res.LiveRejects, res.TokensJudged, res.TokenFailures)
		}
	})
}

// The battery's token campaign for each algorithm is the fixed mix of
// every kind its TokenBreaks leave, pauses included and clock jumps never.
func TestTokenKinds(t *testing.T) {
	for _, c := range []struct {
		breaks algorithms.TokenBreaks
		out    []string // kinds that must be left out
	}{
		{0, []string{"clockjump"}},
		{algorithms.BreaksOnRestart, []string{"crash", "clockjump"}},
		{algorithms.BreaksOnClocks | algorithms.BreaksOnLate | algorithms.BreaksOnDelay, []string{"reorder", "drift", "freeclock", "stale", "clockjump"}},
		{algorithms.BreaksOnRestart | algorithms.BreaksOnLapse, []string{"loss", "partition", "crash", "stale", "pause", "clockjump"}},
	} {
		got := faults.TokenKinds(c.breaks)
		for _, k := range FaultKinds {
			if k == "all" || k == "swarm" {
				continue
			}
			if slices.Contains(got, k) == slices.Contains(c.out, k) {
				t.Errorf("%s: kinds %v: %s in %v", c.breaks, got, k, !slices.Contains(c.out, k))
			}
		}
	}
}

// A judged seed's token failures are its store's rejections of a current
// lease, its stale writes and its ties (another node's token written
// again); an unjudged seed's are counted as meters only.
func TestTokenFailuresCount(t *testing.T) {
	for _, tc := range []struct {
		live, stale, ties int64
		judged            bool
		want              int64
	}{
		{0, 0, 0, true, 0},
		{3, 0, 0, true, 3},
		{0, 2, 0, true, 2},
		{0, 0, 1, true, 1},
		{1, 1, 1, true, 3},
		{1, 1, 1, false, 0},
	} {
		var cr CheckResult
		res := runner.Result{LiveRejects: tc.live, StaleWrites: tc.stale, TokenTies: tc.ties}
		cr.add(7, outcome{ran: true, res: res, tokensJudged: tc.judged})
		if cr.TokenFailures != tc.want || cr.TokenTies != tc.ties || (tc.want > 0) != slices.Equal(cr.TokenFailureSeeds, []uint64{7}) {
			t.Errorf("%+v: %d token failures (seeds %v), %d ties", tc, cr.TokenFailures, cr.TokenFailureSeeds, cr.TokenTies)
		}
	}
}

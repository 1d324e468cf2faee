package explore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	_ "leaselab/paxoslease/fairq"
	"leaselab/runner/internal/planted"
)

// tokenConfig is a small crash-free space on one acceptor that judges
// fencing tokens.
func tokenConfig(algo string, inputs int) Config {
	c := DefaultConfig()
	c.Algo, c.Tokens = algo, true
	c.Acceptors, c.Proposers, c.Inputs, c.Crashes, c.MaxPending = 1, 2, inputs, 0, 0
	c.Workers = 2
	return c
}

// exploreAnyway explores c with Tokens although c brings about a
// condition under which the algorithm does not claim its tokens grow
// (which Explore refuses): to show that the judgement reaches what the
// algorithm names.
func exploreAnyway(t *testing.T, c Config) Result {
	t.Helper()
	c.Tokens = false
	cf, err := prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	cf.Tokens = true
	st := &stats{start: time.Now(), cpu0: cpuTime()}
	res, err := cf.bfs(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cf.finish(&res, st)
	return res
}

// A planted PaxosLease whose nodes give a lease their previous lease's
// token (holders stay apart: no violation) is found by every strategy
// that searches the space, and the counterexample replays to a rejected
// write of a current lease.
func TestTokensFindPlanted(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		depth    int // of the counterexample; 0: any
	}{{"bfs", 9}, {"dfs", 0}} {
		c := tokenConfig(planted.StaleToken, 4)
		c.Strategy = tc.strategy
		res, err := Explore(c)
		if err != nil {
			t.Fatal(err)
		}
		f := res.FirstToken
		if res.Stopped != StopTokens || res.TokenFailures == 0 || res.Violations != 0 || f == nil || !res.Tokens {
			t.Fatalf("%s: stopped %s, %d token failures, %d violations, first %+v", tc.strategy, res.Stopped, res.TokenFailures, res.Violations, f)
		}
		if tc.depth > 0 && res.CounterexampleDepth != tc.depth {
			t.Errorf("%s: counterexample at depth %d, want %d (breadth first: the shortest)", tc.strategy, res.CounterexampleDepth, tc.depth)
		}
		if !strings.Contains(res.Scenario, "store fenced\n") || !strings.Contains(res.Scenario, "\nwrite n") {
			t.Fatalf("%s: the counterexample has no fenced store or no writes:\n%s", tc.strategy, res.Scenario)
		}
		replayFailsOnly(t, res.Scenario, "expect fenced-rejects 0")
	}
}

// The algorithms whose tokens a search can judge keep them growing in a
// space where holders change hands in every order: 0 token failures,
// exhausted, leases of both proposers.
func TestTokensHold(t *testing.T) {
	for _, algo := range []string{"paxoslease", "fatlease", "classicpaxos", "central"} {
		c := tokenConfig(algo, 3)
		res, err := Explore(c)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != StopExhausted || res.TokenFailures != 0 || res.Violations != 0 || res.Holders < 2 {
			t.Fatalf("%s: stopped %s, %d token failures, %d violations, %d holders", algo, res.Stopped, res.TokenFailures, res.Violations, res.Holders)
		}
		// The highest token is state: never fewer states than without.
		c.Tokens = false
		plain, err := Explore(c)
		if err != nil {
			t.Fatal(err)
		}
		if res.States < plain.States {
			t.Errorf("%s: %d states with tokens, %d without", algo, res.States, plain.States)
		}
	}
	// Classic Paxos's acceptors keep their promises on disk, and central's
	// tokens are read off its server's clock, past which a restarted
	// server waits M: their tokens survive crashes too.
	for _, algo := range []string{"classicpaxos", "central"} {
		c := tokenConfig(algo, 3)
		c.Crashes = 1
		res, err := Explore(c)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != StopExhausted || res.TokenFailures != 0 {
			t.Fatalf("%s with a crash: stopped %s, %d token failures", algo, res.Stopped, res.TokenFailures)
		}
	}
}

// Central with its token read off the client's clock (its lease end, from
// when it sent the ask; planted.ClientToken) claims what central claims,
// so a search judges it, and finds two leases granted at one instant
// sharing a token: the shortest case of an ask granted after one sent
// later, which the quick hand-off campaign meets on the default network.
func TestTokensFindClientToken(t *testing.T) {
	res, err := Explore(tokenConfig(planted.ClientToken, 3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopTokens || res.FirstToken == nil || res.Violations != 0 {
		t.Fatalf("stopped %s, first %+v, %d violations", res.Stopped, res.FirstToken, res.Violations)
	}
	t.Logf("found at depth %d after %d states", res.CounterexampleDepth, res.States)
	replayFailsOnly(t, res.Scenario, "expect token-ties 0")
}

// Where an algorithm says its tokens may not grow, the judgement finds
// them not growing: so the search's verdict elsewhere is not a check
// that cannot fail. PaxosLease's and FaTLease's diskless acceptors forget
// a ballot in a crash (restart); naive's tokens are lease ends, which two
// leases granted at one instant share (delay: the gap between a release
// and the next ask is no larger than the delays).
func TestTokensReachBreaks(t *testing.T) {
	for _, tc := range []struct {
		algo    string
		crashes int
		expect  string
	}{
		{"paxoslease", 1, "expect fenced-rejects 0"},
		{"fatlease", 1, "expect fenced-rejects 0"},
		{"naive", 0, "expect token-ties 0"},
	} {
		c := tokenConfig(tc.algo, 3)
		c.Crashes = tc.crashes
		if _, err := Explore(c); !errors.Is(err, ErrBadConfig) {
			t.Fatalf("%s: Explore with tokens: %v, want a bad configuration", tc.algo, err)
		}
		res := exploreAnyway(t, c)
		if res.Stopped != StopTokens || res.FirstToken == nil {
			t.Fatalf("%s: stopped %s, first %+v", tc.algo, res.Stopped, res.FirstToken)
		}
		replayFailsOnly(t, res.Scenario, tc.expect)
	}
}

// Tokens is refused where the search brings about a condition the
// algorithm names, and accepted elsewhere.
func TestTokensRefused(t *testing.T) {
	for _, tc := range []struct {
		algo   string
		change func(*Config)
		ok     bool
	}{
		{"paxoslease", func(c *Config) {}, true},
		{"paxoslease", func(c *Config) { c.Crashes = 1 }, false},
		{"paxoslease", func(c *Config) { c.Clocks = "extremes" }, true},
		{"paxoslease", func(c *Config) { c.Pauses, c.Dups = 1, 1 }, true},
		{"fatlease", func(c *Config) { c.Crashes = 2 }, false},
		{"classicpaxos", func(c *Config) { c.Crashes, c.Clocks = 1, "skew" }, true},
		{"naive", func(c *Config) {}, false},
		{"naive-undo", func(c *Config) {}, false},
		{"central", func(c *Config) { c.Crashes, c.Clocks = 1, "extremes" }, true},
		{"paxoslease", func(c *Config) {
			c.From = "algo paxoslease\ncluster acceptors=1 proposers=2\nstart\ncrash n0\nrestart n0\n"
		}, false},
	} {
		c := tokenConfig(tc.algo, 1)
		c.MaxStates = 1
		tc.change(&c)
		_, err := Explore(c)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s %+v: %v, want ok %v", tc.algo, c, err, tc.ok)
		}
	}
}

// A lockstep search (Sync) passes time only with nothing in flight and no
// lease ending, so it brings about no late message and, without drops,
// pauses or crashes, no lapse: fairq, which names lapse, is judged there
// and keeps its tokens growing; a drop, a pause or a crash brings lapses
// back and the judgement is refused again. The judgement still fails
// the planted PaxosLease, and the search is a part of the one without
// Sync.
func TestTokensSync(t *testing.T) {
	c := tokenConfig("fairq", 4)
	if _, err := Explore(c); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("fairq without sync: %v, want a bad configuration", err)
	}
	c.Sync = true
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopExhausted || res.TokenFailures != 0 || res.Violations != 0 || res.Holders < 2 {
		t.Fatalf("fairq in lockstep: stopped %s, %d token failures, %d violations, %d holders", res.Stopped, res.TokenFailures, res.Violations, res.Holders)
	}
	for _, change := range []func(*Config){
		func(c *Config) { c.Drops = 1 },
		func(c *Config) { c.Pauses = 1 },
		func(c *Config) { c.Crashes = 1 },
		func(c *Config) { c.Tokens, c.Liveness = false, true },
	} {
		b := c
		change(&b)
		if _, err := Explore(b); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v, want a bad configuration", b, err)
		}
	}
	// Every lease ends by a release in lockstep, so the planted bug's
	// three leases (a, b, then a again with a's first token) take five
	// inputs, where one that lapses takes three.
	p := tokenConfig(planted.StaleToken, 5)
	p.Sync = true
	res, err = Explore(p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopTokens || res.FirstToken == nil {
		t.Fatalf("planted in lockstep: stopped %s, first %+v", res.Stopped, res.FirstToken)
	}
	t.Logf("planted in lockstep: depth %d, %d states", res.CounterexampleDepth, res.States)
	replayFailsOnly(t, res.Scenario, "expect fenced-rejects 0")
	free := tokenConfig("paxoslease", 3)
	all, err := Explore(free)
	if err != nil {
		t.Fatal(err)
	}
	free.Sync = true
	part, err := Explore(free)
	if err != nil {
		t.Fatal(err)
	}
	if part.Stopped != StopExhausted || all.Stopped != StopExhausted || part.States >= all.States {
		t.Fatalf("paxoslease: %d states in lockstep (%s), %d without (%s)", part.States, part.Stopped, all.States, all.Stopped)
	}
}

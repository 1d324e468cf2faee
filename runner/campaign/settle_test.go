package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/internal/planted"
)

// liveCampaign is a campaign of seeds seeds of algo under faults, each
// seed with its settle stretch (Vary.Settle), as `leaselab check` runs
// it.
func liveCampaign(algo string, faults string, first uint64, seeds int) CheckSpec {
	base := runner.DefaultSpec()
	base.Algo, base.Proposers = algo, 5
	base.Duration = 2 * time.Minute
	if a, err := algorithms.Lookup(algo); err == nil && a.ValidateConfig(base.Params, algorithms.NewCluster(base.Acceptors, base.Proposers), nil) != nil {
		base.Acceptors = 1 // a single server (central)
	}
	return CheckSpec{Base: base, Faults: []string{faults}, Seeds: seeds, FirstSeed: first,
		Vary: Vary{Workload: true, Downtime: true, PartitionLen: true, Settle: true}}
}

// After its faults stop, a correct algorithm answers every request
// (Acquired or Failed) within the seed's settle stretch: for every
// algorithm, under the fixed mix and the swarm, and on the seeds (of
// `check` with its defaults) that left a request unanswered before the
// fixes this check led to. A planted liveness bug is found.
func TestSettleAnswersEveryRequest(t *testing.T) {
	seeds := 50
	if testing.Short() {
		seeds = 10
	}
	type tc struct {
		algo, faults string
		first        uint64
		seeds        int
	}
	var cases []tc
	for _, algo := range algorithms.Names() {
		if strings.HasPrefix(algo, "test-") {
			continue // planted test algorithms
		}
		for _, f := range []string{"all", "swarm"} {
			cases = append(cases, tc{algo, f, 1, seeds})
		}
	}
	// The seeds that hung: FaTLease's proposer-only node proposing in
	// an instance it had no record of, again and again (swarm 70;
	// classic Paxos runs the same engine: swarm 39), and nodes that
	// took an Acquire from their client while they held the lease as
	// asked already (a lease acquired for a request the client's
	// watchdog had given up, or for an extension that came too late).
	for _, c := range []tc{{"fatlease", "swarm", 70, 1}, {"classicpaxos", "swarm", 39, 1},
		{"paxoslease", "all", 98, 1}, {"paxoslease", "all", 121, 1}, {"paxoslease", "all", 160, 1},
		{"naive", "swarm", 179, 1}, {"fairq", "all", 152, 1}} {
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%d", c.algo, c.faults, c.first), func(t *testing.T) {
			cs := liveCampaign(c.algo, c.faults, c.first, c.seeds)
			if c.seeds == 1 {
				cs.Base.Duration = 10 * time.Minute // check's default: the seed as it ran there
			}
			res, err := Check(cs, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.LivenessJudged || res.Unanswered != 0 || res.Violations != 0 {
				t.Fatalf("judged %v, %d unanswered in seeds %v (first %+v), %d violations", res.LivenessJudged, res.Unanswered, res.UnansweredSeeds, res.FirstUnanswered, res.Violations)
			}
			if res.LeasesAcquired == 0 {
				t.Fatalf("no lease acquired: the check judged nothing")
			}
			if res.DrainMaxShare <= 0 || res.DrainMaxShare >= 0.5 {
				t.Errorf("the longest drain took %.3f of its settle stretch: want some, under half", res.DrainMaxShare)
			}
			t.Logf("longest drain: %.3f of its settle stretch", res.DrainMaxShare)
		})
	}

	t.Run("planted", func(t *testing.T) {
		res, err := Check(liveCampaign(planted.Forgetful, "all", 1, 4), runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unanswered == 0 || len(res.UnansweredSpecs) == 0 || res.Violations != 0 {
			t.Fatalf("the forgetful nodes: %d unanswered (want some), %d violations (want none)", res.Unanswered, res.Violations)
		}
		// The reported spec reproduces it with `run`.
		spec := res.UnansweredSpecs[0]
		r, err := runner.Run(spec, runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Unanswered == 0 || r.UnansweredList[0] != res.FirstUnanswered[0] {
			t.Fatalf("re-run of seed %d: %d unanswered, %v; the campaign said %+v", spec.Seed, r.Unanswered, r.UnansweredList, res.FirstUnanswered[0])
		}
	})
}

// Without a settle stretch nothing is judged: the campaign says so.
func TestNoSettleJudgesNoLiveness(t *testing.T) {
	cs := liveCampaign(planted.Forgetful, "all", 1, 2)
	cs.Vary.Settle = false
	res, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LivenessJudged || res.Unanswered != 0 {
		t.Fatalf("judged %v, %d unanswered: want neither without a settle stretch", res.LivenessJudged, res.Unanswered)
	}
}

// SettleFor covers the longest fault episode under way and one whole
// wait per proposer.
func TestSettleFor(t *testing.T) {
	s := runner.DefaultSpec()
	s.Proposers, s.Hold, s.Pause = 2, time.Second, time.Second
	p := s.Params
	each := s.Hold + 3*p.MaxLease + time.Duration(p.MaxRounds)*(p.ResponseTimeout+p.Backoff) + s.Pause + time.Second
	if got := SettleFor(s); got != 2*each {
		t.Errorf("no faults: %v, want %v", got, 2*each)
	}
	s.Faults.CrashRate, s.Faults.Downtime = 1, 40*time.Second
	s.Faults.Partitions, s.Faults.PartitionLen = 1, 30*time.Second
	if got := SettleFor(s); got != 40*time.Second+2*each {
		t.Errorf("crashes and partitions: %v, want %v", got, 40*time.Second+2*each)
	}
	s.Net.Stale, s.Net.StaleSpans = 1, 20
	if got, want := SettleFor(s), time.Duration(20*float64(p.LeaseSpan))+2*each; got != want {
		t.Errorf("stalls: %v, want %v", got, want)
	}
}

// With no violation, --trace gets the full trace of the first seed that
// left a request unanswered: the request is in it, and nothing answers it.
func TestUnansweredSeedTraced(t *testing.T) {
	var buf bytes.Buffer
	res, err := Check(liveCampaign(planted.Forgetful, "all", 1, 4), runner.Options{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations != 0 || len(res.FirstUnanswered) == 0 {
		t.Fatalf("%d violations, %d unanswered: want none and some", res.Violations, res.Unanswered)
	}
	ask := res.FirstUnanswered[0]
	at := int64(ask.SinceMS * 1e6)
	asked, answered := false, false
	for line := range strings.SplitSeq(buf.String(), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			T     int64  `json:"t_ns"`
			Node  int    `json:"node"`
			What  string `json:"what"`
			Input string `json:"input"`
			Event string `json:"event"`
			Res   int64  `json:"res"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if r.Node != int(ask.Node) || r.Res != int64(ask.Resource) || r.T < at {
			continue
		}
		asked = asked || r.What == "input" && r.Input == "acquire" && r.T == at
		answered = answered || r.What == "event" && (r.Event == "acquired" || r.Event == "failed")
	}
	if !asked || answered {
		t.Fatalf("the trace of seed %d: request at %v found %v, answered %v: want found and not answered", res.UnansweredSeeds[0], time.Duration(at), asked, answered)
	}
}

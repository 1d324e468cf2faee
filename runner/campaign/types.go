package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/shard"
)

// CheckSpec describes a fault campaign: Seeds runs with seeds FirstSeed,
// FirstSeed+1, ..., each with a fault schedule drawn from the seed, using
// the fault kinds in Faults (FaultKinds; "all" means every one; "swarm"
// lets every seed draw its own kinds, see Swarm, among all SwarmKinds
// when alone, among the swarm kinds that follow it otherwise).
//
// Its JSON is what a part of a sharded campaign records as the whole
// campaign's spec (CheckResult.Shard), which merge compares.
type CheckSpec struct {
	Base      runner.Spec `json:"base"`
	Faults    []string    `json:"faults"`
	Seeds     int         `json:"seeds"`
	FirstSeed uint64      `json:"first_seed"`
	// Vary: parts of the experiment each seed draws afresh (see campaign.go).
	Vary Vary `json:"vary"`
	// StopAtFirst ends the campaign at the lowest violating seed: every
	// seed up to it runs, none after (CheckResult.Seeds says how many).
	StopAtFirst bool `json:"stop_at_first"`
}

// Vary says which parts of the base experiment a campaign draws per seed
// instead of taking them from the base spec. The command sets each one the
// user did not fix with a flag.
type Vary struct {
	Workload     bool `json:"workload"`      // contention: release or expire, hold, pause
	Downtime     bool `json:"downtime"`      // how long a crashed node stays down
	PartitionLen bool `json:"partition_len"` // how long a partition lasts
	// Settle: contention; each seed ends with a settle stretch
	// (runner.Spec.Settle) as long as SettleFor gives for its draws, so
	// that every seed is judged for liveness as well as safety. The base
	// spec's Settle, when set, is every seed's instead.
	Settle bool `json:"settle"`
	// Fixed lists the rates the caller set on purpose, zero included: a
	// requested fault kind draws a rate only where the base spec's is zero
	// and not fixed, so "--loss 0" means no loss. Names are the command's
	// flags: loss, dup, reorder, partitions, crash-rate, drift, skew,
	// stale, giveup, extend, resources.
	Fixed []string `json:"fixed"`
}

// fixed reports whether name is in v.Fixed.
func (v Vary) fixed(name string) bool { return slices.Contains(v.Fixed, name) }

// CheckResult sums a campaign.
//
// Every key is always present in its JSON: lists are [] when empty, the
// counterexample null when there is none.
type CheckResult struct {
	Meta *runner.Meta `json:"meta"` // filled by the command
	// Shard: in a part of a sharded campaign (check --shard i/n), which
	// part, with the whole campaign's spec (null otherwise); Shards: in a
	// merged result (MergeCheck), the parts it was merged from ([]
	// otherwise). Both are set by the command.
	Shard  *shard.Info          `json:"shard"`
	Shards []shard.Part         `json:"shards"`
	Algo   string               `json:"algo"`
	Ablate algorithms.Ablations `json:"ablate"`
	Faults []string             `json:"faults"`
	// FirstSeed and Seeds: the seeds run were FirstSeed ..
	// FirstSeed+Seeds-1.
	FirstSeed uint64 `json:"first_seed"`
	Seeds     int    `json:"seeds"`
	// Params: the base spec every seed starts from (its seed is the
	// first seed's; each seed then draws its faults, see CheckSpecFor).
	Params         runner.Spec `json:"params"`
	LeasesAcquired int         `json:"leases_acquired"`
	Violations     int         `json:"violations"`
	ViolatingSeeds []uint64    `json:"violating_seeds"`
	// The protected store and the pauses (runner.Result's meters of the
	// same names), summed over the seeds; StaleWriteSeeds: the seeds
	// with a stale write (the fenced store let one through when its
	// tokens did not grow); LiveRejects: rejections of a current lease
	// (its token below an earlier holder's); TokenTies: writes that
	// carried the highest token another node had written (two holders
	// with one token).
	Writes          int64    `json:"writes"`
	StaleWrites     int64    `json:"stale_writes"`
	FencedRejects   int64    `json:"fenced_rejects"`
	LiveRejects     int64    `json:"live_rejects"`
	TokenTies       int64    `json:"token_ties"`
	DoubleBeliefMS  float64  `json:"double_belief_ms"`
	StaleWriteSeeds []uint64 `json:"stale_write_seeds"`
	// TokensJudged: the seeds whose fencing tokens were judged
	// (TokensJudged): a fenced store, and no fault on in the seed that
	// causes a condition under which its algorithm does not claim that
	// a later holder's token is higher (algorithms.Algorithm.TokenBreaks).
	// TokenFailures: in those seeds, the writes that show a token that
	// did not grow, summed: rejections of a current lease, stale writes
	// and ties (LiveRejects, StaleWrites and TokenTies). TokenFailureSeeds: the
	// seeds with any; TokenFailureSpecs: the full spec of the first 20
	// of them, so `run` reproduces each.
	TokensJudged      int           `json:"tokens_judged"`
	TokenFailures     int64         `json:"token_failures"`
	TokenFailureSeeds []uint64      `json:"token_failure_seeds"`
	TokenFailureSpecs []runner.Spec `json:"token_failure_specs"`
	// LivenessJudged: the seeds had a settle stretch (the base spec's
	// Settle, or Vary.Settle on a contention workload). DrainMaxShare: the
	// largest share of its settle stretch any seed took to answer every
	// request and end every hold (runner.Result.DrainMS over Settle; 0 if
	// none drained), how much of the bound a live algorithm used.
	LivenessJudged bool    `json:"liveness_judged"`
	DrainMaxShare  float64 `json:"drain_max_share"`
	// Unanswered: requests no answer came to by the end of their seed's
	// settle stretch (runner.Result.Unanswered), summed: a liveness
	// failure. UnansweredSeeds: the seeds with any; UnansweredSpecs: the
	// full spec of the first 20 of them, so `run` reproduces each, and
	// FirstUnanswered the first such request of each.
	Unanswered      int                 `json:"unanswered"`
	UnansweredSeeds []uint64            `json:"unanswered_seeds"`
	UnansweredSpecs []runner.Spec       `json:"unanswered_specs"`
	FirstUnanswered []runner.PendingAsk `json:"first_unanswered"`
	// doubleBeliefNS: DoubleBeliefMS in whole nanoseconds, as summed
	// (addDoubleBelief).
	doubleBeliefNS int64
	// First: the first violation of each violating seed (at most 20), and
	// ViolatingSpecs the full spec of those runs (fault rates drawn for the
	// seed included), so `run` can reproduce each one.
	First          []runner.Violation `json:"first_violations"`
	ViolatingSpecs []runner.Spec      `json:"violating_specs"`
	// Swarm: for a swarm campaign, how many seeds drew each kind (in
	// SwarmKinds order).
	Swarm []KindSeeds `json:"swarm"`
	// Exercised sums, over the seeds, how often the faults happened, so a
	// campaign shows that what it asked for took place.
	Exercised Exercised `json:"exercised"`
	// Counterexample: the shrunk scenario `check --out` wrote (filled by
	// the command).
	Counterexample *Counterexample `json:"counterexample"`
	// Counterexamples: in a merged result, every part's shrunk scenario,
	// in the order Counterexample was picked by (MergeCheck); [] otherwise.
	Counterexamples []Counterexample `json:"counterexamples"`
	// Interrupted: Stop ended the campaign early; Seeds says how many
	// ran.
	Interrupted bool `json:"interrupted"`
	// WallMS: how long the campaign took; in a merged result, the sum of
	// its parts' (the work, not the time it took them; Shards has each).
	WallMS float64 `json:"wall_ms"`
}

// Counterexample is a violation of a campaign shrunk to a scenario file.
type Counterexample struct {
	File string `json:"file"`
	ShrinkResult
}

// Exercised counts what a campaign's faults did: every fault kind's
// counters (the fault-kind table's, runner/faults Kind.Counters: crashes,
// partitions, stale_delivered, giveups_mid_round, extensions,
// extend_releases, releases_mid_extension, multi_resource_seeds,
// free_clock_seeds, proposer_only_seeds, acceptor_only_seeds, pauses,
// clock_jumps), summed over the seeds, and the campaign's own:
// HolderCrashes, crashes of a node that held a lease; ShortDowntimeSeeds,
// seeds with crashes whose nodes stay down less than M (they restart into
// their quarantine); LongStallSeeds, seeds whose link stalls can outlast
// M and a downtime. Its JSON is one object: the table's counters in table
// order, then the campaign's.
type Exercised struct {
	Counts             map[string]int64
	HolderCrashes      int
	ShortDowntimeSeeds int
	LongStallSeeds     int
}

// Count is the table's counter name summed over the seeds.
func (e Exercised) Count(name string) int64 { return e.Counts[name] }

func (e *Exercised) add(r runner.Result) {
	if e.Counts == nil {
		e.Counts = map[string]int64{}
	}
	for _, k := range faults.Kinds() {
		for _, c := range k.Counters {
			e.Counts[c.Name] += c.Of(&r)
		}
	}
	p := r.Params
	if r.Crashes > 0 && p.Faults.Downtime < p.Params.MaxLease {
		e.ShortDowntimeSeeds++
	}
	if p.Net.Stale > 0 && time.Duration(p.Net.StaleSpans*float64(p.Params.LeaseSpan)) > p.Params.MaxLease+p.Faults.Downtime {
		e.LongStallSeeds++
	}
}

// counters are the JSON keys of an Exercised, in order, with their values.
func (e Exercised) counters() [][2]any {
	var out [][2]any
	for _, k := range faults.Kinds() {
		for _, c := range k.Counters {
			out = append(out, [2]any{c.Name, e.Counts[c.Name]})
		}
	}
	return append(out, [2]any{"holder_crashes", e.HolderCrashes}, [2]any{"short_downtime_seeds", e.ShortDowntimeSeeds},
		[2]any{"long_stall_seeds", e.LongStallSeeds})
}

// MarshalJSON writes every counter as a key of one object, in order.
func (e Exercised) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range e.counters() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", kv[0], kv[1])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Exercised) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	e.HolderCrashes, e.ShortDowntimeSeeds, e.LongStallSeeds = int(m["holder_crashes"]), int(m["short_downtime_seeds"]), int(m["long_stall_seeds"])
	delete(m, "holder_crashes")
	delete(m, "short_downtime_seeds")
	delete(m, "long_stall_seeds")
	e.Counts = m
	return nil
}

// String says in one line how often the campaign's faults happened.
func (e Exercised) String() string {
	var parts []string
	for _, kv := range e.counters() {
		parts = append(parts, fmt.Sprintf("%d %s", kv[1], strings.ReplaceAll(kv[0].(string), "_", " ")))
	}
	return strings.Join(parts, ", ")
}

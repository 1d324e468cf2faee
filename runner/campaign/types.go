package campaign

import (
	"slices"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// CheckSpec describes a fault campaign: Seeds runs with seeds FirstSeed,
// FirstSeed+1, ..., each with a fault schedule drawn from the seed, using
// the fault kinds in Faults (FaultKinds; "all" means every one; "swarm",
// alone, lets every seed draw its own kinds, see Swarm).
type CheckSpec struct {
	Base      runner.Spec
	Faults    []string
	Seeds     int
	FirstSeed uint64
	// Vary: parts of the experiment each seed draws afresh (see campaign.go).
	Vary Vary
	// StopAtFirst ends the campaign at the lowest violating seed: every
	// seed up to it runs, none after (CheckResult.Seeds says how many).
	StopAtFirst bool
}

// Vary says which parts of the base experiment a campaign draws per seed
// instead of taking them from the base spec. The command sets each one the
// user did not fix with a flag.
type Vary struct {
	Workload     bool // contention: release or expire, hold, pause
	Downtime     bool // how long a crashed node stays down
	PartitionLen bool // how long a partition lasts
	// Fixed lists the rates the caller set on purpose, zero included: a
	// requested fault kind draws a rate only where the base spec's is zero
	// and not fixed, so "--loss 0" means no loss. Names are the command's
	// flags: loss, dup, reorder, partitions, crash-rate, drift, skew,
	// stale, giveup, extend, resources.
	Fixed []string
}

// fixed reports whether name is in v.Fixed.
func (v Vary) fixed(name string) bool { return slices.Contains(v.Fixed, name) }

// CheckResult sums a campaign.
type CheckResult struct {
	Meta           *runner.Meta         `json:"meta,omitempty"` // filled by the command
	Algo           string               `json:"algo"`
	Ablate         algorithms.Ablations `json:"ablate"`
	Faults         []string             `json:"faults"`
	Seeds          int                  `json:"seeds"`
	LeasesAcquired int                  `json:"leases_acquired"`
	Violations     int                  `json:"violations"`
	ViolatingSeeds []uint64             `json:"violating_seeds"`
	// First: the first violation of each violating seed (at most 20), and
	// ViolatingSpecs the full spec of those runs (fault rates drawn for the
	// seed included), so `run` can reproduce each one.
	First          []runner.Violation `json:"first_violations,omitempty"`
	ViolatingSpecs []runner.Spec      `json:"violating_specs,omitempty"`
	// Swarm: for a swarm campaign, how many seeds drew each kind (in
	// SwarmKinds order).
	Swarm []KindSeeds `json:"swarm,omitempty"`
	// Exercised sums, over the seeds, how often the faults happened, so a
	// campaign shows that what it asked for took place.
	Exercised Exercised `json:"exercised"`
	// Counterexample: the shrunk scenario `check --out` wrote (filled by
	// the command).
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	WallMS         float64         `json:"wall_ms"`
}

// Counterexample is a violation of a campaign shrunk to a scenario file.
type Counterexample struct {
	File string `json:"file"`
	ShrinkResult
}

// Exercised counts what a campaign's faults did (Result's meters of the
// same names, summed over seeds).
type Exercised struct {
	Crashes              int   `json:"crashes"`
	Partitions           int   `json:"partitions"`
	StaleDelivered       int64 `json:"stale_delivered"`
	GiveupsMidRound      int   `json:"giveups_mid_round"`
	Extensions           int   `json:"extensions"`
	ExtendReleases       int   `json:"extend_releases"`
	ReleasesMidExtension int   `json:"releases_mid_extension"`
	// MultiResourceSeeds: seeds whose clients contend for more than one
	// resource; FreeClockSeeds: seeds whose clocks run free with a rate
	// error.
	MultiResourceSeeds int `json:"multi_resource_seeds"`
	FreeClockSeeds     int `json:"free_clock_seeds"`
	// HolderCrashes: crashes of a node that held a lease; the shape
	// counts: seeds with nodes that only propose (more proposers than
	// acceptors) or only accept; ShortDowntimeSeeds: seeds with crashes
	// whose nodes stay down less than M (they restart into their
	// quarantine); LongStallSeeds: seeds whose link stalls can outlast M
	// and a downtime.
	HolderCrashes      int `json:"holder_crashes"`
	ProposerOnlySeeds  int `json:"proposer_only_seeds"`
	AcceptorOnlySeeds  int `json:"acceptor_only_seeds"`
	ShortDowntimeSeeds int `json:"short_downtime_seeds"`
	LongStallSeeds     int `json:"long_stall_seeds"`
}

func (e *Exercised) add(r runner.Result) {
	e.Crashes += r.Crashes
	e.Partitions += r.PartitionCount
	e.StaleDelivered += r.StaleDelivered
	e.GiveupsMidRound += r.GiveupsMidRound
	e.Extensions += r.Extensions
	e.ExtendReleases += r.ExtendReleases
	e.ReleasesMidExtension += r.ReleasesMidExtension
	if r.Params.Resources > 1 {
		e.MultiResourceSeeds++
	}
	if r.Params.Clocks.Free && r.Params.Clocks.Drift > 0 {
		e.FreeClockSeeds++
	}
	p := r.Params
	if p.Proposers > p.Acceptors {
		e.ProposerOnlySeeds++
	}
	if p.Acceptors > p.Proposers {
		e.AcceptorOnlySeeds++
	}
	if r.Crashes > 0 && p.Faults.Downtime < p.Params.MaxLease {
		e.ShortDowntimeSeeds++
	}
	if p.Net.Stale > 0 && time.Duration(p.Net.StaleSpans*float64(p.Params.LeaseSpan)) > p.Params.MaxLease+p.Faults.Downtime {
		e.LongStallSeeds++
	}
}

package sweep

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"leaselab/runner"
	"leaselab/runner/experiments"
	"leaselab/runner/internal/pool"
	"leaselab/runner/shard"
)

// Axis is one parameter of the grid and the values it takes, spelled as
// on the command line ("30s", "0.01", "naive").
type Axis struct {
	Param  string   `json:"param"` // a name from the parameter table (runner.Params)
	Values []string `json:"values"`
}

// Grid is a sweep: every combination of the axes' values (a cell) run
// with Seeds seeds each, FirstSeed, FirstSeed+1, ...
type Grid struct {
	// Base holds every parameter no axis sets.
	Base      runner.Spec `json:"base"`
	Axes      []Axis      `json:"axes"`
	Seeds     int         `json:"seeds"`
	FirstSeed uint64      `json:"first_seed"`
	// Meters are the keys summarised per cell (experiments.MeterKeys:
	// a Result JSON key such as "latency_ms.p99", or a derived meter).
	Meters []string `json:"meters"`
	// NetTimeout: each cell's response timeout is the default for its
	// network (runner.DefaultResponseTimeout), as on the command line
	// when --response-timeout is not given, so a cell with a long round
	// trip does not time out every phase.
	NetTimeout bool `json:"net_timeout"`
}

// DefaultMeters are the meters a sweep summarises unless told otherwise.
var DefaultMeters = []string{"leases_acquired", "leases_per_sec", "latency_ms.p50", "latency_ms.p99",
	"handoffs_per_sec", "fairness", "blocked_fraction", "violations"}

// Cell is one combination of the axes' values.
type Cell struct {
	Index int
	// Values: one per axis, in the grid's axis order.
	Values []string
	// Spec: the base with the cell's values, seed FirstSeed.
	Spec runner.Spec
}

// Name is the cell as "param=value, param=value".
func (c Cell) Name(axes []Axis) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Param + "=" + c.Values[i]
	}
	return strings.Join(parts, ", ")
}

// Job is one run of the sweep: a cell and a repetition (its seed is
// FirstSeed + Rep).
type Job struct{ Cell, Rep int }

// Validate checks the grid's shape; Cells checks every cell's spec.
func (g Grid) Validate() error {
	if g.Seeds < 1 {
		return fmt.Errorf("seeds must be at least 1, got %d", g.Seeds)
	}
	if g.FirstSeed > math.MaxUint64-uint64(g.Seeds)+1 {
		return fmt.Errorf("first seed %d plus %d seeds passes the largest seed", g.FirstSeed, g.Seeds)
	}
	seen := map[string]bool{}
	for _, a := range g.Axes {
		if _, err := runner.LookupParam(a.Param, nil); err != nil {
			return err
		}
		if a.Param == "seed" {
			return fmt.Errorf("seeds are the repetitions of every cell (seeds, first seed), not an axis")
		}
		if seen[a.Param] {
			return fmt.Errorf("parameter %s is given twice", a.Param)
		}
		seen[a.Param] = true
		if len(a.Values) == 0 {
			return fmt.Errorf("parameter %s has no values", a.Param)
		}
		dup := map[string]bool{}
		for _, v := range a.Values {
			if dup[v] {
				return fmt.Errorf("parameter %s: value %q is given twice", a.Param, v)
			}
			dup[v] = true
		}
	}
	if len(g.Meters) == 0 {
		return fmt.Errorf("no meters")
	}
	for _, m := range g.Meters {
		if err := experiments.CheckMeter(m); err != nil {
			return err
		}
	}
	return nil
}

// Cells enumerates the grid: the cartesian product of the axes' values,
// the first axis varying slowest, each cell's spec set and validated
// (with seed FirstSeed). Cell i is the same for the same grid, so a cell
// can be named by its index.
func (g Grid) Cells() ([]Cell, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	n := 1
	for _, a := range g.Axes {
		if n > MaxCells/len(a.Values) {
			return nil, fmt.Errorf("more than %d cells", MaxCells)
		}
		n *= len(a.Values)
	}
	cells := make([]Cell, n)
	for i := range cells {
		c := Cell{Index: i, Values: make([]string, len(g.Axes)), Spec: g.Base}
		c.Spec.Ablate = append(c.Spec.Ablate[:0:0], g.Base.Ablate...)
		k := i
		for ai := len(g.Axes) - 1; ai >= 0; ai-- {
			a := g.Axes[ai]
			c.Values[ai] = a.Values[k%len(a.Values)]
			k /= len(a.Values)
		}
		for ai, a := range g.Axes {
			p, _ := runner.LookupParam(a.Param, nil) // checked by Validate
			v := c.Values[ai]
			if a.Param == "ablate" && v == NoAblation {
				v = ""
			}
			if err := p.Set(&c.Spec, v); err != nil {
				return nil, err
			}
		}
		c.Spec.Seed = g.FirstSeed
		if g.NetTimeout {
			c.Spec.Params.ResponseTimeout = runner.DefaultResponseTimeout(c.Spec.Net)
		}
		if err := c.Spec.Validate(); err != nil {
			if len(g.Axes) == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("cell %s: %w", c.Name(g.Axes), err)
		}
		cells[i] = c
	}
	return cells, nil
}

// NoAblation is the value of an ablate axis that switches nothing off.
const NoAblation = "none"

// MaxCells bounds a grid, so that a typo in a list cannot ask for
// millions of runs before anything is printed.
const MaxCells = 100000

// Jobs lists the runs of the cells in the order they are started: cell
// by cell, each cell's seeds in order.
func (g Grid) Jobs(cells []Cell) []Job {
	jobs := make([]Job, 0, len(cells)*g.Seeds)
	for _, c := range cells {
		for rep := 0; rep < g.Seeds; rep++ {
			jobs = append(jobs, Job{Cell: c.Index, Rep: rep})
		}
	}
	return jobs
}

// Options say how a sweep runs.
type Options struct {
	// Workers running at once (0: GOMAXPROCS). Runs in the udp
	// environment run alone, since they measure real time.
	Workers int
	// Run runs one spec (nil: runner.Run).
	Run func(runner.Spec, runner.Options) (runner.Result, error)
	// Progress, if set, is called on the calling goroutine after each run.
	Progress func(done, total int)
	// Stop, when closed, starts no further run and asks the runs in
	// flight to end early (runner.Options.Stop); the result then covers
	// the runs that were started, and says it was interrupted.
	Stop <-chan struct{}
	// From, To: run only the cells [From, To) (a part of a sharded sweep,
	// sweep --shard i/n); both zero: every cell.
	From, To int
}

// Result is a sweep's outcome: the grid, and per cell the statistics of
// every meter over its seeds.
type Result struct {
	Meta *runner.Meta `json:"meta"`
	// Shard: in a part of a sharded sweep (sweep --shard i/n), which part,
	// with the whole grid (null otherwise); its Cells are the part's.
	// Shards: in a merged result (Merge), the parts it was merged from
	// ([] otherwise). Both are set by the command.
	Shard  *shard.Info  `json:"shard"`
	Shards []shard.Part `json:"shards"`
	// Params is the base spec: every parameter of every run that no axis
	// sets (its seed is FirstSeed).
	Params    runner.Spec  `json:"params"`
	Axes      []Axis       `json:"axes"`
	Seeds     int          `json:"seeds"`
	FirstSeed uint64       `json:"first_seed"`
	Meters    []string     `json:"meters"`
	Cells     []CellResult `json:"cells"`
	// Runs: runs finished; Failed: those of them that returned an error.
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
	// Interrupted: Options.Stop ended the sweep before every run was
	// done; cells then summarise the seeds that ran to their end (a run
	// cut short is left out).
	Interrupted bool `json:"interrupted"`
	// WallMS: how long the sweep took; in a merged result, the sum of its
	// parts' (the work, not the time it took them; Shards has each).
	WallMS float64 `json:"wall_ms"`
}

// CellResult is one cell's summary.
type CellResult struct {
	Index int `json:"index"`
	// Values: the axes' values, by parameter name.
	Values map[string]string `json:"values"`
	// SeedsRun: seeds whose run finished (with or without an error).
	SeedsRun []uint64 `json:"seeds_run"`
	// Errors: the failed runs' errors, "seed N: ..." (empty if none).
	Errors []string `json:"errors"`
	// Violations: lease-invariant violations summed over the seeds.
	Violations int `json:"violations"`
	// Meters, in the grid's meter order.
	Meters []MeterStat `json:"meters"`
	// TraceHashes: per seed of SeedsRun, its run's trace hash (simulator;
	// "" for a failed run or over UDP), so any run of the cell can be
	// checked against a `leaselab run` of it.
	TraceHashes []string `json:"trace_hashes"`
}

// MeterStat is a meter's statistics over a cell's seeds: the mean and
// its 95% confidence interval (Student's t; null with fewer than two
// values), the sample standard deviation, min and max. N counts the runs
// that had a value (a run without one, such as a latency with no lease
// acquired, is Missing).
type MeterStat struct {
	Meter   string `json:"meter"`
	N       int    `json:"n"`
	Missing int    `json:"missing"`
	Mean    Num    `json:"mean"`
	Lo      Num    `json:"ci95_lo"`
	Hi      Num    `json:"ci95_hi"`
	Std     Num    `json:"std"`
	Min     Num    `json:"min"`
	Max     Num    `json:"max"`
}

// Num is a float that JSON writes as null when it is not a number.
type Num float64

// MarshalJSON writes null for NaN and infinities.
func (f Num) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprint(v)), nil
}

// Stat finds meter's statistics (ok false if the cell has no such meter).
func (c CellResult) Stat(meter string) (MeterStat, bool) {
	for _, m := range c.Meters {
		if m.Meter == meter {
			return m, true
		}
	}
	return MeterStat{}, false
}

// Run runs every cell of g with each of its seeds, on a pool of workers,
// and summarises each cell. The result does not depend on the
// scheduling: every run lands in its own slot and cells are summarised
// in seed order. A run's error does not stop the others (it is counted
// in Failed and listed in its cell); an invalid grid is an error.
func Run(g Grid, opt Options) (Result, error) {
	start := time.Now()
	cells, err := g.Cells()
	if err != nil {
		return Result{}, err
	}
	if opt.From != 0 || opt.To != 0 {
		if opt.From < 0 || opt.To > len(cells) || opt.From >= opt.To {
			return Result{}, fmt.Errorf("cells [%d, %d) are not a part of the %d cells", opt.From, opt.To, len(cells))
		}
		cells = cells[opt.From:opt.To]
	}
	run := opt.Run
	if run == nil {
		run = runner.Run
	}
	jobs := g.Jobs(cells)
	out := make([]outcome, len(jobs))
	stopped := func() bool { return runner.Closed(opt.Stop) }
	done, interrupted := 0, false
	// jobs[i] is cells[i/g.Seeds] (Jobs lists them cell by cell) with
	// seed FirstSeed+i%g.Seeds: by position, since a part's cells do not
	// start at index 0.
	p := pool.Pool{Workers: opt.Workers, Alone: func(i int) bool { return cells[i/g.Seeds].Spec.Env == "udp" }}
	p.Run(len(jobs), func(_, i int) {
		j := jobs[i]
		s := cells[i/g.Seeds].Spec
		s.Seed = g.FirstSeed + uint64(j.Rep)
		o := outcome{done: true}
		func() {
			defer func() {
				if r := recover(); r != nil {
					o.err = fmt.Errorf("run panicked: %v", r)
				}
			}()
			o.res, o.err = run(s, runner.Options{Stop: opt.Stop})
		}()
		out[i] = o
	}, func(i int) bool {
		done++
		if opt.Progress != nil {
			opt.Progress(done, len(jobs))
		}
		if stopped() {
			interrupted = true
			return false
		}
		return true
	})
	res := Result{Shards: []shard.Part{}, Params: g.Base, Axes: g.Axes, Seeds: g.Seeds, FirstSeed: g.FirstSeed, Meters: g.Meters,
		Interrupted: interrupted || stopped() && done < len(jobs)}
	res.Params.Seed = g.FirstSeed
	for k, c := range cells {
		cr, err := g.cellResult(c, out[k*g.Seeds:(k+1)*g.Seeds], &res)
		if err != nil {
			return Result{}, err
		}
		res.Cells = append(res.Cells, cr)
	}
	res.WallMS = float64(time.Since(start).Microseconds()) / 1e3
	return res, nil
}

// outcome is one run of a sweep: done is false for a run Stop kept from
// starting.
type outcome struct {
	res  runner.Result
	err  error
	done bool
}

// cellResult sums cell c's runs (out, by seed) into its statistics, counting the
// runs and failures in res; a run's bad spec is the sweep's error.
func (g Grid) cellResult(c Cell, out []outcome, res *Result) (CellResult, error) {
	cr := CellResult{Index: c.Index, Values: map[string]string{}, SeedsRun: []uint64{}, Errors: []string{}, TraceHashes: []string{}}
	for ai, a := range g.Axes {
		cr.Values[a.Param] = c.Values[ai]
	}
	var results []runner.Result
	for rep := 0; rep < g.Seeds; rep++ {
		o := out[rep]
		if !o.done || o.err == nil && o.res.Interrupted {
			continue // never run, or cut short by Stop: not a sample of the cell
		}
		seed := g.FirstSeed + uint64(rep)
		res.Runs++
		cr.SeedsRun = append(cr.SeedsRun, seed)
		if o.err != nil {
			if errors.Is(o.err, runner.ErrBadSpec) {
				return CellResult{}, o.err
			}
			res.Failed++
			cr.Errors = append(cr.Errors, fmt.Sprintf("seed %d: %v", seed, o.err))
			cr.TraceHashes = append(cr.TraceHashes, "")
			continue
		}
		cr.Violations += o.res.Violations
		cr.TraceHashes = append(cr.TraceHashes, o.res.TraceHash)
		results = append(results, o.res)
	}
	for _, m := range g.Meters {
		vs := make([]float64, len(results))
		for i, r := range results {
			vs[i] = experiments.Measure(r, m)
		}
		st := experiments.Summarise(vs)
		cr.Meters = append(cr.Meters, MeterStat{Meter: m, N: st.N, Missing: st.Miss + len(cr.Errors),
			Mean: Num(st.Mean), Lo: Num(st.Lo), Hi: Num(st.Hi), Std: Num(st.Std), Min: Num(st.Min), Max: Num(st.Max)})
	}
	return cr, nil
}

package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot/vg"
	"leaselab/algorithms"

	"leaselab/plots"
	"leaselab/runner"
	"leaselab/runner/internal/pool"
)

// The safety frontier (experiment "frontier"): for each algorithm and
// each assumption its safety argument makes, the smallest violation of
// the assumption at which two holders appear, and, separately, a stale
// write (an accepted write from a node whose lease had ended, after a
// later lease's write) with a plain and with a fenced store; beside the
// bound the argument gives.
//
// How a point is found: the magnitude x of the violation (a clock rate
// error, a clock offset, a pause length, a message delay, a clock jump)
// is searched on a log scale between the assumption's Lo and Hi. A probe
// at x runs Seeds simulated runs (seeds 1..Seeds) of the base workload
// with the assumption violated by x (Assumption.Set); it succeeds when
// any run shows the outcome. A grid of magnitudes from Lo up is probed
// until one succeeds (none: "none up to Hi"; Lo itself: "at or below
// Lo"), then Steps halvings of the bracket below it; a grid rather than
// Hi first, because a violation large enough can stop every acquisition
// and so show nothing. The point is the smallest x that succeeded,
// with the lowest seed that showed it as its counterexample: a `leaselab
// run` command line, written to frontier/ALGO_ASSUMPTION_OUTCOME.sh,
// that reproduces the run exactly. A probe is a sample, not a proof: the
// frontier found is an upper bound on the true one (a smaller violation
// may break the invariant in a run the seeds did not draw), and the
// bisection assumes that what breaks at x breaks at larger x too.

// Frontier is the kind of the frontier experiment.
const Frontier Kind = "frontier"

// FrontierDef says what the frontier experiment searches.
type FrontierDef struct {
	Algos       []string
	Assumptions []Assumption
	// Seeds per probe and bisection steps, in a full and a quick run.
	Seeds, QuickSeeds, Steps, QuickSteps int
	// LockDelay: the pause assumption is searched a second time with
	// this lock-delay (Spec.LockDelay), and its cost measured in a run
	// without faults.
	LockDelay time.Duration
}

// Assumption is one assumption of the algorithms' safety arguments and
// how a run violates it by a magnitude x (in Scale units: ns for a
// duration, a fraction for a rate).
type Assumption struct {
	Name  string
	Label string  // the axis: what x is, with its unit
	Unit  string  // "s", "ms" or "" (a fraction)
	Scale float64 // x in Unit = x * Scale
	// Lo, Hi: the search range for spec s.
	Lo, Hi func(s runner.Spec) float64
	// Bound is the largest violation the argument tolerates before
	// outcome can appear, and why (NaN: none, the algorithm does not make
	// the assumption or the outcome needs more than its violation).
	Bound func(s runner.Spec, a algorithms.Algorithm, outcome string) (float64, string)
	// Set violates the assumption by x in s.
	Set func(s *runner.Spec, x float64)
	// Paused: the outcome "two" counts two nodes that believe they hold
	// (Result.DoubleBeliefMS), a paused one included; otherwise two
	// running holders (Result.Violations).
	Paused bool
}

// FrontierPoint is one found point (or its absence).
type FrontierPoint struct {
	Series     string  `json:"series"` // the algorithm, or "algo (lock-delay D)"
	Algo       string  `json:"algo"`
	Assumption string  `json:"assumption"`
	Outcome    string  `json:"outcome"` // two, stale-plain, stale-fenced
	Unit       string  `json:"unit"`
	Bound      jnum    `json:"bound"` // in Unit; null: not assumed
	BoundWhy   string  `json:"bound_why"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	// Found: the outcome appeared at X (in Unit), and not at NoAt (the
	// largest magnitude probed without it; 0 if it appeared at Lo).
	Found   bool    `json:"found"`
	X       jnum    `json:"x"`
	NoAt    float64 `json:"no_at"`
	Seed    uint64  `json:"seed,omitempty"`
	Command string  `json:"command,omitempty"`
	File    string  `json:"file,omitempty"`
	Probes  int     `json:"probes"`
}

// LockDelayCost is what the lock-delay costs an algorithm in a run
// without faults: the share of wanted time nobody held the lease, and
// leases per second, without and with it (means over the seeds).
type LockDelayCost struct {
	Algo           string  `json:"algo"`
	BlockedWithout float64 `json:"blocked_fraction_without"`
	BlockedWith    float64 `json:"blocked_fraction_with"`
}

// outcomes of the frontier, in the order the chart shows them.
var outcomes = []struct{ key, label string }{
	{"two", "two holders"},
	{"stale-plain", "stale write, plain store"},
	{"stale-fenced", "stale write, fenced store"},
}

func outcomeLabel(key string) string {
	for _, o := range outcomes {
		if o.key == key {
			return o.label
		}
	}
	return key
}

// gridPoints is how many magnitudes from Lo to Hi a search scans before it
// bisects.
const gridPoints = 8

// frontierSearch runs one frontier experiment's searches.
type frontierSearch struct {
	r       *Report
	def     FrontierDef
	base    runner.Spec
	seeds   int
	steps   int
	workers int
	run     RunFunc
	mu      sync.Mutex
	cache   map[string]runner.Result
	runs    int
	onRun   func()
}

// runFrontier searches every point of r's frontier and measures the
// lock-delay's cost.
func (eng *engine) runFrontier(r *Report, onRun func()) {
	start := time.Now()
	def := *r.Exp.FrontierDef
	fs := &frontierSearch{r: r, def: def, base: r.Exp.Base, seeds: def.Seeds, steps: def.Steps,
		workers: eng.workers(), run: eng.run, cache: map[string]runner.Result{}, onRun: onRun}
	if r.Exp.Quick {
		fs.seeds, fs.steps = def.QuickSeeds, def.QuickSteps
	}
	if r.Exp.NReps != fs.seeds && r.Exp.NReps > 0 {
		fs.seeds = r.Exp.NReps // --seeds
	}
	for _, algo := range def.Algos {
		for _, a := range def.Assumptions {
			fs.searchAll(algo, 0, a)
			if a.Paused && def.LockDelay > 0 {
				fs.searchAll(algo, def.LockDelay, a)
			}
		}
		if def.LockDelay > 0 {
			r.LockDelay = append(r.LockDelay, fs.lockDelayCost(algo))
		}
	}
	r.Wall = time.Since(start)
	r.FrontierRuns = fs.runs
}

// seriesName is the chart's series of algo with lock-delay d: the
// algorithm's CLI name, as every chart spells it (so it keeps its colour).
func seriesName(algo string, d time.Duration) string {
	if d == 0 {
		return algo
	}
	return fmt.Sprintf("%s (lock-delay %v)", algo, d)
}

// searchAll finds the three outcomes' points of algo under a (a fenced
// search only where the plain store showed a stale write: a write stale
// under the fenced store is stale under the plain one too).
func (fs *frontierSearch) searchAll(algo string, lockDelay time.Duration, a Assumption) {
	spec := fs.base
	spec.Algo, spec.LockDelay = algo, lockDelay
	alg, err := algorithms.Lookup(algo)
	if err != nil {
		fs.r.Failed++
		return
	}
	lo, hi := a.Lo(spec), a.Hi(spec)
	var plain FrontierPoint
	for _, o := range outcomes {
		bound, why := a.Bound(spec, alg, o.key)
		if a.Paused && lockDelay > 0 && !math.IsNaN(bound) {
			bound += float64(lockDelay)
			why += ", plus the lock-delay"
		}
		p := FrontierPoint{Series: seriesName(algo, lockDelay), Algo: algo, Assumption: a.Name, Outcome: o.key, Unit: a.Unit,
			Bound: jnum(bound * a.Scale), BoundWhy: why, Lo: lo * a.Scale, Hi: hi * a.Scale, X: jnum(math.NaN())}
		switch {
		case o.key == "stale-fenced" && !plain.Found:
			p.Probes = 0 // nothing stale with a plain store: nothing with a fenced one
		case lockDelay > 0 && o.key == "stale-fenced":
			continue // the lock-delay series shows what it changes: believers and plain stale writes
		default:
			fs.bisect(&p, spec, a, o.key, lo, hi)
		}
		if o.key == "stale-plain" {
			plain = p
		}
		fs.r.FrontierPoints = append(fs.r.FrontierPoints, p)
	}
}

// bisect finds p's point: the smallest x in [lo, hi] at which a probe
// shows outcome. It scans a log-spaced grid of gridPoints from lo up to
// the first magnitude that shows it (a violation too large can stop the
// protocol altogether and show nothing, so hi alone says little), then
// halves the bracket below that one steps times.
func (fs *frontierSearch) bisect(p *FrontierPoint, spec runner.Spec, a Assumption, outcome string, lo, hi float64) {
	found, fseed, no := math.NaN(), uint64(0), 0.0
	for i := 0; i < gridPoints; i++ {
		x := lo * math.Pow(hi/lo, float64(i)/float64(gridPoints-1))
		p.Probes++
		if ok, seed := fs.probe(spec, a, outcome, x); ok {
			found, fseed = x, seed
			break
		}
		no = x
	}
	if math.IsNaN(found) {
		return
	}
	if no > 0 {
		for i := 0; i < fs.steps; i++ {
			m := math.Sqrt(no * found)
			p.Probes++
			if ok, seed := fs.probe(spec, a, outcome, m); ok {
				found, fseed = m, seed
			} else {
				no = m
			}
		}
		p.NoAt = no * a.Scale
	}
	p.Found, p.X, p.Seed = true, jnum(found*a.Scale), fseed
	s := fs.probeSpec(spec, a, outcome, found, fseed)
	p.Command = runCommand(s)
	p.File = filepath.Join("frontier", fmt.Sprintf("%s_%s_%s.sh", strings.ReplaceAll(p.Series, " ", ""), a.Name, outcome))
	p.File = strings.NewReplacer("(", "_", ")", "", ":", "").Replace(p.File)
}

// probeSpec is the spec of one run of a probe.
func (fs *frontierSearch) probeSpec(spec runner.Spec, a Assumption, outcome string, x float64, seed uint64) runner.Spec {
	s := spec
	a.Set(&s, x)
	s.Seed = seed
	s.Store = "plain"
	if outcome == "stale-fenced" {
		s.Store = "fenced"
	}
	return s
}

// shows reports whether res shows outcome under assumption a.
func shows(res runner.Result, a Assumption, outcome string) bool {
	switch outcome {
	case "two":
		return res.Violations > 0 || a.Paused && res.DoubleBeliefMS > 0
	default:
		return res.StaleWrites > 0
	}
}

// probe runs the seeds of one probe at x and returns whether any showed
// outcome, and the lowest seed that did.
func (fs *frontierSearch) probe(spec runner.Spec, a Assumption, outcome string, x float64) (bool, uint64) {
	res := make([]runner.Result, fs.seeds)
	errs := make([]error, fs.seeds)
	pool.Pool{Workers: fs.workers}.Run(fs.seeds, func(_, i int) {
		res[i], errs[i] = fs.result(fs.probeSpec(spec, a, outcome, x, uint64(i+1)))
	}, nil)
	for i := range res {
		if errs[i] != nil {
			fs.mu.Lock()
			fs.r.Failed++
			fs.r.FrontierErrors = append(fs.r.FrontierErrors, errs[i].Error())
			fs.mu.Unlock()
			continue
		}
		if shows(res[i], a, outcome) {
			return true, uint64(i + 1)
		}
	}
	return false, 0
}

// result runs s, or returns the result of the identical run made before
// (the plain-store runs serve both "two" and "stale-plain").
func (fs *frontierSearch) result(s runner.Spec) (runner.Result, error) {
	key := specKey(s, false)
	fs.mu.Lock()
	r, ok := fs.cache[key]
	fs.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := fs.run(s, runner.Options{})
	if err != nil {
		return r, err
	}
	r = sanitizeResult(r)
	fs.mu.Lock()
	fs.cache[key] = r
	fs.runs++
	fs.mu.Unlock()
	if fs.onRun != nil {
		fs.onRun()
	}
	return r, nil
}

// lockDelayCost measures the lock-delay's cost to algo in runs without
// faults: the mean over the seeds of the share of wanted time nobody held
// (by the clients' leases: with the delay, the end of every lease that
// expires is D nobody may use). Leases per second would mislead: a client
// whose lease ended early by the delay asks again, and an algorithm
// whose acceptors still hold its lease hands it back at once.
func (fs *frontierSearch) lockDelayCost(algo string) LockDelayCost {
	c := LockDelayCost{Algo: algo}
	for _, d := range []time.Duration{0, fs.def.LockDelay} {
		var blocked float64
		n := 0
		for seed := 1; seed <= fs.seeds; seed++ {
			s := fs.base
			s.Algo, s.LockDelay, s.Seed = algo, d, uint64(seed)
			r, err := fs.result(s)
			if err != nil {
				fs.r.Failed++
				continue
			}
			blocked += r.BlockedFraction
			n++
		}
		if n == 0 {
			continue
		}
		if d == 0 {
			c.BlockedWithout = blocked / float64(n)
		} else {
			c.BlockedWith = blocked / float64(n)
		}
	}
	return c
}

// runCommand is the `leaselab run` command line that runs s: every
// parameter whose value differs from the default, and the algorithm,
// workload and seed always, from the parameter table.
func runCommand(s runner.Spec) string {
	def := runner.DefaultSpec()
	args := []string{"leaselab", "run"}
	for _, p := range runner.Params() {
		v := p.Format(s)
		if v == p.Format(def) && p.Name != "algo" && p.Name != "workload" && p.Name != "seed" {
			continue
		}
		args = append(args, "--"+p.Name+"="+v)
	}
	return strings.Join(append(args, "--format", "json"), " ")
}

// counterexample is the file that replays point p.
func (p FrontierPoint) counterexample() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n# leaselab frontier counterexample: %s, %s %s: %s\n", p.Series, p.Assumption, p.xText(), outcomeLabel(p.Outcome))
	what := "\"violations\" > 0"
	switch {
	case p.Outcome != "two":
		what = "\"stale_writes\" > 0"
	case p.Assumption == "pause":
		what = "\"double_belief_ms\" > 0"
	}
	fmt.Fprintf(&b, "# the run below (seed %d) shows %s; found by bisection, the smallest violation that did\n", p.Seed, what)
	fmt.Fprintf(&b, "%s \"$@\"\n", p.Command)
	return b.Bytes()
}

// xText writes p's point in its unit.
func (p FrontierPoint) xText() string {
	if !p.Found {
		return "none up to " + valueText(p.Hi, p.Unit)
	}
	return valueText(float64(p.X), p.Unit)
}

func valueText(v float64, unit string) string {
	if unit == "" {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + unit
}

// frontierFiles writes the frontier's CSV, JSON and counterexamples.
func (r *Report) frontierFiles(write func(string, []byte) error) error {
	rows := [][]string{{"series", "algo", "assumption", "outcome", "unit", "bound", "found", "x", "no_at", "lo", "hi", "seed", "probes", "counterexample"}}
	for _, p := range r.FrontierPoints {
		rows = append(rows, []string{p.Series, p.Algo, p.Assumption, p.Outcome, p.Unit, num(float64(p.Bound)), strconv.FormatBool(p.Found),
			num(float64(p.X)), num(p.NoAt), num(p.Lo), num(p.Hi), strconv.FormatUint(p.Seed, 10), strconv.Itoa(p.Probes), p.File})
		if p.Found {
			if err := write(p.File, p.counterexample()); err != nil {
				return err
			}
		}
	}
	if err := write(r.Exp.Name+".csv", csvBytes(rows)); err != nil {
		return err
	}
	js, err := json.MarshalIndent(struct {
		Meta        *runner.Meta    `json:"meta,omitempty"`
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Base        runner.Spec     `json:"base"`
		Seeds       int             `json:"seeds_per_probe"`
		Runs        int             `json:"runs"`
		Points      []FrontierPoint `json:"points"`
		LockDelayMS float64         `json:"lock_delay_ms,omitempty"`
		LockDelay   []LockDelayCost `json:"lock_delay,omitempty"`
		Findings    []string        `json:"findings"`
	}{r.Meta, r.Exp.Name, r.Exp.Title, r.Exp.Base, r.frontierSeeds(), r.FrontierRuns, r.FrontierPoints,
		float64(r.Exp.FrontierDef.LockDelay) / 1e6, r.LockDelay, r.frontierFindings()}, "", "  ")
	if err != nil {
		return err
	}
	return write(r.Exp.Name+".json", append(js, '\n'))
}

func (r *Report) frontierSeeds() int {
	d := r.Exp.FrontierDef
	if r.Exp.Quick {
		return d.QuickSeeds
	}
	return d.Seeds
}

// frontierFigure is one panel per assumption: per series, a bar for the
// bound and one per outcome found (the magnitude at which it appeared).
func (r *Report) frontierFigure() plots.Figure {
	var panels []plots.Panel
	var notes []string
	for _, a := range r.Exp.FrontierDef.Assumptions {
		bc := plots.BarChart{Title: a.Name, YLabel: a.Label, ValueLabels: true, LogY: true}
		none := map[string][]string{}
		var hi string
		for _, p := range r.FrontierPoints {
			if p.Assumption != a.Name {
				continue
			}
			if p.Outcome == "two" && !math.IsNaN(float64(p.Bound)) && p.Bound > 0 {
				bc.Bars = append(bc.Bars, plots.Bar{Group: p.Series, Label: barLabel(p, "bound"), Value: float64(p.Bound), Lo: math.NaN(), Hi: math.NaN()})
			}
			if !p.Found {
				if p.Probes > 0 {
					none[p.Outcome] = append(none[p.Outcome], p.Series)
					hi = valueText(p.Hi, p.Unit)
				}
				continue
			}
			bc.Bars = append(bc.Bars, plots.Bar{Group: p.Series, Label: barLabel(p, shortOutcome(p.Outcome)), Value: float64(p.X), Lo: math.NaN(), Hi: math.NaN()})
		}
		for _, o := range outcomes {
			if len(none[o.key]) > 0 {
				notes = append(notes, fmt.Sprintf("%s, %s: none up to %s for %s", a.Name, o.label, hi, strings.Join(none[o.key], ", ")))
			}
		}
		if len(bc.Bars) == 0 {
			bc.Bars = []plots.Bar{{Group: "none", Label: "nothing found", Value: 0, Lo: math.NaN(), Hi: math.NaN()}}
		}
		panels = append(panels, bc)
	}
	for _, c := range r.LockDelay {
		notes = append(notes, fmt.Sprintf("lock-delay %v costs %s: nobody held %.1f%% -> %.1f%% of wanted time (no faults)",
			r.Exp.FrontierDef.LockDelay, c.Algo, 100*c.BlockedWithout, 100*c.BlockedWith))
	}
	return plots.Figure{Title: r.Exp.Title, Panels: panels, Cols: 2, PanelWidth: 6.4 * vg.Inch, PanelHeight: 3.6 * vg.Inch,
		Notes: append([]string{r.frontierProvenance()}, notes...)}
}

// barLabel names a bar of point p: what it shows, and the lock-delay of
// its series (the colours and the legend name the algorithm).
func barLabel(p FrontierPoint, what string) string {
	if strings.Contains(p.Series, "lock-delay") {
		return what + " +LD"
	}
	return what
}

func shortOutcome(o string) string {
	switch o {
	case "two":
		return "2 holders"
	case "stale-plain":
		return "stale, plain"
	case "stale-fenced":
		return "stale, fenced"
	}
	return o
}

func (r *Report) frontierProvenance() string {
	return fmt.Sprintf("smallest violation found by bisection with %d seeds per probe (an upper bound on the true frontier); bars: the bound the argument gives, then each outcome; %d runs",
		r.frontierSeeds(), r.FrontierRuns)
}

// frontierMarkdown is the frontier's section of the report.
func (r *Report) frontierMarkdown(w func(format string, a ...any), table func([]string, [][]string) error) error {
	var rows [][]string
	for _, p := range r.FrontierPoints {
		bound := "not assumed"
		if !math.IsNaN(float64(p.Bound)) {
			bound = valueText(float64(p.Bound), p.Unit) + " (" + p.BoundWhy + ")"
		}
		found := p.xText()
		if p.Found && p.NoAt == 0 {
			found = "≤ " + found + " (the lowest probed)"
		}
		if p.Probes == 0 {
			found = "not searched (none with a plain store)"
		}
		cx := ""
		if p.File != "" {
			cx = fmt.Sprintf("[%s](%s)", filepath.Base(p.File), p.File)
		}
		rows = append(rows, []string{p.Series, p.Assumption, outcomeLabel(p.Outcome), bound, found, cx})
	}
	if err := table([]string{"series", "assumption", "outcome", "bound (argument)", "smallest violation found", "counterexample"}, rows); err != nil {
		return err
	}
	w("\n")
	if len(r.LockDelay) > 0 {
		var lr [][]string
		for _, c := range r.LockDelay {
			lr = append(lr, []string{c.Algo, fmt.Sprintf("%.1f%% → %.1f%%", 100*c.BlockedWithout, 100*c.BlockedWith)})
		}
		w("What lock-delay %v costs in a run without faults (means over %d seeds):\n\n", r.Exp.FrontierDef.LockDelay, r.frontierSeeds())
		if err := table([]string{"algorithm", "wanted time nobody held, without → with"}, lr); err != nil {
			return err
		}
		w("\n")
	}
	return nil
}

// point finds the frontier point of series, assumption and outcome.
func (r *Report) point(series, assumption, outcome string) (FrontierPoint, bool) {
	for _, p := range r.FrontierPoints {
		if p.Series == series && p.Assumption == assumption && p.Outcome == outcome {
			return p, true
		}
	}
	return FrontierPoint{}, false
}

// frontierFindings states what the search found, from its points.
func (r *Report) frontierFindings() []string {
	var out []string
	def := r.Exp.FrontierDef
	for _, a := range def.Assumptions {
		var found, none []string
		for _, algo := range def.Algos {
			p, ok := r.point(seriesName(algo, 0), a.Name, "two")
			if !ok {
				continue
			}
			if !p.Found {
				none = append(none, algo)
				continue
			}
			s := fmt.Sprintf("%s at %s", algo, p.xText())
			if b := float64(p.Bound); !math.IsNaN(b) && b > 0 {
				s += fmt.Sprintf(" (%.3g× its bound %s)", float64(p.X)/b, valueText(b, p.Unit))
			}
			found = append(found, s)
		}
		line := fmt.Sprintf("%s: two holders", a.Label)
		if a.Paused {
			line = fmt.Sprintf("%s: two nodes believing they hold", a.Label)
		}
		switch {
		case len(found) > 0 && len(none) > 0:
			line += " for " + strings.Join(found, ", ") + "; none up to the search's end for " + strings.Join(none, ", ")
		case len(found) > 0:
			line += " for " + strings.Join(found, ", ")
		default:
			line += ": none up to the search's end for any algorithm"
		}
		out = append(out, line+".")
		var stale, fenced []string
		for _, algo := range def.Algos {
			if p, ok := r.point(seriesName(algo, 0), a.Name, "stale-plain"); ok && p.Found {
				stale = append(stale, fmt.Sprintf("%s at %s", algo, p.xText()))
			}
			if p, ok := r.point(seriesName(algo, 0), a.Name, "stale-fenced"); ok && p.Found {
				fenced = append(fenced, fmt.Sprintf("%s at %s", algo, p.xText()))
			}
		}
		if len(stale) > 0 {
			l := fmt.Sprintf("%s: stale writes with a plain store for %s", a.Label, strings.Join(stale, ", "))
			if len(fenced) == 0 {
				l += "; with a fenced store none: every algorithm's token grew from one holder to the next in these runs"
			} else {
				l += "; with a fenced store still for " + strings.Join(fenced, ", ") + ": a token that did not grow (see its counterexample)"
			}
			out = append(out, l+".")
		}
	}
	for _, c := range r.LockDelay {
		for _, a := range def.Assumptions {
			if !a.Paused {
				continue
			}
			p0, ok0 := r.point(seriesName(c.Algo, 0), a.Name, "two")
			p1, ok1 := r.point(seriesName(c.Algo, def.LockDelay), a.Name, "two")
			if !ok0 || !ok1 || !p0.Found || !p1.Found {
				continue
			}
			out = append(out, fmt.Sprintf("lock-delay %v moves %s's pause frontier (two believers) from %s to %s, and costs %.1f points of "+
				"wanted time nobody held without faults (%.1f%% → %.1f%%).",
				def.LockDelay, c.Algo, p0.xText(), p1.xText(), 100*(c.BlockedWith-c.BlockedWithout), 100*c.BlockedWithout, 100*c.BlockedWith))
		}
	}
	return out
}

// resolveFrontier resolves a frontier experiment: nothing to sweep; its
// base spec must run for every algorithm, and the seeds per probe are
// --seeds when given.
func (e Experiment) resolveFrontier(opt Options) (Resolved, error) {
	if err := e.checkShape(); err != nil {
		return Resolved{}, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	if opt.Seeds < 0 {
		return Resolved{}, fmt.Errorf("seeds must not be negative, got %d", opt.Seeds)
	}
	r := Resolved{Experiment: e, Env: e.Envs[0], Quick: opt.Quick, Values: []float64{math.NaN()}}
	r.NReps = opt.Seeds
	if opt.Env != "" && opt.Env != r.Env {
		r.EnvNote = fmt.Sprintf("%s runs only in %s; --env %s was not applied to it", e.Name, strings.Join(e.Envs, ", "), opt.Env)
	}
	r.Notes = append([]string{}, e.Notes...)
	r.Facets = []Facet{{Name: ""}}
	for _, algo := range e.FrontierDef.Algos {
		s := e.Base
		s.Algo = algo
		if err := s.Validate(); err != nil {
			return Resolved{}, fmt.Errorf("experiment %s, %s: %w", e.Name, algo, err)
		}
	}
	return r, nil
}

// frontierRunsEstimate is about how many runs r's searches make, for
// progress: every bisection in full, half the fenced ones.
func (r Resolved) frontierRunsEstimate() int {
	d := r.FrontierDef
	seeds, steps := d.Seeds, d.Steps
	if r.Quick {
		seeds, steps = d.QuickSeeds, d.QuickSteps
	}
	if r.NReps > 0 {
		seeds = r.NReps
	}
	per := 0
	for _, a := range d.Assumptions {
		n := 2
		if a.Paused && d.LockDelay > 0 {
			n = 4
		}
		per += n * (gridPoints/2 + steps) * seeds
	}
	return len(d.Algos) * (per + 2*seeds)
}

// frontierSection is the frontier's part of report.md.
func (r *Report) frontierSection(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	e := r.Exp
	s := e.Base
	p("*Setup:* the %s workload, %d acceptors and %d proposers, T = %v, M = %v, d_max = %v, drift-bound ρ = %g, "+
		"contention clients that let their leases expire, each holder writing every %v (after a check that the lease had that long to run); "+
		"%v of simulated time per run, %d seeds per probe, %d runs in all.\n\n",
		s.Workload, s.Acceptors, s.Proposers, s.Params.LeaseSpan, s.Params.MaxLease, s.Params.DMax, s.Params.Drift, s.Writes, s.Duration,
		r.frontierSeeds(), r.FrontierRuns)
	p("![%s](%s.png)\n\n", e.Name, e.Name)
	var links []string
	for _, f := range r.Files {
		if !strings.HasPrefix(f, "frontier/") {
			links = append(links, fmt.Sprintf("[%s](%s)", f, f))
		}
	}
	p("Files: %s; one counterexample per point found in frontier/ (a `leaselab run` command that reproduces it).\n\n", strings.Join(links, " · "))
	if err := r.frontierMarkdown(p, func(h []string, rows [][]string) error { return mdTable(w, h, rows) }); err != nil {
		return err
	}
	if fs := r.frontierFindings(); len(fs) > 0 {
		p("### What this run shows (computed from its results)\n\n")
		for _, f := range fs {
			p("- %s\n", f)
		}
		p("\n")
	}
	if len(e.Notes) > 0 {
		p("### How the search works, and what it cannot show\n\n")
		for _, n := range e.Notes {
			p("- %s\n", n)
		}
		p("\n")
	}
	if r.Failed > 0 {
		p("### Failed runs\n\n")
		for i, msg := range r.FrontierErrors {
			if i == 10 {
				p("- … and %d more\n", len(r.FrontierErrors)-i)
				break
			}
			p("- %s\n", msg)
		}
		p("\n")
	}
	return nil
}

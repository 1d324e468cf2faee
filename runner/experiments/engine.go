package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/internal/pool"
)

// RunFunc runs one spec: runner.Run in production, a fake in tests.
type RunFunc func(runner.Spec, runner.Options) (runner.Result, error)

// Config says how to run a reproduction.
type Config struct {
	Options
	// Out is the directory for every file (created if missing).
	Out string
	// Workers running at once (0: GOMAXPROCS). Runs in the udp
	// environment always run alone, because they measure real time.
	Workers int
	// Run runs one spec (nil: runner.Run).
	Run RunFunc
	// Peer runs one spec of a peer's variant (nil: runPeer, which needs
	// the peer built in).
	Peer func(peer string, s runner.Spec) (runner.Result, error)
	// Progress, if set, is called from the calling goroutine after each
	// run and each experiment written.
	Progress func(Progress)
	// Command is the command line shown in the report.
	Command string
	// Stop, when closed, starts no further run and cuts the runs in
	// flight short (runner.Options.Stop; the udp environment removes its
	// log directories as it ends). The experiments finished by then are
	// written; Reproduce returns them and ErrInterrupted, and writes no
	// report.
	Stop <-chan struct{}
	// Meta, if set, is the provenance written into every experiment's JSON,
	// into report.md and, for the CSV files, into meta.json beside them
	// (a sidecar, so that the CSV files of a simulated run stay identical
	// from one invocation to the next).
	Meta *runner.Meta
}

// Progress is the state of a reproduction.
type Progress struct {
	Experiment string // the experiment of the run that just finished
	Done       int    // runs finished, over all experiments
	Total      int
	Elapsed    time.Duration
	// Estimate is the expected total wall time, known once the
	// calibration runs (the first and the middle sweep value of every
	// series) are done; 0 before. Remaining is Estimate - Elapsed, rescaled by how the runs so
	// far compared with their estimate.
	Estimate, Remaining time.Duration
	// Calibrated is true on the one call that first carries Estimate.
	Calibrated bool
	// Wrote lists files of an experiment that was just written.
	Wrote []string
}

// RunRecord is one run: where it sits in the experiment, and what it gave.
type RunRecord struct {
	Facet, Variant, Algo string
	Peer                 string // set for a peer's run (Variant.Peer)
	Ablate               algorithms.Ablations
	Env                  string
	Point                Point
	Rep                  int
	Seed                 uint64
	Result               runner.Result
	Err                  string
	Wall                 time.Duration
	// Shared: the result is that of an identical spec run for another
	// experiment (its wall time is counted there).
	Shared bool
	// timeline: what the run's trace showed of holds and faults (an
	// experiment with Trace set; nil otherwise).
	timeline *TimelineTrace
}

// Agg is the statistics of one meter at one point.
type Agg struct {
	Facet, Variant string
	XI             int
	X              float64
	Meter          string
	Stat           Stat
}

// Report is everything one experiment produced.
type Report struct {
	Exp         Resolved
	Runs        []RunRecord // in the fixed order of Points, then repetition
	Summary     []Agg       // in the order of Points, then meter
	Comparisons []Comparison
	Timelines   []TimelineRun
	Chains      []ChainRow
	Files       []string
	Wall        time.Duration // wall time of its runs, summed
	Failed      int           // runs that returned an error
	Meta        *runner.Meta  // provenance (Config.Meta)
	// A frontier's points, the lock-delay's cost, its runs and errors
	// (frontier.go).
	FrontierPoints []FrontierPoint
	LockDelay      []LockDelayCost
	FrontierRuns   int
	FrontierErrors []string
}

// MetaFile is the sidecar beside the CSV files that says where they came
// from (runner.Meta as JSON).
const MetaFile = "meta.json"

// ErrRunsFailed is returned (wrapped) when some runs failed; every file was
// still written, and the report lists the failures.
var ErrRunsFailed = errors.New("some runs failed")

// ErrInterrupted is returned when Config.Stop ended a reproduction.
var ErrInterrupted = errors.New("interrupted")

// Select returns the experiments named in names (all if names is empty),
// in the fixed order of All; an unknown name is an error that lists the
// valid ones.
func Select(names []string) ([]Experiment, error) {
	all := All()
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		found := false
		for _, e := range all {
			if e.Name == n {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown experiment %q (valid: %s)", n, strings.Join(Names(), ", "))
		}
		want[n] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no experiment named (valid: %s)", strings.Join(Names(), ", "))
	}
	var out []Experiment
	for _, e := range all {
		if want[e.Name] {
			out = append(out, e)
		}
	}
	return out, nil
}

// Names lists the experiments in their fixed order.
func Names() []string {
	var ns []string
	for _, e := range All() {
		ns = append(ns, e.Name)
	}
	return ns
}

type job struct {
	exp       int
	point     Point
	rep       int
	spec      runner.Spec
	calib     bool // first run of its series: measured for the estimate
	exclusive bool // runs alone (udp: real time)
	// dupOf is the job with the same spec whose result this one shares
	// (-1: none): fig9 plots other meters of fig5's runs (in either
	// environment), and a deterministic simulator would only repeat itself.
	dupOf int
	dups  []int
	rec   RunRecord
}

type engine struct {
	cfg     Config
	run     RunFunc
	peer    func(string, runner.Spec) (runner.Result, error)
	reports []*Report
	jobs    []job
	left    []int // per experiment: runs not finished
}

// Reproduce runs exps and writes their files into cfg.Out: for each
// experiment NAME.csv (one row per run), NAME_summary.csv (mean and 95%
// interval per point), NAME.json, NAME.png and NAME.svg, and at the end
// report.md. An experiment's files are written as soon as its runs are
// done. Failed runs do not stop the others: Reproduce then returns the
// reports and an error wrapping ErrRunsFailed.
func Reproduce(exps []Experiment, cfg Config) ([]*Report, error) {
	if len(exps) == 0 {
		return nil, errors.New("no experiments to run")
	}
	if cfg.Out == "" {
		return nil, errors.New("no output directory")
	}
	eng := &engine{cfg: cfg, run: cfg.Run}
	if eng.run == nil {
		eng.run = runner.Run
	}
	eng.peer = cfg.Peer
	if eng.peer == nil {
		eng.peer = runPeer
	}
	names := map[string]bool{}
	for _, e := range exps {
		if names[e.Name] {
			return nil, fmt.Errorf("experiment %s selected twice", e.Name)
		}
		names[e.Name] = true
		r, err := e.Resolve(cfg.Options)
		if err != nil {
			return nil, err
		}
		eng.reports = append(eng.reports, &Report{Exp: r, Meta: cfg.Meta})
	}
	if cfg.Env != "" {
		applied := false
		for _, r := range eng.reports {
			if r.Exp.EnvNote == "" {
				applied = true
			}
		}
		if !applied {
			return nil, fmt.Errorf("none of the selected experiments can run in environment %q", cfg.Env)
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	if cfg.Meta != nil {
		b, err := json.MarshalIndent(cfg.Meta, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(filepath.Join(cfg.Out, MetaFile), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	eng.plan()
	if err := eng.execute(); err != nil {
		if errors.Is(err, ErrInterrupted) {
			var done []*Report
			for _, r := range eng.reports {
				if r.Files != nil {
					done = append(done, r)
				}
			}
			return done, err
		}
		return eng.reports, err
	}
	path, err := WriteReport(cfg.Out, eng.reports, cfg)
	if err != nil {
		return eng.reports, err
	}
	eng.progress(Progress{Wrote: []string{path}})
	failed := 0
	for _, r := range eng.reports {
		failed += r.Failed
	}
	if failed > 0 {
		return eng.reports, fmt.Errorf("%d of %d runs: %w (see %s)", failed, len(eng.jobs), ErrRunsFailed, path)
	}
	return eng.reports, nil
}

// Plan returns the number of runs exps make with opt, for messages.
func Plan(exps []Experiment, opt Options) (int, error) {
	n := 0
	for _, e := range exps {
		r, err := e.Resolve(opt)
		if err != nil {
			return 0, err
		}
		n += len(r.Points()) * r.NReps
		if d := r.FrontierDef; d != nil {
			n += r.frontierRunsEstimate()
		}
	}
	return n, nil
}

func (eng *engine) plan() {
	eng.left = make([]int, len(eng.reports))
	first := map[string]int{}
	for ei, r := range eng.reports {
		// Calibration runs: repetition 0 at the smallest and at the middle
		// sweep value of every series; the two give the estimate its slope.
		for _, p := range r.Exp.Points() {
			mid := len(r.Exp.ValuesOf(p.Facet)) / 2
			for rep := 0; rep < r.Exp.NReps; rep++ {
				spec, _ := r.Exp.Spec(p, rep) // validated by Resolve
				// Peer runs measure real time too: they run alone.
				peer := r.Exp.Variants[p.Variant].Peer != ""
				j := job{exp: ei, point: p, rep: rep, spec: spec, exclusive: spec.Env == "udp" || peer, dupOf: -1}
				j.calib = rep == 0 && (p.XI == 0 || p.XI == mid)
				id := specKey(spec, r.Exp.Trace)
				// An identical spec is run once and shared. In the
				// simulator a second run would only repeat the first. Over
				// real UDP it would be a new measurement, so only another
				// experiment shares it: fig9 plots the disk meters of the
				// very runs whose throughput fig5 shows.
				if o, ok := first[id]; ok && (spec.Env == "sim" || eng.jobs[o].exp != ei) {
					j.dupOf = o
					eng.jobs[o].dups = append(eng.jobs[o].dups, len(eng.jobs))
				} else {
					first[id] = len(eng.jobs)
				}
				eng.jobs = append(eng.jobs, j)
				eng.left[ei]++
			}
		}
	}
}

// specKey identifies a run: its full spec and whether it keeps a trace.
func specKey(s runner.Spec, trace bool) string {
	b, _ := json.Marshal(s) // a Spec always marshals
	return fmt.Sprintf("%t %s", trace, b)
}

// describe fills the parts of j's record that say where it sits.
func (eng *engine) describe(j *job) {
	v := eng.reports[j.exp].Exp.Variants[j.point.Variant]
	j.rec = RunRecord{
		Facet: eng.reports[j.exp].Exp.Facets[j.point.Facet].Name, Variant: v.Name, Algo: j.spec.Algo, Peer: v.Peer,
		Ablate: j.spec.Ablate, Env: j.spec.Env, Point: j.point, Rep: j.rep, Seed: j.spec.Seed,
	}
}

// runOne runs job j, turning a panic of the run function into an error so
// one bad run does not lose a long campaign.
func (eng *engine) runOne(j *job) {
	eng.describe(j)
	opt := runner.Options{Stop: eng.cfg.Stop}
	if eng.reports[j.exp].Exp.Trace {
		j.rec.timeline = &TimelineTrace{}
		opt.Observers = []runner.Observer{j.rec.timeline}
	}
	start := time.Now()
	func() {
		defer func() {
			if p := recover(); p != nil {
				j.rec.Err = fmt.Sprintf("run panicked: %v", p)
			}
		}()
		var res runner.Result
		var err error
		if j.rec.Peer != "" {
			res, err = eng.peer(j.rec.Peer, j.spec)
		} else {
			res, err = eng.run(j.spec, opt)
		}
		j.rec.Result = res
		if err != nil {
			j.rec.Err = err.Error()
		}
	}()
	j.rec.Wall = time.Since(start)
}

func (eng *engine) workers() int { return pool.Pool{Workers: eng.cfg.Workers}.Size() }

// execute runs the calibration runs first, then the rest, and writes each
// experiment's files when its last run is done. The order in which runs
// finish does not matter: every result lands in its job's slot.
func (eng *engine) execute() error {
	calib, rest := eng.order()
	x := &execution{eng: eng, start: time.Now()}
	eng.dispatch(calib, x.finish)
	if eng.stopped() {
		return ErrInterrupted
	}
	x.calibrate(calib)
	eng.dispatch(rest, x.finish)
	if eng.stopped() {
		return ErrInterrupted
	}
	x.runFrontiers()
	if eng.stopped() {
		return ErrInterrupted
	}
	return x.firstErr
}

// order splits the jobs that run (not the shared ones) into calibration
// runs and the rest, the rest in the order they are to run.
func (eng *engine) order() (calib, rest []int) {
	for i, j := range eng.jobs {
		if j.dupOf >= 0 {
			continue // finished with the job it shares
		}
		if j.calib || eng.hasCalibDup(i) {
			calib = append(calib, i)
		} else {
			rest = append(rest, i)
		}
	}
	// Runs in real time (udp) go repetition by repetition: rep 0 of every
	// point of an experiment, then rep 1, and so on. The load of a shared
	// machine drifts over seconds; with the repetitions of one point back
	// to back, a drift would shift that whole point and its interval would
	// not show it. Simulated runs keep their order (their results do not
	// depend on when they run).
	repKey := func(i int) int {
		if eng.jobs[i].exclusive {
			return eng.jobs[i].rep
		}
		return 0
	}
	sort.Slice(rest, func(a, b int) bool {
		ia, ib := rest[a], rest[b]
		if ea, eb := eng.jobs[ia].exp, eng.jobs[ib].exp; ea != eb {
			return ea < eb
		}
		if ra, rb := repKey(ia), repKey(ib); ra != rb {
			return ra < rb
		}
		return ia < ib
	})
	return calib, rest
}

// execution is the bookkeeping of one execute: how many runs are done,
// the estimate once the calibration runs are, and the first error writing
// an experiment's files. The pool reports finished runs one at a time,
// so its methods need no lock.
type execution struct {
	eng        *engine
	start      time.Time
	done       int
	estimate   time.Duration   // the whole campaign's (0 until calibrated)
	estWork    time.Duration   // the summed estimate of every run
	estOf      []time.Duration // per job, once calibrated
	estDone    time.Duration   // estimated cost of the runs done so far
	actualDone time.Duration   // measured cost of the runs done so far
	firstErr   error
}

// finish records that job i ran, and the jobs that share its result.
func (x *execution) finish(i int) {
	eng := x.eng
	x.finishOne(i)
	for _, d := range eng.jobs[i].dups {
		dj := &eng.jobs[d]
		eng.describe(dj)
		dj.rec.Result, dj.rec.Err, dj.rec.Wall, dj.rec.Shared = eng.jobs[i].rec.Result, eng.jobs[i].rec.Err, eng.jobs[i].rec.Wall, true
		x.finishOne(d)
	}
}

// finishOne counts job i done, shows progress, and writes its
// experiment's files when it was the experiment's last run.
func (x *execution) finishOne(i int) {
	eng := x.eng
	x.done++
	j := &eng.jobs[i]
	ei := j.exp
	if !j.rec.Shared {
		x.actualDone += j.rec.Wall
		if x.estOf != nil {
			x.estDone += x.estOf[i]
		}
	}
	eng.left[ei]--
	p := Progress{Experiment: eng.reports[ei].Exp.Name, Done: x.done, Total: len(eng.jobs),
		Elapsed: time.Since(x.start), Estimate: x.estimate}
	if x.estimate > 0 {
		p.Remaining = eng.remaining(x.estWork, x.estDone, x.actualDone)
	}
	eng.progress(p)
	if eng.left[ei] == 0 {
		files, err := eng.finishExperiment(ei)
		if err != nil && x.firstErr == nil {
			x.firstErr = err
		}
		eng.progress(Progress{Experiment: eng.reports[ei].Exp.Name, Done: x.done, Total: len(eng.jobs),
			Elapsed: time.Since(x.start), Estimate: x.estimate, Wrote: files})
	}
}

// calibrate estimates every run's cost from the calibration runs (calib,
// done) and the campaign's duration, and shows it.
func (x *execution) calibrate(calib []int) {
	eng := x.eng
	x.estOf = eng.estimate()
	for _, e := range x.estOf {
		x.estWork += e
	}
	// Parallel runs share the machine: the estimate divides the summed run
	// time by the workers (udp runs, which run alone, are not divided).
	var excl, par time.Duration
	for i, e := range x.estOf {
		if eng.jobs[i].exclusive {
			excl += e
		} else {
			par += e
		}
	}
	x.estimate = excl + par/time.Duration(eng.workers())
	if x.estimate < time.Since(x.start) {
		x.estimate = time.Since(x.start)
	}
	for _, i := range calib {
		x.estDone += x.estOf[i]
	}
	if x.estDone == 0 {
		x.estDone = 1 // all calibration runs took no measurable time
	}
	eng.progress(Progress{Done: x.done, Total: len(eng.jobs), Elapsed: time.Since(x.start), Estimate: x.estimate,
		Remaining: eng.remaining(x.estWork, x.estDone, x.actualDone), Calibrated: true})
}

// runFrontiers runs the frontier experiments, whose runs are chosen as
// they go (a search, not a planned sweep), after every planned run, and
// writes their files.
func (x *execution) runFrontiers() {
	eng := x.eng
	for ei, r := range eng.reports {
		if r.Exp.Kind != Frontier {
			continue
		}
		if eng.stopped() {
			return // execute says so
		}
		total := len(eng.jobs)
		for _, o := range eng.reports {
			if o.Exp.Kind == Frontier {
				total += o.Exp.frontierRunsEstimate()
			}
		}
		eng.runFrontier(r, func() {
			x.done++
			eng.progress(Progress{Experiment: r.Exp.Name, Done: x.done, Total: max(total, x.done), Elapsed: time.Since(x.start)})
		})
		files, err := r.WriteFiles(eng.cfg.Out)
		r.Files = files
		if err != nil && x.firstErr == nil {
			x.firstErr = err
		}
		eng.progress(Progress{Experiment: eng.reports[ei].Exp.Name, Done: x.done, Total: max(total, x.done), Elapsed: time.Since(x.start), Wrote: files})
	}
}

// remaining is the work not done yet by the estimate, rescaled by how the
// finished runs compared with their estimate, spread over the workers.
func (eng *engine) remaining(estWork, estDone, actualDone time.Duration) time.Duration {
	left := float64(estWork - estDone)
	if left < 0 || estDone <= 0 {
		return 0
	}
	left *= float64(actualDone) / float64(estDone)
	return time.Duration(left / float64(eng.workers()))
}

// estimate predicts each job's wall time from the calibration runs of
// its series (same experiment, facet and variant): with two of them, a
// power law in the parameter's cost weight through both (the simulator's
// work can grow faster than the batch once timeouts and retransmissions
// set in), or for real-time runs a line through both; with one,
// proportional to the weight.
func (eng *engine) estimate() []time.Duration {
	type key struct{ exp, facet, variant int }
	cal := map[key][]job{}
	for _, j := range eng.jobs {
		if j.calib {
			k := key{j.exp, j.point.Facet, j.point.Variant}
			cal[k] = append(cal[k], j)
		}
	}
	out := make([]time.Duration, len(eng.jobs))
	for i, j := range eng.jobs {
		if j.dupOf >= 0 {
			continue // costs nothing: it shares another run
		}
		cs := cal[key{j.exp, j.point.Facet, j.point.Variant}]
		if len(cs) == 0 {
			continue
		}
		param := eng.reports[j.exp].Exp.SweepOf(j.point.Facet).Param
		lo := cs[0]
		w := float64(lo.rec.Wall)
		if param != "" && j.exclusive && len(cs) > 1 {
			// A real-time run (udp) costs a fixed start-up (sockets,
			// goroutines, log files: milliseconds) plus its work, so a
			// line through the two calibration runs extrapolates; a power
			// law through a start-up-dominated smallest run would predict
			// a fraction of the largest runs' time.
			hi := cs[len(cs)-1]
			rx := costRatio(param, hi.point.X, lo.point.X)
			if rx > 1 {
				perUnit := math.Max(0, float64(hi.rec.Wall-lo.rec.Wall)/(rx-1))
				w += perUnit * (costRatio(param, j.point.X, lo.point.X) - 1)
			}
		} else if param != "" {
			slope := 1.0
			if len(cs) > 1 {
				hi := cs[len(cs)-1]
				rx := costRatio(param, hi.point.X, lo.point.X)
				rw := float64(hi.rec.Wall) / math.Max(float64(lo.rec.Wall), 1)
				if rx > 1 && rw > 0 {
					// Clamped: two noisy timings must not predict
					// anything wild.
					slope = math.Min(2.5, math.Max(0.5, math.Log(rw)/math.Log(rx)))
				}
			}
			w *= math.Pow(costRatio(param, j.point.X, lo.point.X), slope)
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			w = float64(lo.rec.Wall)
		}
		out[i] = time.Duration(w)
	}
	return out
}

// hasCalibDup reports whether a job sharing job i's result is the
// calibration run of its own series (then i must run in the first phase).
func (eng *engine) hasCalibDup(i int) bool {
	for _, d := range eng.jobs[i].dups {
		if eng.jobs[d].calib {
			return true
		}
	}
	return false
}

// dispatch runs the jobs idx on the workers and calls finish (on this
// goroutine) as each one ends. Exclusive jobs wait for the others to
// drain and then run alone.
// Once Config.Stop is closed, nothing more starts and the runs still
// ending are dropped (they may have been cut short), so no experiment is
// written with a partial run.
func (eng *engine) dispatch(idx []int, finish func(int)) {
	p := pool.Pool{Workers: eng.workers(), Alone: func(k int) bool { return eng.jobs[idx[k]].exclusive }}
	p.Run(len(idx), func(_, k int) {
		if !eng.stopped() {
			eng.runOne(&eng.jobs[idx[k]])
		}
	}, func(k int) bool {
		if eng.stopped() {
			return false
		}
		finish(idx[k])
		return true
	})
}

// stopped reports whether Config.Stop is closed.
func (eng *engine) stopped() bool {
	select {
	case <-eng.cfg.Stop:
		return true
	default:
		return false
	}
}

func (eng *engine) progress(p Progress) {
	if eng.cfg.Progress != nil {
		eng.cfg.Progress(p)
	}
}

// finishExperiment gathers experiment ei's runs, aggregates them, and
// writes its files.
func (eng *engine) finishExperiment(ei int) ([]string, error) {
	r := eng.reports[ei]
	for _, j := range eng.jobs {
		if j.exp != ei {
			continue
		}
		r.Runs = append(r.Runs, j.rec)
		if !j.rec.Shared {
			r.Wall += j.rec.Wall
		}
		if j.rec.Err != "" {
			r.Failed++
		}
	}
	r.aggregate()
	r.buildTimelines()
	for i := range r.Runs {
		r.Runs[i].timeline = nil // keep memory bounded
	}
	for _, p := range r.Exp.Published {
		r.Comparisons = append(r.Comparisons, r.compare(p))
	}
	files, err := r.WriteFiles(eng.cfg.Out)
	r.Files = files
	return files, err
}

// RunCount is how many runs the experiment made (a frontier's searches
// included).
func (r *Report) RunCount() int { return len(r.Runs) + r.FrontierRuns }

// summaryMeters are the meters aggregated for an experiment: its own, then
// a few every experiment reports (safety first).
func (r *Report) summaryMeters() []Meter {
	ms := append([]Meter{}, r.Exp.Meters...)
	have := map[string]bool{}
	for _, m := range ms {
		have[m.Key] = true
	}
	for _, m := range []Meter{
		{Key: "violations", Label: "violations", Sum: true},
		{Key: "leases_acquired", Label: "leases acquired"},
	} {
		if !have[m.Key] {
			ms = append(ms, m)
		}
	}
	return ms
}

// metricValue is meter key of a run as the statistics see it: NaN for a
// failed run, and NaN for the "none" sentinel (-1) of the meters that use
// one.
func metricValue(rec RunRecord, key string) float64 {
	if rec.Err != "" || (rec.Peer != "" && !peerMeasures(key)) {
		return math.NaN()
	}
	v, err := Value(rec.Result, key)
	if err != nil {
		return math.NaN()
	}
	if noneIfNegative[key] && v < 0 {
		return math.NaN()
	}
	return v
}

// noneIfNegative are meters whose -1 means "did not happen" (no lease, no
// failover), which must not be averaged as a number.
var noneIfNegative = map[string]bool{"time_to_first_lease_ms": true, "failover_gap_ms": true}

func (r *Report) aggregate() {
	byPoint := map[[3]int][]RunRecord{}
	for _, rec := range r.Runs {
		byPoint[rec.Point.Key()] = append(byPoint[rec.Point.Key()], rec)
	}
	for _, p := range r.Exp.Points() {
		recs := byPoint[p.Key()]
		for _, m := range r.summaryMeters() {
			vs := make([]float64, len(recs))
			for i, rec := range recs {
				vs[i] = metricValue(rec, m.Key)
			}
			st := Summarise(vs)
			if m.Proportion {
				st = st.Wilson()
			}
			r.Summary = append(r.Summary, Agg{Facet: r.Exp.Facets[p.Facet].Name, Variant: r.Exp.Variants[p.Variant].Name,
				XI: p.XI, X: p.X, Meter: m.Key, Stat: st})
		}
	}
	if r.Exp.Chains {
		r.aggregateChains()
	}
}

// ChainRow is how many acquisitions (or abandoned attempts) lost Length
// rounds in a row to higher ballots, summed over the repetitions.
type ChainRow struct {
	Facet   string  `json:"facet"`
	Variant string  `json:"variant"`
	X       float64 `json:"x"`
	Length  int     `json:"length"`
	Count   int     `json:"count"`
}

func (r *Report) aggregateChains() {
	type key struct {
		p [3]int
		l int
	}
	counts := map[key]int{}
	for _, rec := range r.Runs {
		if rec.Err != "" {
			continue
		}
		for l, n := range rec.Result.PreemptionChains {
			counts[key{rec.Point.Key(), l}] += n
		}
	}
	for _, p := range r.Exp.Points() {
		var ls []int
		for k := range counts {
			if k.p == p.Key() {
				ls = append(ls, k.l)
			}
		}
		sort.Ints(ls)
		for _, l := range ls {
			r.Chains = append(r.Chains, ChainRow{Facet: r.Exp.Facets[p.Facet].Name, Variant: r.Exp.Variants[p.Variant].Name,
				X: p.X, Length: l, Count: counts[key{p.Key(), l}]})
		}
	}
}

// stat finds the statistics of meter at a point (ok false if absent).
func (r *Report) stat(facet, variant string, xi int, meter string) (Stat, bool) {
	for _, a := range r.Summary {
		if a.Facet == facet && a.Variant == variant && a.Meter == meter && a.XI == xi {
			return a.Stat, true
		}
	}
	return Stat{}, false
}

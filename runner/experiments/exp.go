// Package exp defines leaselab's experiments as data and runs them: each
// Experiment names its workload (a base runner.Spec), the parameter it
// sweeps, the algorithm variants, the environment, the repetitions and the
// meters it plots, plus the values the papers publish for it. The engine
// runs every variant × parameter value × repetition through a run function
// (runner.Run, or a fake in tests), on GOMAXPROCS workers with results in a
// fixed order, and writes CSV and JSON first, then the charts (plots/) and
// a report.md that sets the papers' numbers beside ours.
//
// Adding an experiment is adding an entry to the list in defs.go; there is
// no code path per figure.
package experiments

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/campaign"
)

// Kind is how an experiment is drawn.
type Kind string

const (
	// Lines: one panel per facet × meter, the meter against the swept
	// parameter, one line per variant with 95% intervals.
	Lines Kind = "lines"
	// Bars: one panel per meter, one bar per variant, grouped by
	// Variant.Group (ablations).
	Bars Kind = "bars"
	// Timelines: one panel per variant: who held the lease over time in
	// one run (repetition 0).
	Timelines Kind = "timeline"
)

// Sweep is the parameter on the x axis.
type Sweep struct {
	Param string    `json:"param"` // a name from the parameter table ("" for none)
	Full  []float64 `json:"full"`
	Quick []float64 `json:"quick"`
	LogX  bool      `json:"log_x"`
}

// Facet is a fixed setting that gets its own row of panels (e.g. fig8's
// two round-trip times).
type Facet struct {
	Name string    `json:"name"`
	Set  []Setting `json:"set,omitempty"`
	// Sweep, if set, replaces the experiment's sweep in this facet: its
	// panels show the meters against another parameter (the deadlock
	// study's message loss at a fixed number of proposers, with the
	// proposers in Set).
	Sweep *Sweep `json:"sweep,omitempty"`
	// Meters, if set, are the keys of the experiment's meters this
	// facet's chart panels show (all chart meters if empty).
	Meters []string `json:"meters,omitempty"`
}

// Variant is one line (or bar) of a chart: an algorithm with ablations and
// spec tweaks.
type Variant struct {
	Name   string               `json:"name"` // series name; it also picks the colour
	Algo   string               `json:"algo"`
	Ablate algorithms.Ablations `json:"ablate,omitempty"`
	Set    []Setting            `json:"set,omitempty"`
	// AllAblations expands, when the experiment is resolved, into the
	// algorithm without ablations plus one variant per ablation the
	// algorithm registers (so new ablations appear without an edit here).
	AllAblations bool `json:"all_ablations,omitempty"`
	// Group and Label place the variant in a bar chart (default: Name and
	// "none").
	Group string `json:"group,omitempty"`
	Label string `json:"label,omitempty"`
	// Envs: the environments the variant runs in (empty: all). A setting
	// that only one environment has (the udp datagram size) would give an
	// identical copy of another series in the rest. Claims about a variant
	// are left out where it does not run.
	Envs []string `json:"envs,omitempty"`
	// Facets: the facets the variant appears in (empty: all), for a series
	// whose settings the other facets cannot express (etcd has no
	// release-off mode and no backoff of leaselab's).
	Facets []string `json:"facets,omitempty"`
	// Peer, if set, runs the variant against a lease service instead of
	// a leaselab algorithm (see peers.go); Algo is then empty.
	Peer string `json:"peer,omitempty"`
}

// runsIn reports whether v runs in env.
func (v Variant) runsIn(env string) bool { return len(v.Envs) == 0 || slices.Contains(v.Envs, env) }

// inFacet reports whether v appears in the facet named facet.
func (v Variant) inFacet(facet string) bool {
	return len(v.Facets) == 0 || slices.Contains(v.Facets, facet)
}

// Published is a statement of a paper about this experiment's outcome,
// with how to compute our counterpart from the results.
type Published struct {
	Source  string `json:"source"`  // "FaTLease Sec. 5.1"
	Claim   string `json:"claim"`   // what the paper says, in its words where possible
	Variant string `json:"variant"` // which of our series it concerns
	Facet   string `json:"facet,omitempty"`
	Meter   string `json:"meter"` // key of one of the experiment's meters
	// How is the comparison; see compare.go (at, max, argmax, first_nonzero,
	// zero_upto, diff_mean, spread, total, greater_total, ratio).
	How string `json:"how"`
	// X (and X2 for ratio) pick the sweep value for "at" and "ratio".
	X  float64 `json:"x,omitempty"`
	X2 float64 `json:"x2,omitempty"`
	// MinX: sweep values below it are left out of the comparison.
	MinX float64 `json:"min_x,omitempty"`
	// Paper is the paper's number (nil: the paper states none; use Num).
	Paper *float64 `json:"paper"`
	// Op and Ref are the verdict rule: "≈" (within a factor of two of
	// Paper), or ours Op Ref with Op one of >=, <=, >, <, ==.
	Op    string  `json:"op"`
	Ref   float64 `json:"ref"`
	Other string  `json:"other,omitempty"`
	// Note explains a known reason for a difference (shown beside it).
	Note string `json:"note,omitempty"`
	// NoteIn replaces Note when the experiment runs in that environment:
	// the reason for a difference is often the environment itself (the
	// simulator charges no CPU time; real UDP batches messages).
	NoteIn map[string]string `json:"note_in,omitempty"`
}

// Experiment is one figure of the reproduction.
type Experiment struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Paper says which published figure or section this reproduces.
	Paper string `json:"paper"`
	// What says in a sentence what the figure shows.
	What string `json:"what"`
	Kind Kind   `json:"kind"`
	Base runner.Spec
	// QuickSet tweaks the base spec in --quick mode (shorter runs).
	QuickSet []Setting `json:"quick_set,omitempty"`
	// EnvSet tweaks the base spec in one environment only, e.g. fig5's
	// loopback: the simulator needs a stand-in round trip, real UDP on
	// loopback has its own and gets no added delay.
	EnvSet   map[string][]Setting `json:"env_set,omitempty"`
	Sweep    Sweep                `json:"sweep"`
	Facets   []Facet              `json:"facets,omitempty"`
	Variants []Variant            `json:"variants"`
	// Envs are the environments the experiment can run in; the first is
	// the default.
	Envs []string `json:"envs"`
	// Reps and QuickReps: repetitions (seeds Base.Seed, Base.Seed+1, ...).
	Reps      int     `json:"reps"`
	QuickReps int     `json:"quick_reps"`
	Meters    []Meter `json:"meters"`
	// Chains adds a panel with the distribution of pre-emption chain
	// lengths at the largest swept value (deadlock).
	Chains    bool        `json:"chains,omitempty"`
	Published []Published `json:"published,omitempty"`
	// Notes explain how our setup differs from the paper's and what that
	// is expected to do to the numbers; they go into the report. They state
	// no measured number: Findings do (see findings.go).
	Notes []string `json:"notes,omitempty"`
	// Findings, if set, computes the report's notes on what this run
	// measured, from its results.
	Findings func(*Report) []string `json:"-"`
	// EnvNotes are notes that hold only in one environment; Resolve
	// appends those of the chosen one to Notes.
	EnvNotes map[string][]string `json:"env_notes,omitempty"`
	// ChartNotes: per environment, the caveat the chart itself must
	// carry, so that a chart seen without the report is not misread
	// (the report's notes, EnvNotes, say it at length).
	ChartNotes map[string]string `json:"chart_notes,omitempty"`
	// Trace: runs keep the hold intervals and the event trace (timeline).
	Trace bool `json:"trace,omitempty"`
	// Faults makes every run a member of a fault campaign, exactly as
	// `leaselab check --faults ...` draws it: campaign.CheckSpecFor gives each
	// seed its own fault rates of these kinds (ablations).
	Faults []string `json:"faults,omitempty"`
	// Vary: what else each campaign seed draws afresh (campaign.Vary).
	Vary campaign.Vary `json:"vary,omitempty"`
	// FrontierDef: the searches of a Frontier experiment (frontier.go),
	// which runs no grid of points.
	FrontierDef *FrontierDef `json:"-"`
}

// Point is one resolved cell of an experiment: a facet, a variant and a
// sweep value, each with its index.
type Point struct {
	Facet, Variant, XI int
	X                  float64 // NaN when nothing is swept
}

// Key identifies a point without its X (NaN never equals itself).
func (p Point) Key() [3]int { return [3]int{p.Facet, p.Variant, p.XI} }

// Resolved is an experiment made ready to run for one mode: the variants
// expanded, the sweep values and repetitions chosen, the environment set.
type Resolved struct {
	Experiment
	Values []float64 // sweep values in this mode (one NaN if no sweep)
	// FacetValues: per facet, its sweep values in this mode (Values unless
	// the facet has its own Sweep).
	FacetValues [][]float64
	NReps       int
	Env         string
	EnvNote     string // set when the requested environment was not available
	Quick       bool
}

// Options of a reproduction.
type Options struct {
	Quick bool
	// Seeds overrides the repetitions of every experiment (0: keep).
	Seeds int
	// Env overrides the environment where the experiment supports it
	// ("" keeps the default).
	Env string
}

// Validate checks the definition itself (names, parameters, meters,
// comparisons); Resolve also checks every spec it will run.
func (e Experiment) Validate() error {
	if err := e.validate(); err != nil {
		return fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	return nil
}

func (e Experiment) validate() error {
	if err := e.checkShape(); err != nil {
		return err
	}
	settings, err := e.envSettings()
	if err != nil {
		return err
	}
	facets, fset, err := e.checkFacets()
	if err != nil {
		return err
	}
	names, vset, err := e.checkVariants()
	if err != nil {
		return err
	}
	for _, s := range slices.Concat(settings, fset, vset) {
		if err := checkValue(s.Param, s.Value); err != nil {
			return err
		}
	}
	for _, m := range e.Meters {
		if err := checkMeterKey(m.Key); err != nil {
			return err
		}
		if m.Label == "" {
			return fmt.Errorf("meter %s has no label", m.Key)
		}
	}
	for _, p := range e.Published {
		for env := range p.NoteIn {
			if !slices.Contains(runner.Envs(), env) {
				return fmt.Errorf("published claim %q: note for unknown environment %q", p.Claim, env)
			}
		}
		if err := p.validate(e, names, facets); err != nil {
			return fmt.Errorf("published claim %q: %v", p.Claim, err)
		}
	}
	return nil
}

// checkShape checks the name, kind, variants, environments, repetitions
// and sweep.
func (e Experiment) checkShape() error {
	if e.Name == "" || strings.ContainsAny(e.Name, " /\\,") {
		return fmt.Errorf("name must be a plain word")
	}
	switch e.Kind {
	case Lines, Bars, Timelines:
	case Frontier:
		if e.FrontierDef == nil || len(e.FrontierDef.Algos) == 0 || len(e.FrontierDef.Assumptions) == 0 {
			return fmt.Errorf("a frontier needs algorithms and assumptions")
		}
		return nil
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	if len(e.Variants) == 0 {
		return fmt.Errorf("no variants")
	}
	if len(e.Envs) == 0 {
		return fmt.Errorf("no environment")
	}
	for _, env := range e.Envs {
		if !slices.Contains(runner.Envs(), env) {
			return fmt.Errorf("unknown environment %q", env)
		}
	}
	if e.Reps < 1 || e.QuickReps < 1 {
		return fmt.Errorf("repetitions must be at least 1")
	}
	if e.Kind == Lines {
		if e.Sweep.Param == "" {
			return fmt.Errorf("a line chart needs a swept parameter")
		}
		if len(e.Meters) == 0 {
			return fmt.Errorf("no meters")
		}
	}
	return e.Sweep.check()
}

// envSettings checks the per-environment settings and notes, and returns
// the quick and per-environment settings. Settings and notes may name an
// environment the experiment does not (yet) run in, so that switching
// its Envs is a one-line change.
func (e Experiment) envSettings() ([]Setting, error) {
	settings := append([]Setting{}, e.QuickSet...)
	for _, env := range sortedKeys(e.EnvSet) {
		if !slices.Contains(runner.Envs(), env) {
			return nil, fmt.Errorf("settings for unknown environment %q", env)
		}
		settings = append(settings, e.EnvSet[env]...)
	}
	for env := range e.EnvNotes {
		if !slices.Contains(runner.Envs(), env) {
			return nil, fmt.Errorf("notes for unknown environment %q", env)
		}
	}
	return settings, nil
}

// checkFacets checks the facets and returns their names and settings.
func (e Experiment) checkFacets() (map[string]bool, []Setting, error) {
	facets := map[string]bool{}
	var settings []Setting
	for _, f := range e.Facets {
		if facets[f.Name] {
			return nil, nil, fmt.Errorf("duplicate facet %q", f.Name)
		}
		facets[f.Name] = true
		settings = append(settings, f.Set...)
		if f.Sweep != nil {
			if e.Sweep.Param == "" || f.Sweep.Param == "" {
				return nil, nil, fmt.Errorf("facet %q: a sweep of its own needs a parameter, and the experiment one too", f.Name)
			}
			if err := f.Sweep.check(); err != nil {
				return nil, nil, fmt.Errorf("facet %q: %v", f.Name, err)
			}
		}
		for _, k := range f.Meters {
			if !slices.ContainsFunc(e.Meters, func(m Meter) bool { return m.Key == k && !m.TableOnly }) {
				return nil, nil, fmt.Errorf("facet %q: %s is not a chart meter of the experiment", f.Name, k)
			}
		}
	}
	return facets, settings, nil
}

// checkVariants checks the variants and returns their names (an
// AllAblations variant without a name goes by its algorithm's) and
// settings.
func (e Experiment) checkVariants() (map[string]bool, []Setting, error) {
	names := map[string]bool{}
	var settings []Setting
	for _, v := range e.Variants {
		if v.Name == "" && !v.AllAblations {
			return nil, nil, fmt.Errorf("variant of %s has no name", v.Algo)
		}
		if v.Peer != "" && (!slices.Contains(Peers, v.Peer) || v.Algo != "" || v.AllAblations) {
			return nil, nil, fmt.Errorf("variant %q: peer %q: want one of %s, with no algorithm or ablations", v.Name, v.Peer, strings.Join(Peers, ", "))
		}
		for _, f := range v.Facets {
			if !slices.ContainsFunc(e.Facets, func(ef Facet) bool { return ef.Name == f }) {
				return nil, nil, fmt.Errorf("variant %q: unknown facet %q", v.Name, f)
			}
		}
		key := v.Name
		if v.AllAblations && key == "" {
			key = v.Algo
		}
		if names[key] {
			return nil, nil, fmt.Errorf("duplicate variant %q", key)
		}
		names[key] = true
		for _, env := range v.Envs {
			if !slices.Contains(runner.Envs(), env) {
				return nil, nil, fmt.Errorf("variant %q: unknown environment %q", key, env)
			}
		}
		settings = append(settings, v.Set...)
	}
	return names, settings, nil
}

// check validates a sweep's parameter and values.
func (s Sweep) check() error {
	if s.Param == "" {
		if len(s.Full)+len(s.Quick) > 0 {
			return fmt.Errorf("sweep values without a parameter")
		}
		return nil
	}
	if _, err := lookupParam(s.Param); err != nil {
		return err
	}
	for _, vals := range [][]float64{s.Full, s.Quick} {
		if len(vals) == 0 {
			return fmt.Errorf("sweep of %s has no values", s.Param)
		}
		for i, v := range vals {
			if err := checkValue(s.Param, v); err != nil {
				return err
			}
			if s.LogX && v <= 0 {
				return fmt.Errorf("log x axis cannot show %s = %g", s.Param, v)
			}
			if i > 0 && v <= vals[i-1] {
				return fmt.Errorf("sweep values must increase")
			}
		}
	}
	return nil
}

// SweepOf is the sweep of facet f: its own, or the experiment's.
func (r Resolved) SweepOf(f int) Sweep {
	if s := r.Facets[f].Sweep; s != nil {
		return *s
	}
	return r.Sweep
}

// ValuesOf are facet f's sweep values in this mode.
func (r Resolved) ValuesOf(f int) []float64 {
	if f < len(r.FacetValues) {
		return r.FacetValues[f]
	}
	return r.Values
}

// facetIndex finds a facet by name (-1 if none).
func (r Resolved) facetIndex(name string) int {
	for i, f := range r.Facets {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// mixedSweeps reports whether some facet sweeps its own parameter.
func (r Resolved) mixedSweeps() bool {
	for _, f := range r.Facets {
		if f.Sweep != nil && f.Sweep.Param != r.Sweep.Param {
			return true
		}
	}
	return false
}

// facetMeters are the chart meters facet f shows.
func (r Resolved) facetMeters(f int) []Meter {
	ms := r.chartMeters()
	keys := r.Facets[f].Meters
	if len(keys) == 0 {
		return ms
	}
	var out []Meter
	for _, m := range ms {
		if slices.Contains(keys, m.Key) {
			out = append(out, m)
		}
	}
	return out
}

// sortedKeys gives a map's keys in order, so that nothing depends on map
// iteration order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Resolve prepares e for a run with opt: it picks the sweep values and
// repetitions, the environment, expands AllAblations from the algorithm
// registry, and validates every spec it will run, so that a definition
// error shows before any run starts.
func (e Experiment) Resolve(opt Options) (Resolved, error) {
	if e.Kind == Frontier {
		return e.resolveFrontier(opt)
	}
	if err := e.Validate(); err != nil {
		return Resolved{}, err
	}
	r := Resolved{Experiment: e, Env: e.Envs[0], Quick: opt.Quick}
	r.Values = e.Sweep.Full
	r.NReps = e.Reps
	if opt.Quick {
		r.Values = e.Sweep.Quick
		r.NReps = e.QuickReps
	}
	if e.Sweep.Param == "" {
		r.Values = []float64{math.NaN()}
	}
	if opt.Seeds < 0 {
		return Resolved{}, fmt.Errorf("seeds must not be negative, got %d", opt.Seeds)
	}
	if opt.Seeds > 0 {
		r.NReps = opt.Seeds
	}
	if e.Kind == Timelines {
		r.NReps = 1 // a timeline shows one chosen run
	}
	if opt.Env != "" {
		if !slices.Contains(runner.Envs(), opt.Env) {
			return Resolved{}, fmt.Errorf("unknown environment %q (valid: %s)", opt.Env, strings.Join(runner.Envs(), ", "))
		}
		if slices.Contains(e.Envs, opt.Env) {
			r.Env = opt.Env
		} else {
			r.EnvNote = fmt.Sprintf("%s runs only in %s; --env %s was not applied to it", e.Name, strings.Join(e.Envs, ", "), opt.Env)
		}
	}
	// The chosen environment's notes and reasons join the general ones.
	r.Notes = append(append([]string{}, e.Notes...), e.EnvNotes[r.Env]...)
	r.Published = e.publishedIn(r.Env)
	vs, absent, err := e.variantsIn(r.Env)
	if err != nil {
		return Resolved{}, err
	}
	for _, p := range absent {
		r.Notes = append(r.Notes, peerAbsentNote(p))
	}
	r.Variants = vs
	if len(r.Facets) == 0 {
		r.Facets = []Facet{{Name: ""}}
	}
	r.FacetValues = make([][]float64, len(r.Facets))
	for i, f := range r.Facets {
		r.FacetValues[i] = r.Values
		if f.Sweep != nil {
			r.FacetValues[i] = f.Sweep.Full
			if opt.Quick {
				r.FacetValues[i] = f.Sweep.Quick
			}
		}
	}
	// Every spec must be valid before anything runs.
	for _, p := range r.Points() {
		for rep := 0; rep < r.NReps; rep++ {
			s, err := r.Spec(p, rep)
			if err != nil {
				return Resolved{}, err
			}
			if peer := r.Variants[p.Variant].Peer; peer != "" {
				if err := validatePeer(peer, s); err != nil {
					return Resolved{}, fmt.Errorf("experiment %s, %s: %w", e.Name, r.pointName(p), err)
				}
				continue
			}
			if err := s.Validate(); err != nil {
				return Resolved{}, fmt.Errorf("experiment %s, %s: %w", e.Name, r.pointName(p), err)
			}
		}
	}
	return r, nil
}

// publishedIn returns the claims that apply in env, each with its note
// for env: claims about variants that do not run there go.
func (e Experiment) publishedIn(env string) []Published {
	absent := map[string]bool{}
	for _, v := range e.Variants {
		if !v.runsIn(env) {
			absent[v.Name] = true
			if v.AllAblations && v.Name == "" {
				absent[v.Algo] = true
			}
		}
	}
	var out []Published
	for _, p := range e.Published {
		if absent[p.Variant] || (p.Other != "" && absent[p.Other]) {
			continue
		}
		if n, ok := p.NoteIn[env]; ok {
			p.Note = n
		}
		out = append(out, p)
	}
	return out
}

// variantsIn returns the variants that run in env, each AllAblations one
// expanded into its baseline and one variant per ablation of its
// algorithm, and the peers left out because this binary lacks them.
func (e Experiment) variantsIn(env string) ([]Variant, []string, error) {
	var vs []Variant
	var absent []string
	seen := map[string]bool{}
	for _, v := range e.Variants {
		if !v.runsIn(env) {
			continue
		}
		if v.Peer != "" && !peerAvailable(v.Peer) {
			if !slices.Contains(absent, v.Peer) {
				absent = append(absent, v.Peer)
			}
			continue
		}
		if !v.AllAblations {
			vs = append(vs, v)
			continue
		}
		a, err := algorithms.Lookup(v.Algo)
		if err != nil {
			return nil, nil, fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		group := v.Group
		if group == "" {
			group = v.Algo
		}
		base := v
		base.AllAblations = false
		base.Name, base.Group, base.Label = v.Algo, group, "none"
		if v.Name != "" {
			base.Name = v.Name
		}
		vs = append(vs, base)
		abl := append([]algorithms.Ablation{}, a.Ablations...)
		sort.SliceStable(abl, func(i, j int) bool { return abl[i].Name < abl[j].Name })
		for _, ab := range abl {
			x := base
			x.Ablate = append(append(algorithms.Ablations{}, v.Ablate...), ab.Name)
			x.Name = fmt.Sprintf("%s (no %s)", base.Name, ab.Name)
			x.Label = "no " + ab.Name
			vs = append(vs, x)
		}
	}
	for i := range vs {
		if vs[i].Group == "" {
			vs[i].Group = vs[i].Name
		}
		if vs[i].Label == "" {
			vs[i].Label = "none"
		}
		if seen[vs[i].Name] {
			return nil, nil, fmt.Errorf("experiment %s: duplicate variant %q after expansion", e.Name, vs[i].Name)
		}
		seen[vs[i].Name] = true
	}
	if len(vs) == 0 {
		return nil, nil, fmt.Errorf("experiment %s: no variant runs in %s", e.Name, env)
	}
	return vs, absent, nil
}

// Points lists the cells in their fixed order: facet, then variant, then
// sweep value.
func (r Resolved) Points() []Point {
	var ps []Point
	for f := range r.Facets {
		for v := range r.Variants {
			if !r.Variants[v].inFacet(r.Facets[f].Name) {
				continue
			}
			for xi, x := range r.ValuesOf(f) {
				ps = append(ps, Point{Facet: f, Variant: v, XI: xi, X: x})
			}
		}
	}
	return ps
}

func (r Resolved) pointName(p Point) string {
	s := r.Variants[p.Variant].Name
	if f := r.Facets[p.Facet].Name; f != "" {
		s += ", " + f
	}
	if param := r.SweepOf(p.Facet).Param; param != "" {
		s += fmt.Sprintf(", %s=%g", param, p.X)
	}
	return s
}

// Spec is the runner.Spec of one run: the base, then the quick tweaks,
// the environment's tweaks, the facet's settings, the variant's settings,
// the sweep value, the environment, the algorithm and the seed, in that
// order.
func (r Resolved) Spec(p Point, rep int) (runner.Spec, error) {
	s := r.Base
	s.Params = r.Base.Params
	v := r.Variants[p.Variant]
	s.Algo = v.Algo
	s.Ablate = append(algorithms.Ablations{}, v.Ablate...)
	s.Env = r.Env
	var sets []Setting
	if r.Quick {
		sets = append(sets, r.QuickSet...)
	}
	sets = append(sets, r.EnvSet[r.Env]...)
	sets = append(sets, r.Facets[p.Facet].Set...)
	sets = append(sets, v.Set...)
	if param := r.SweepOf(p.Facet).Param; param != "" {
		sets = append(sets, Setting{param, p.X})
	}
	if err := Apply(&s, sets...); err != nil {
		return runner.Spec{}, fmt.Errorf("experiment %s, %s: %w", r.Name, r.pointName(p), err)
	}
	s.Seed = r.Base.Seed + uint64(rep)
	if len(r.Faults) > 0 {
		fs, err := campaign.CheckSpecFor(campaign.CheckSpec{Base: s, Faults: r.Faults, Vary: r.Vary}, s.Seed)
		if err != nil {
			return runner.Spec{}, fmt.Errorf("experiment %s: %w", r.Name, err)
		}
		s = fs
	}
	return s, nil
}

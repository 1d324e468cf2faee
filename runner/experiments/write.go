package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"leaselab/runner"
)

// WriteFiles writes the experiment's data first (CSV, JSON), then its
// charts (PNG, SVG), and returns the file names (relative to dir).
func (r *Report) WriteFiles(dir string) ([]string, error) {
	name := r.Exp.Name
	var files []string
	write := func(file string, data []byte) error {
		files = append(files, file)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
			return err
		}
		return writeAtomic(filepath.Join(dir, file), data)
	}
	if r.Exp.Kind == Frontier {
		if err := r.frontierFiles(write); err != nil {
			return files, err
		}
		return files, r.writeFigure(write)
	}
	if err := write(name+".csv", r.RunsCSV()); err != nil {
		return files, err
	}
	if err := write(name+"_summary.csv", r.SummaryCSV()); err != nil {
		return files, err
	}
	if r.Exp.Chains {
		if err := write(name+"_chains.csv", r.ChainsCSV()); err != nil {
			return files, err
		}
	}
	if r.Exp.Kind == Timelines {
		if err := write(name+"_holds.csv", r.HoldsCSV()); err != nil {
			return files, err
		}
	}
	js, err := r.JSON()
	if err != nil {
		return files, err
	}
	if err := write(name+".json", js); err != nil {
		return files, err
	}
	return files, r.writeFigure(write)
}

// writeFigure writes the experiment's chart as PNG and SVG.
func (r *Report) writeFigure(write func(string, []byte) error) error {
	name := r.Exp.Name
	fig, err := r.Figure()
	if err != nil {
		return fmt.Errorf("%s: chart: %w", name, err)
	}
	for _, ext := range []string{"png", "svg"} {
		var buf bytes.Buffer
		if err := fig.Render(&buf, ext); err != nil {
			return fmt.Errorf("%s: chart: %w", name, err)
		}
		if err := write(name+"."+ext, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// num prints a CSV number: shortest exact form, empty for NaN.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func csvBytes(rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(rows) // writes to memory: cannot fail
	return buf.Bytes()
}

// paramColumn names the CSV column of the swept value: the parameter, or
// "x" when nothing is swept or facets sweep different parameters (the
// facet column then says which: see the experiment's JSON).
func (r *Report) paramColumn() string {
	if r.Exp.Sweep.Param == "" || r.Exp.mixedSweeps() {
		return "x"
	}
	return r.Exp.Sweep.Param
}

// RunsCSV is one row per run: where it sits, its seed and trace hash, the
// error if any, then every numeric meter of runner.Result and the derived
// meters. Wall time is left out so that the same seeds give the same
// file; it is in the JSON.
func (r *Report) RunsCSV() []byte {
	head := []string{"experiment", "facet", "variant", "algo", "ablate", "env", r.paramColumn(), "rep", "seed", "trace_hash", "error"}
	keys := MeterKeys()
	head = append(head, keys...)
	rows := [][]string{head}
	for _, rec := range r.Runs {
		row := []string{r.Exp.Name, rec.Facet, rec.Variant, rec.Algo, strings.Join(rec.Ablate, "+"), rec.Env,
			num(rec.Point.X), strconv.Itoa(rec.Rep), strconv.FormatUint(rec.Seed, 10), rec.Result.TraceHash, rec.Err}
		for _, k := range keys {
			if rec.Err != "" {
				row = append(row, "")
				continue
			}
			v, _ := Value(rec.Result, k)
			if noneIfNegative[k] && v < 0 {
				v = math.NaN() // not applicable: an empty cell
			}
			row = append(row, num(v))
		}
		rows = append(rows, row)
	}
	return csvBytes(rows)
}

// SummaryCSV is one row per facet × variant × sweep value: the number of
// runs, then per meter its mean, 95% interval and (for summed meters) the
// total. Values are in the units of the meter's key (not scaled).
func (r *Report) SummaryCSV() []byte {
	ms := r.summaryMeters()
	head := []string{"experiment", "facet", "variant", r.paramColumn(), "runs", "failed_runs"}
	for _, m := range ms {
		head = append(head, m.Key+"_mean", m.Key+"_ci95_lo", m.Key+"_ci95_hi", m.Key+"_sum")
	}
	rows := [][]string{head}
	for _, p := range r.Exp.Points() {
		facet, variant := r.Exp.Facets[p.Facet].Name, r.Exp.Variants[p.Variant].Name
		runs, failed := 0, 0
		for _, rec := range r.Runs {
			if rec.Point.Key() == p.Key() {
				runs++
				if rec.Err != "" {
					failed++
				}
			}
		}
		row := []string{r.Exp.Name, facet, variant, num(p.X), strconv.Itoa(runs), strconv.Itoa(failed)}
		for _, m := range ms {
			st, _ := r.stat(facet, variant, p.XI, m.Key)
			sum := math.NaN()
			if st.N > 0 {
				sum = st.Sum
			}
			row = append(row, num(st.Mean), num(st.Lo), num(st.Hi), num(sum))
		}
		rows = append(rows, row)
	}
	return csvBytes(rows)
}

// ChainsCSV is the distribution of pre-emption chain lengths per point.
func (r *Report) ChainsCSV() []byte {
	rows := [][]string{{"experiment", "facet", "variant", r.paramColumn(), "chain_length", "count"}}
	for _, c := range r.Chains {
		rows = append(rows, []string{r.Exp.Name, c.Facet, c.Variant, num(c.X), strconv.Itoa(c.Length), strconv.Itoa(c.Count)})
	}
	return csvBytes(rows)
}

// HoldsCSV lists the hold intervals of the timeline runs.
func (r *Report) HoldsCSV() []byte {
	rows := [][]string{{"experiment", "variant", "seed", "resource", "owner", "ballot", "start_ns", "end_ns"}}
	for _, t := range r.Timelines {
		for _, h := range t.Holds {
			rows = append(rows, []string{r.Exp.Name, t.Variant, strconv.FormatUint(t.Seed, 10),
				strconv.FormatUint(h.Resource, 10), strconv.Itoa(h.Owner), h.Ballot,
				strconv.FormatInt(h.StartNS, 10), strconv.FormatInt(h.EndNS, 10)})
		}
	}
	return csvBytes(rows)
}

// jnum is a float that JSON writes as null when it is not a number.
type jnum float64

func (f jnum) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

type statJSON struct {
	N    int  `json:"n"`
	Miss int  `json:"missing"`
	Mean jnum `json:"mean"`
	Std  jnum `json:"std"`
	Lo   jnum `json:"ci95_lo"`
	Hi   jnum `json:"ci95_hi"`
	Sum  jnum `json:"sum"`
	Min  jnum `json:"min"`
	Max  jnum `json:"max"`
}

func (s Stat) json() statJSON {
	return statJSON{s.N, s.Miss, jnum(s.Mean), jnum(s.Std), jnum(s.Lo), jnum(s.Hi), jnum(s.Sum), jnum(s.Min), jnum(s.Max)}
}

type runJSON struct {
	Facet   string        `json:"facet"`
	Variant string        `json:"variant"`
	X       jnum          `json:"x"`
	Rep     int           `json:"rep"`
	Seed    uint64        `json:"seed"`
	Error   string        `json:"error"`
	WallMS  float64       `json:"engine_wall_ms"`
	Result  runner.Result `json:"result"`
}

type aggJSON struct {
	Facet   string   `json:"facet"`
	Variant string   `json:"variant"`
	X       jnum     `json:"x"`
	Meter   string   `json:"meter"`
	Stat    statJSON `json:"stat"`
}

type compJSON struct {
	Published
	Ours     jnum   `json:"ours"`
	OursText string `json:"ours_text"`
	Verdict  string `json:"verdict"`
}

type expJSON struct {
	Meta      *runner.Meta  `json:"meta"`
	Name      string        `json:"name"`
	Title     string        `json:"title"`
	Paper     string        `json:"paper"`
	What      string        `json:"what"`
	Kind      Kind          `json:"kind"`
	Env       string        `json:"env"`
	EnvNote   string        `json:"env_note"`
	Quick     bool          `json:"quick"`
	Reps      int           `json:"reps"`
	Param     string        `json:"param"`
	Values    []float64     `json:"values"`
	Base      runner.Spec   `json:"base_spec"`
	QuickSet  []Setting     `json:"quick_set"`
	Facets    []Facet       `json:"facets"`
	Variants  []Variant     `json:"variants"`
	Meters    []Meter       `json:"meters"`
	Published []Published   `json:"published"`
	Notes     []string      `json:"notes"`
	Runs      []runJSON     `json:"runs"`
	Summary   []aggJSON     `json:"summary"`
	Compare   []compJSON    `json:"comparisons"`
	Chains    []ChainRow    `json:"preemption_chains"`
	Timelines []TimelineRun `json:"timelines"`
}

// JSON is the whole experiment: its resolved definition, every run's full
// Result (with wall times), the summary and the comparisons.
func (r *Report) JSON() ([]byte, error) {
	e := r.Exp
	out := expJSON{Meta: r.Meta, Name: e.Name, Title: e.Title, Paper: e.Paper, What: e.What, Kind: e.Kind, Env: e.Env,
		EnvNote: e.EnvNote, Quick: e.Quick, Reps: e.NReps, Param: e.Sweep.Param, Base: e.Base, QuickSet: e.QuickSet,
		Facets: e.Facets, Variants: e.Variants, Meters: e.Meters, Published: e.Published, Notes: e.Notes,
		Chains: r.Chains, Timelines: r.Timelines}
	if e.Sweep.Param != "" {
		out.Values = e.Values
	}
	// Every key always present, and a list a list even when empty.
	out.Values, out.QuickSet, out.Facets, out.Variants = orEmpty(out.Values), orEmpty(out.QuickSet), orEmpty(out.Facets), orEmpty(out.Variants)
	out.Meters, out.Published, out.Notes = orEmpty(out.Meters), orEmpty(out.Published), orEmpty(out.Notes)
	out.Chains, out.Timelines = orEmpty(out.Chains), orEmpty(out.Timelines)
	out.Runs, out.Summary, out.Compare = []runJSON{}, []aggJSON{}, []compJSON{}
	for _, rec := range r.Runs {
		out.Runs = append(out.Runs, runJSON{Facet: rec.Facet, Variant: rec.Variant, X: jnum(rec.Point.X), Rep: rec.Rep,
			Seed: rec.Seed, Error: rec.Err, WallMS: float64(rec.Wall.Microseconds()) / 1000, Result: sanitizeResult(rec.Result)})
	}
	for _, a := range r.Summary {
		out.Summary = append(out.Summary, aggJSON{Facet: a.Facet, Variant: a.Variant, X: jnum(a.X), Meter: a.Meter, Stat: a.Stat.json()})
	}
	for _, c := range r.Comparisons {
		out.Compare = append(out.Compare, compJSON{Published: c.Published, Ours: jnum(c.Ours), OursText: c.OursText, Verdict: c.Verdict})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: json: %w", e.Name, err)
	}
	return append(b, '\n'), nil
}

// orEmpty is s, or an empty list for nil (JSON [] rather than null).
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// sanitizeResult replaces NaN and infinities, which JSON cannot carry, by
// -1 in the float meters of a Result (the runner's own "none" marker).
func sanitizeResult(res runner.Result) runner.Result {
	fix := func(p *float64) {
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			*p = -1
		}
	}
	for _, p := range []*float64{&res.LeasesPerSec, &res.BlockedFraction, &res.MessagesPerLease,
		&res.BytesPerLease, &res.FsyncsPerLease, &res.DiskBytesPerS, &res.WallMS} {
		fix(p)
	}
	for _, pc := range []*runner.Percentiles{&res.LatencyMS, &res.FsyncLatencyMS} {
		for _, p := range []*float64{&pc.P50, &pc.P90, &pc.P99, &pc.P999, &pc.Max, &pc.Mean} {
			fix(p)
		}
	}
	return res
}

package experiments

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "leaselab/classicpaxos" // the experiments resolve registered algorithms
	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	"leaselab/runner"
	"leaselab/runner/record"
	"leaselab/runner/udp"
)

// noteInputs are numbers a static note may state without computing them:
// constants of the code (each taken from the code here, so a note that
// states one disagrees with it only if the constant changed, and then this
// list changes with it) and the papers' facts.
var noteInputs = map[string]float64{
	"udp.DefaultWindow (requests in flight)":        udp.DefaultWindow,
	"half the window (a smaller window tried)":      udp.DefaultWindow / 2,
	"twice the window (a larger window tried)":      udp.DefaultWindow * 2,
	"udp.LoopbackDatagram in KiB":                   udp.LoopbackDatagram >> 10,
	"messages per loopback datagram, about":         250,
	"udp.BackgroundFileSize in MiB":                 udp.BackgroundFileSize >> 20,
	"udp.BackgroundBlock in MiB":                    udp.BackgroundBlock >> 20,
	"udp.BackgroundSyncEvery in MiB":                udp.BackgroundSyncEvery >> 20,
	"socket buffer asked for, MiB":                  4,
	"runner.WireSize (bytes per message)":           runner.WireSize,
	"runner.MinDatagram (one message per datagram)": runner.MinDatagram,
	"record.DiskRecordSize":                         record.DiskRecordSize,
	"bytes per lease: 2 records at 3 acceptors":     2 * 3 * record.DiskRecordSize,
	"messages per lease, naive":                     4,
	"messages per lease, paxoslease":                8,
	"messages per lease, fatlease":                  10,
	"phases per negotiation / fsyncs in series":     2,
	"the papers' year (HPDC'08), a 2008 disk":       2008,
	"kB in bytes":                           1024,
	"FaTLease's paper: 30 remote acceptors": 30,
}

var (
	numberRE = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)
	// References to sections, figures and files carry numbers that are not
	// claims.
	refRE = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|(?:Sec|Fig|Figs|Table|Sections?)\.? [\d.]+[a-z]?(?:(?:,| and| to) [\d.]+[a-z]?)*|[\w./-]*[A-Za-z_/#][\w./#-]*\d[\w./-]*|\d+(?:st|nd|rd|th|s)\b|\d+[a-z]\)`)
)

// numbersIn lists the numbers a text states, references left out.
func numbersIn(text string) []float64 {
	text = refRE.ReplaceAllString(text, " ")
	var out []float64
	for _, m := range numberRE.FindAllString(text, -1) {
		m = strings.TrimRight(strings.ReplaceAll(m, ",", ""), ".")
		if v, err := strconv.ParseFloat(m, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// specNumbers collects every number of the experiment's definition (all
// its specs, in both modes and every environment, in ns and in s, ms, µs,
// and probabilities as percentages), its sweeps, repetitions and the
// papers' claims: what a note may restate.
func specNumbers(t *testing.T, e Experiment, add func(float64)) {
	for _, env := range e.Envs {
		for _, quick := range []bool{false, true} {
			r, err := e.Resolve(Options{Quick: quick, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			add(float64(r.NReps))
			for fi := range r.Facets {
				for _, x := range r.ValuesOf(fi) {
					add(x)
					add(100 * x)
				}
			}
			for _, p := range r.Points() {
				s, err := r.Spec(p, 0)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(s)
				var v any
				_ = json.Unmarshal(b, &v)
				var walk func(any)
				walk = func(v any) {
					switch x := v.(type) {
					case map[string]any:
						for _, y := range x {
							walk(y)
						}
					case []any:
						for _, y := range x {
							walk(y)
						}
					case float64:
						for _, k := range []float64{1, 1e-9, 1e-6, 1e-3, 100, 1.0 / 1024} {
							add(x * k)
						}
					}
				}
				walk(v)
			}
		}
	}
	for _, p := range e.Published {
		for _, n := range numbersIn(p.Claim) {
			add(n)
		}
		if p.Paper != nil {
			add(*p.Paper)
		}
		add(p.Ref)
		add(p.MinX)
	}
	for _, n := range numbersIn(e.Title + " " + e.Paper) {
		add(n)
	}
}

// TestStaticNotesStateNoMeasurements: a number in a static note of the
// report (Notes, EnvNotes, What, a claim's Note) must be an input, a
// parameter of the experiment, a constant of the code (noteInputs) or a
// paper's number; what a run measured goes into Findings, computed from the
// run's results, so no note can disagree with the data it sits beside.
func TestStaticNotesStateNoMeasurements(t *testing.T) {
	papers := map[float64]bool{}
	for _, e := range All() {
		for _, p := range e.Published {
			for _, n := range numbersIn(p.Claim) {
				papers[n] = true
			}
			if p.Paper != nil {
				papers[*p.Paper] = true
			}
		}
	}
	for _, e := range All() {
		allowed := map[float64]bool{}
		add := func(v float64) {
			allowed[v] = true
			allowed[math.Round(v*1e6)/1e6] = true
		}
		specNumbers(t, e, add)
		for _, v := range noteInputs {
			add(v)
		}
		texts := map[string]string{"what": e.What}
		for i, n := range e.Notes {
			texts["note "+strconv.Itoa(i)] = n
		}
		for env, ns := range e.EnvNotes {
			for i, n := range ns {
				texts[env+" note "+strconv.Itoa(i)] = n
			}
		}
		for _, p := range e.Published {
			texts["why of "+p.Claim] = p.Note
			for env, n := range p.NoteIn {
				texts[env+" why of "+p.Claim] = n
			}
		}
		for where, text := range texts {
			for _, n := range numbersIn(text) {
				if !allowed[n] && !allowed[math.Round(n*1e6)/1e6] && !papers[n] {
					t.Errorf("%s, %s: states %v, which is neither an input of the experiment nor a paper's number nor in noteInputs (a measurement belongs in Findings):\n%s", e.Name, where, n, text)
				}
			}
		}
	}
}

// TestFindingsFromResults: the computed notes of the deadlock study and
// fig8 state the numbers of the summary they are computed from (a quick
// run with a fake runner that returns known meters).
func TestNumbersIn(t *testing.T) {
	got := numbersIn("FaTLease Sec. 5.2 says 4,096 leases in fig9's table, 2020s CPUs, 16.5 ms, e) panel, paxoslease/testdata/deadlock-2.txt")
	want := []float64{4096, 16.5}
	if len(got) != len(want) {
		t.Fatalf("numbersIn = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("numbersIn = %v, want %v", got, want)
		}
	}
}

// TestFindingsAgreeWithData: the computed notes of the report state the
// numbers of the data written beside them: each number a finding names
// is recomputed here from the summary CSV (not from the Report the
// finding was computed from), for a fake run whose meters are known.
func TestFindingsAgreeWithData(t *testing.T) {
	dir, reports, err := reproduce(t, 2, fakeRun)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Report{}
	for _, r := range reports {
		byName[r.Exp.Name] = r
	}
	// sum and mean of a meter's column over the summary rows that match.
	column := func(exp, facet, variant, col string, x float64, allX bool) (sum, mean float64) {
		rows := readCSV(t, filepath.Join(dir, exp+"_summary.csv"))
		idx := map[string]int{}
		for i, h := range rows[0] {
			idx[h] = i
		}
		for _, row := range rows[1:] {
			xv, _ := strconv.ParseFloat(row[3], 64)
			if row[1] != facet || row[2] != variant || (!allX && xv != x) {
				continue
			}
			v, _ := strconv.ParseFloat(row[idx[col]], 64)
			sum += v
			mean = v
		}
		return sum, mean
	}
	has := func(exp string, want string) {
		t.Helper()
		fs := byName[exp].Exp.Findings(byName[exp])
		if !strings.Contains(strings.Join(fs, "\n"), want) {
			t.Errorf("%s findings do not state %q:\n%s", exp, want, strings.Join(fs, "\n"))
		}
	}
	naive, _ := column("deadlock", "", "naive", "static_deadlocks_sum", 0, true)
	has("deadlock", "naive "+numText(naive)+",")
	if naive == 0 {
		t.Error("the fake run gives naive static deadlocks; the check above is vacuous")
	}
	_, cp := column("fig8", "RTT 0.5 ms", "classicpaxos", "latency_ms.mean_mean", 1, false)
	_, fl := column("fig8", "RTT 0.5 ms", "fatlease", "latency_ms.mean_mean", 1, false)
	has("fig8", "classic Paxos takes "+numText(cp)+" ms against FaTLease's "+numText(fl)+" ms")
	acq, _ := column("fig10", "", "fatlease", "leases_acquired_sum", 0, true)
	has("fig10", "fatlease acquired "+numText(acq)+" of ")
	_, tp := column("fig5", "", "naive", "leases_per_sec_mean", 100, false)
	has("fig5", "naive: ") // the fake's throughput falls with the batch: the largest is at 100
	has("fig5", " to "+numText(tp)+" leases/s")
}

// The setup line states what every run of the experiment had: the
// contention study sweeps the proposers, so it does not say "3 proposers";
// a facet that changes nothing says so instead of an empty sentence; a
// study that sets the proposers per facet says so; one run per point is
// not a confidence interval "over 1 runs".
func TestSetupTextSaysWhatVaries(t *testing.T) {
	for _, tc := range []struct {
		exp       Experiment
		want, not []string
	}{
		{contentionExp(), []string{"3 acceptors, proposers as swept (below)", "Facet *" + contRelBackoff + "*: the setup above, unchanged."},
			[]string{"proposers,", ": ."}},
		{deadlockExp(), []string{"3 acceptors, proposers as swept, or as the facets and variants below set them"}, []string{": ."}},
		{fig7(), []string{"3 acceptors, 1 proposer;"}, []string{"as swept"}},
	} {
		e, err := tc.exp.Resolve(Options{Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		text := setupText(&Report{Exp: e})
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: setup text lacks %q:\n%s", e.Name, w, text)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(text, n) {
				t.Errorf("%s: setup text has %q:\n%s", e.Name, n, text)
			}
		}
	}
	e, err := fig7().Resolve(Options{Quick: true, Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (&Report{Exp: e}).summaryTable(&b); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "over 1 runs") || !strings.Contains(s, "one run per row") {
		t.Errorf("results heading with one run per point:\n%.300s", s)
	}
}

// A simulated batch figure's chart says on the chart itself that its
// throughput is the simulator's bound (fig10 reaches hundreds of millions
// of leases/s); over UDP it does not.
func TestSimulatedThroughputCaveatOnChart(t *testing.T) {
	for _, env := range []string{"sim", "udp"} {
		e, err := fig10().Resolve(Options{Quick: true, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		fig, err := (&Report{Exp: e}).Figure()
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(strings.Join(fig.Notes, "\n"), "Simulated throughput is a bound")
		if has != (env == "sim") {
			t.Errorf("--env %s: chart notes %q", env, fig.Notes)
		}
	}
}

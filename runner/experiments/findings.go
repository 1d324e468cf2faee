package experiments

import (
	"fmt"
	"math"
	"strings"
	"time"

	"leaselab/plots"
	"leaselab/runner"
)

// Findings are report notes whose numbers come from the run's own results
// (Experiment.Findings), so that they cannot drift from the data: a note
// that states a measured number is a function of the Report, never a
// string. Static notes (Notes, EnvNotes, Published.Note) carry only
// inputs: parameters of the setup and the papers' own numbers
// (TestStaticNotesStateNoMeasurements checks this).

// sweepTotal sums a meter over every sweep value and repetition of one
// series (NaN if the series has no value).
func (r *Report) sweepTotal(facet, variant, meter string) float64 {
	fi := r.Exp.facetIndex(facet)
	if fi < 0 {
		return math.NaN()
	}
	sum, n := 0.0, 0
	for xi := range r.Exp.ValuesOf(fi) {
		if st, ok := r.stat(facet, variant, xi, meter); ok && st.N > 0 {
			sum += st.Sum
			n += st.N
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum
}

// statAtX is a series' statistic at sweep value x of its facet.
func (r *Report) statAtX(facet, variant string, x float64, meter string) (Stat, bool) {
	fi := r.Exp.facetIndex(facet)
	if fi < 0 {
		return Stat{}, false
	}
	for xi, v := range r.Exp.ValuesOf(fi) {
		if v == x {
			st, ok := r.stat(facet, variant, xi, meter)
			return st, ok && st.N > 0
		}
	}
	return Stat{}, false
}

// meanOver is the mean of a meter's point means over the sweep values of
// a facet from minX on (NaN if none).
func (r *Report) meanOver(facet, variant, meter string, minX float64) float64 {
	fi := r.Exp.facetIndex(facet)
	if fi < 0 {
		return math.NaN()
	}
	sum, n := 0.0, 0
	for xi, x := range r.Exp.ValuesOf(fi) {
		if x < minX {
			continue
		}
		if st, ok := r.stat(facet, variant, xi, meter); ok && st.N > 0 {
			sum += st.Mean
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

func pctText(f float64) string { return plots.FormatNumber(math.Round(1000*f)/10) + "%" }

func numText(v float64) string { return plots.FormatNumber(v) }

// deadlockFindings: where each algorithm deadlocks statically, how often,
// and how PaxosLease compares with the naive vote.
func deadlockFindings(r *Report) []string {
	var out []string
	e := r.Exp
	runs := e.NReps
	var parts []string
	for _, v := range e.Variants {
		n := r.sweepTotal("", v.Name, "static_deadlocks")
		if math.IsNaN(n) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", v.Name, numText(n)))
	}
	if len(parts) > 0 {
		out = append(out, fmt.Sprintf("Static-deadlock episodes over the whole proposer sweep without message loss (%s per point, all points): %s.",
			plural(runs, "run"), strings.Join(parts, ", ")))
	}
	fi := e.facetIndex(deadlockLossFacet)
	if fi < 0 {
		return out
	}
	loss := e.ValuesOf(fi)
	row := func(variant string) (string, bool) {
		var cells []string
		for _, x := range loss {
			n, ok1 := r.statAtX(deadlockLossFacet, variant, x, "static_deadlocks")
			f, ok2 := r.statAtX(deadlockLossFacet, variant, x, "static_deadlock_fraction")
			if !ok1 || !ok2 {
				return "", false
			}
			cells = append(cells, fmt.Sprintf("%s per run (%s of wanted time) at %s loss", numText(n.Mean), pctText(f.Mean), pctText(x)))
		}
		return strings.Join(cells, ", "), true
	}
	for _, v := range []string{"paxoslease", "naive"} {
		if text, ok := row(v); ok {
			out = append(out, fmt.Sprintf("With %d proposers, %s has %s.", deadlockLossProposers, v, text))
		}
	}
	// PaxosLease against the naive vote, at the largest loss both have.
	for i := len(loss) - 1; i >= 0; i-- {
		x := loss[i]
		p, ok1 := r.statAtX(deadlockLossFacet, "paxoslease", x, "static_deadlock_fraction")
		nv, ok2 := r.statAtX(deadlockLossFacet, "naive", x, "static_deadlock_fraction")
		pn, ok3 := r.statAtX(deadlockLossFacet, "paxoslease", x, "static_deadlocks")
		nn, ok4 := r.statAtX(deadlockLossFacet, "naive", x, "static_deadlocks")
		if !(ok1 && ok2 && ok3 && ok4) || p.Mean == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("At %s loss PaxosLease spends %s of the wanted time in static deadlock against the naive vote's %s (%s× less), in %s episodes per run against %s.",
			pctText(x), pctText(p.Mean), pctText(nv.Mean), numText(math.Round(10*nv.Mean/p.Mean)/10), numText(pn.Mean), numText(nn.Mean)))
		break
	}
	if n, ok := r.statAtX("", "paxoslease (no backoff)", deadlockLossProposers, "static_deadlocks"); ok {
		if f, ok := r.statAtX("", "paxoslease (no backoff)", deadlockLossProposers, "static_deadlock_fraction"); ok && n.Mean > 0 {
			out = append(out, fmt.Sprintf("Without backoff, PaxosLease at %d proposers and no loss has %s static-deadlock episodes per run, %s of the wanted time: proposers that retry at once pre-empt each other's rounds half-way, until two proposals sit at one acceptor each (a split accept) or a proposal that won a majority belongs to a proposer that has moved on to a new round, and everyone waits out the lease span.",
				deadlockLossProposers, numText(n.Mean), pctText(f.Mean)))
		}
	}
	return out
}

// fig8Findings: what classic Paxos's fsyncs cost, from the runs.
func fig8Findings(r *Report) []string {
	const facet = "RTT 0.5 ms"
	var out []string
	fsyncMS := float64(paperFsync) / float64(time.Millisecond)
	cp, ok1 := r.statAtX(facet, "classicpaxos", 1, "latency_ms.mean")
	fl, ok2 := r.statAtX(facet, "fatlease", 1, "latency_ms.mean")
	if ok1 && ok2 {
		d := cp.Mean - fl.Mean
		out = append(out, fmt.Sprintf("At one acceptor classic Paxos takes %s ms against FaTLease's %s ms: the lone node is the whole majority, nothing crosses the network, and the %s ms between them are its own fsyncs of the promise and then of the accepted lease, %s times the simulated fsync latency (%s ms mean, lognormal).",
			numText(cp.Mean), numText(fl.Mean), numText(d), numText(math.Round(10*d/fsyncMS)/10), numText(fsyncMS)))
	}
	c := r.meanOver(facet, "classicpaxos", "latency_ms.mean", 2)
	f := r.meanOver(facet, "fatlease", "latency_ms.mean", 2)
	if !math.IsNaN(c) && !math.IsNaN(f) {
		d := c - f
		out = append(out, fmt.Sprintf("From 2 acceptors on, classic Paxos adds %s ms to a negotiation on average (RTT 0.5 ms), %s times the fsync latency: in each of the two phases the proposer's own acceptor and the remote ones sync at the same time, and the phase waits for the majority's, so a negotiation waits for about two fsyncs in series, as the paper's separate proposer did.",
			numText(d), numText(math.Round(10*d/fsyncMS)/10)))
	}
	return out
}

// fig10Findings: what each algorithm got through under the writer.
func fig10Findings(r *Report) []string {
	var parts []string
	for _, v := range r.Exp.Variants {
		acq := r.sweepTotal("", v.Name, "leases_acquired")
		failed := r.sweepTotal("", v.Name, "leases_failed")
		to := r.sweepTotal("", v.Name, "timeouts")
		if math.IsNaN(acq) || math.IsNaN(failed) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s acquired %s of %s leases requested (%s timeouts)", v.Name, numText(acq), numText(acq+failed), numText(to)))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Over every batch size and repetition of this run (%s): %s.", r.Exp.Env, strings.Join(parts, "; "))}
}

// batchFindings: per series, the throughput range, timeouts and failures
// over the sweep, the first batch size with a timeout, and classic
// Paxos's throughput as a share of FaTLease's (fig5, fig6, fig7).
func batchFindings(r *Report) []string {
	var out []string
	e := r.Exp
	values := e.ValuesOf(0)
	means := func(variant, meter string) []float64 {
		var ms []float64
		for xi := range values {
			st, ok := r.stat("", variant, xi, meter)
			if !ok || st.N == 0 {
				ms = append(ms, math.NaN())
				continue
			}
			ms = append(ms, st.Mean)
		}
		return ms
	}
	for _, v := range e.Variants {
		tp := means(v.Name, "leases_per_sec")
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range tp {
			if !math.IsNaN(x) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		if math.IsInf(lo, 1) {
			continue
		}
		to := r.sweepTotal("", v.Name, "timeouts")
		failed := r.sweepTotal("", v.Name, "leases_failed")
		tos := numText(to) + " timeouts"
		if math.IsNaN(to) {
			tos = "timeouts not measured"
		}
		s := fmt.Sprintf("%s: %s to %s leases/s over the sweep, %s and %s failed leases in all runs", v.Name, numText(lo), numText(hi), tos, numText(failed))
		first := math.NaN()
		for xi, m := range means(v.Name, "timeouts") {
			if m > 0 {
				first = values[xi]
				break
			}
		}
		if !math.IsNaN(first) {
			s += fmt.Sprintf(", the first at %s leases", numText(first))
		}
		out = append(out, s+".")
	}
	cp, fl := means("classicpaxos", "leases_per_sec"), means("fatlease", "leases_per_sec")
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range cp {
		if i < len(fl) && fl[i] > 0 && !math.IsNaN(cp[i]) {
			q := cp[i] / fl[i]
			lo, hi = math.Min(lo, q), math.Max(hi, q)
		}
	}
	if !math.IsInf(lo, 1) {
		out = append(out, fmt.Sprintf("Classic Paxos's throughput is %s to %s of FaTLease's at the same batch size.", pctText(lo), pctText(hi)))
	}
	return out
}

// peakOver is a series' highest point mean of meter over its facet's
// sweep, and the sweep value where it is (ok false if the series has none).
func (r *Report) peakOver(facet, variant, meter string) (peak, at float64, ok bool) {
	fi := r.Exp.facetIndex(facet)
	if fi < 0 {
		return 0, 0, false
	}
	peak = math.Inf(-1)
	for xi, x := range r.Exp.ValuesOf(fi) {
		if st, found := r.stat(facet, variant, xi, meter); found && st.N > 0 && st.Mean > peak {
			peak, at, ok = st.Mean, x, true
		}
	}
	return peak, at, ok
}

// lastStat is a series' statistic at the largest sweep value of its facet.
func (r *Report) lastStat(facet, variant, meter string) (Stat, float64, bool) {
	fi := r.Exp.facetIndex(facet)
	if fi < 0 {
		return Stat{}, 0, false
	}
	vals := r.Exp.ValuesOf(fi)
	x := vals[len(vals)-1]
	st, ok := r.statAtX(facet, variant, x, meter)
	return st, x, ok
}

// runSpec is the spec of the first run of a series that ran (ok false if
// none did), for the setup the findings compute bounds from.
func (r *Report) runSpec(facet string) (runner.Spec, bool) {
	for _, rec := range r.Runs {
		if rec.Facet == facet && rec.Err == "" && rec.Peer == "" {
			return rec.Result.Params, true
		}
	}
	return runner.Spec{}, false
}

// contentionFindings: each curve against the round-trip bound, and what
// holds it below: pre-emptions, time waiting out a lease span, backoff,
// and without release the lease span itself.
func contentionFindings(r *Report) []string {
	s, ok := r.runSpec(contRelBackoff)
	if !ok {
		return nil
	}
	algos := []string{"naive-undo", "paxoslease", "fatlease", "classicpaxos"}
	out := []string{contentionBound(s)}
	// One paragraph per configuration of the experiment; a configuration
	// that did not run says nothing.
	for _, p := range []string{
		releaseBackoffFinding(r, s, algos),
		fairnessFinding(r, algos),
		noBackoffFinding(r, algos),
		releaseOffFinding(r, s, algos),
		etcdContentionFinding(r),
	} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// contentionBound: the hand-off rate one or two round trips plus the hold
// allow, and the blocked time they imply, for the setup s.
func contentionBound(s runner.Spec) string {
	rtt, hold := s.Net.RTT, s.Hold
	one := 1 / (rtt + hold).Seconds()
	two := 1 / (2*rtt + hold).Seconds()
	return fmt.Sprintf("Bound: with this run's %s round trip and %s hold, one hand-off per round trip plus hold is %s hand-offs/s; "+
		"with two round trips per acquisition (prepare and propose), %s/s. The same arithmetic bounds the blocked time from below while "+
		"someone always waits: nobody holds during each acquisition, at least %s of the time with one round trip and %s with two.",
		rtt, hold, numText(math.Round(one)), numText(math.Round(two)), pctText(rtt.Seconds()/(rtt+hold).Seconds()), pctText((2*rtt).Seconds()/(2*rtt+hold).Seconds()))
}

// releaseBackoffFinding: with release on and the default backoff, each
// algorithm's peak against its own round-trip bound and what limits it.
func releaseBackoffFinding(r *Report, s runner.Spec, algos []string) string {
	var parts []string
	for _, v := range algos {
		if p, ok := releaseBackoffPart(r, s, v); ok {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Release on, default backoff: " + strings.Join(parts, ". ") + "."
}

// releaseBackoffPart is releaseBackoffFinding's sentence on variant v
// (ok false if v did not run).
func releaseBackoffPart(r *Report, s runner.Spec, v string) (string, bool) {
	peak, at, ok := r.peakOver(contRelBackoff, v, "handoffs_per_sec")
	if !ok {
		return "", false
	}
	// Round trips per acquisition: the naive vote asks once, the Paxos
	// family prepares and then proposes.
	trips := map[string]time.Duration{"naive-undo": 1, "paxoslease": 2, "fatlease": 2, "classicpaxos": 2}
	own := 1 / (trips[v]*s.Net.RTT + s.Hold).Seconds()
	near := "far below it"
	if peak >= own/2 {
		near = "near it"
	}
	tripText := "1 round trip"
	if trips[v] > 1 {
		tripText = fmt.Sprintf("%d round trips", trips[v])
	}
	p := fmt.Sprintf("%s peaks at %s/s with %s contenders, %s of its own bound (%s + hold: %s/s), %s",
		v, numText(math.Round(peak)), numText(at), pctText(peak/own), tripText, numText(math.Round(own)), near)
	sh, okShare := r.statAtX(contRelBackoff, v, at, "handoff_share")
	if okShare {
		p += fmt.Sprintf("; there %s of its leases went to another node", pctText(sh.Mean))
	}
	pl, x, okPL := r.lastStat(contRelBackoff, v, "preemptions_per_lease")
	if okPL {
		p += fmt.Sprintf("; at %s contenders it loses %s rounds per lease", numText(x), numText(math.Round(100*pl.Mean)/100))
		if b, _, ok := r.lastStat(contRelBackoff, v, "blocked_fraction"); ok {
			p += fmt.Sprintf(" and nobody holds for %s of the wanted time", pctText(b.Mean))
		}
	}
	// What limits it, from the same numbers.
	switch {
	case okShare && sh.Mean < 0.5:
		p += fmt.Sprintf(". Limit: backoff; the releasing holder pauses at most %s and asks again while the others wait out a backoff of up to %s, so it mostly wins again and the lease is acquired far more often than it changes hands",
			s.Pause, s.Params.Backoff)
	case peak >= own/2:
		p += ". Limit: the round trips"
	case okPL:
		p += fmt.Sprintf(". Limit: lost rounds; nearly every lease is a hand-off, but contenders pre-empt each other (%s rounds per lease at %s contenders)",
			numText(math.Round(100*pl.Mean)/100), numText(x))
		if r.Exp.Env == "udp" {
			p += ", and every message costs CPU time on this shared machine"
		}
	}
	return p, true
}

// fairnessFinding: Jain's index at the most contenders, release on,
// default backoff, etcd included.
func fairnessFinding(r *Report, algos []string) string {
	var parts, unfair []string
	for _, v := range append(algos[:len(algos):len(algos)], "etcd") {
		if fa, x, ok := r.lastStat(contRelBackoff, v, "fairness"); ok {
			parts = append(parts, fmt.Sprintf("%s %s (%s contenders)", v, numText(math.Round(1000*fa.Mean)/1000), numText(x)))
			if fa.Mean < 0.5 {
				unfair = append(unfair, v)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	f := "Fairness, Jain's index of the leases each contender got (1: all alike; 1/P: one got them all), release on, default backoff, at the most contenders: " + strings.Join(parts, "; ") + "."
	if len(unfair) > 0 {
		f += " Below 0.5 (" + strings.Join(unfair, ", ") + ") a few contenders take most leases while the others wait: their hand-offs per second pass the lease among those few."
	}
	return f
}

// noBackoffFinding: release on, no backoff, against the peaks with it.
func noBackoffFinding(r *Report, algos []string) string {
	var parts []string
	for _, v := range algos {
		with, _, ok1 := r.peakOver(contRelBackoff, v, "handoffs_per_sec")
		without, _, ok2 := r.peakOver(contRelNoBackoff, v, "handoffs_per_sec")
		if !ok1 || !ok2 {
			continue
		}
		p := fmt.Sprintf("%s peaks at %s/s (%s with backoff)", v, numText(math.Round(without)), numText(math.Round(with)))
		if pl, x, ok := r.lastStat(contRelNoBackoff, v, "preemptions_per_lease"); ok {
			p += fmt.Sprintf(", %s pre-empted rounds per lease at %s contenders", numText(math.Round(100*pl.Mean)/100), numText(x))
		}
		if sd, _, ok := r.lastStat(contRelNoBackoff, v, "static_deadlock_fraction"); ok && sd.Mean > 0 {
			p += fmt.Sprintf(", %s of the wanted time waiting out a lease span", pctText(sd.Mean))
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Release on, no backoff: " + strings.Join(parts, "; ") +
		". Retrying at once trades the backoff wait for collisions: rounds pre-empt each other, and where a round fails half-way (a split accept) the acceptors' state blocks everyone until the lease span ends."
}

// releaseOffFinding: without release every hand-off waits out a lease
// span; the peaks with and without backoff against that bound.
func releaseOffFinding(r *Report, s runner.Spec, algos []string) string {
	span := s.Params.LeaseSpan
	perSpan := 1 / span.Seconds()
	var parts []string
	for _, f := range []string{contExpBackoff, contExpNoBackoff} {
		for _, v := range algos {
			peak, _, ok := r.peakOver(f, v, "handoffs_per_sec")
			if !ok {
				continue
			}
			p := fmt.Sprintf("%s (%s) %s/s", v, f, numText(math.Round(peak)))
			if sh, _, ok := r.lastStat(f, v, "handoff_share"); ok {
				p += fmt.Sprintf(" with %s of its leases to another node", pctText(sh.Mean))
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Release off: every hand-off waits for the last lease's %s span to end, a bound of %s hand-offs/s; "+
		"peaks (and, at the most contenders, the share of leases that went to another node): %s. "+
		"A share near 0 means the last holder, whose own state tells it when the lease ends, asks again first and keeps it: then the lease is acquired about once per span but hardly changes hands.",
		span, numText(math.Round(perSpan)), strings.Join(parts, "; "))
}

// etcdContentionFinding: etcd's peak and why its hand-off is a commit.
func etcdContentionFinding(r *Report) string {
	peak, at, ok := r.peakOver(contRelBackoff, "etcd", "handoffs_per_sec")
	if !ok {
		return ""
	}
	return fmt.Sprintf("etcd peaks at %s hand-offs/s with %s contenders: a Mutex's waiters queue by revision and each Unlock is a Raft write (fsync) that wakes the next waiter through a watch, so its hand-off costs a commit, not a contest.",
		numText(math.Round(peak)), numText(at))
}

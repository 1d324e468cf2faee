package campaign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/fatlease"   // free-clock allowance of an algorithm that assumes a skew bound
	_ "leaselab/paxoslease" // the campaign faults run against a real algorithm
	"leaselab/runner"
)

// traceLine is the part of a JSON trace record these tests read.
type traceLine struct {
	T      int64  `json:"t_ns"`
	Node   int    `json:"node"`
	What   string `json:"what"`
	Input  string `json:"input"`
	Event  string `json:"event"`
	Res    int    `json:"res"`
	Offset int64  `json:"offset_ns"`
	Rate   int64  `json:"rate_ppb"`
	Msg    *struct {
		Kind   string `json:"kind"`
		From   int    `json:"from"`
		To     int    `json:"to"`
		Res    int    `json:"res"`
		Ballot string `json:"ballot"`
	} `json:"msg"`
}

func runTrace(t *testing.T, spec runner.Spec) (runner.Result, []traceLine) {
	t.Helper()
	var buf bytes.Buffer
	res, err := runner.Run(spec, runner.Options{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	var out []traceLine
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return res, out
}

// Stalled links deliver late and in order: with no jitter, reordering,
// loss, duplication or crash, every link delivers exactly in send order,
// some messages arrive more than a lease span after they were sent, and
// the stale count covers every late one.
func TestStaleLinksDeliverLateInOrder(t *testing.T) {
	spec := runner.DefaultSpec()
	spec.Proposers = 5
	spec.Duration = 2 * time.Minute
	spec.Net = runner.NetSpec{RTT: time.Millisecond, Stale: 2, StaleSpans: 3}
	res, tr := runTrace(t, spec)
	type link struct{ from, to int }
	sent := map[link][]int64{}
	next := map[link]int{}
	late, beyondSpan := 0, 0
	var maxLate int64
	for _, l := range tr {
		if l.Msg == nil || l.Msg.From == l.Msg.To {
			continue
		}
		k := link{l.Msg.From, l.Msg.To}
		switch l.What {
		case "send":
			sent[k] = append(sent[k], l.T)
		case "deliver", "drop":
			i := next[k]
			next[k]++
			if i >= len(sent[k]) {
				t.Fatalf("link %v delivers more than it was sent", k)
			}
			d := l.T - sent[k][i]
			if d < int64(spec.Net.RTT)/2 {
				t.Fatalf("link %v: message %d arrived after %v, before its delay: out of order", k, i, time.Duration(d))
			}
			if d > int64(spec.Net.RTT)/2 {
				late++
			}
			if d > int64(spec.Params.LeaseSpan) {
				beyondSpan++
			}
			if d > maxLate {
				maxLate = d
			}
		}
	}
	t.Logf("%d stale deliveries, %d late, %d more than a lease span late, the latest %v; %d leases",
		res.StaleDelivered, late, beyondSpan, time.Duration(maxLate), res.LeasesAcquired)
	if beyondSpan == 0 || int64(late) > res.StaleDelivered || maxLate > int64(3*spec.Params.LeaseSpan)+int64(spec.Net.RTT) {
		t.Fatalf("stale %d, late %d, beyond a span %d, latest %v", res.StaleDelivered, late, beyondSpan, time.Duration(maxLate))
	}
	if res.Violations != 0 {
		t.Fatalf("paxoslease with stalled links: %d violations", res.Violations)
	}
}

// Late messages are held back alone: later messages on the same link
// overtake them, some by more than a lease span, and none is later than
// stale-max lease spans; each counts as stale.
func TestLateMessagesOvertaken(t *testing.T) {
	spec := runner.DefaultSpec()
	spec.Proposers = 5
	spec.Duration = 2 * time.Minute
	spec.Net = runner.NetSpec{RTT: time.Millisecond, Late: 0.02, StaleSpans: 3}
	res, tr := runTrace(t, spec)
	type link struct{ from, to int }
	sent := map[link]int{}
	type copyKey struct {
		l      link
		kind   string
		ballot string
	}
	sentAt := map[copyKey][]int64{}
	lastSent := map[link]int64{}
	overtaken, beyondSpan := 0, 0
	for _, l := range tr {
		if l.Msg == nil || l.Msg.From == l.Msg.To {
			continue
		}
		k := link{l.Msg.From, l.Msg.To}
		ck := copyKey{k, l.Msg.Kind, l.Msg.Ballot}
		switch l.What {
		case "send":
			sent[k]++
			sentAt[ck] = append(sentAt[ck], l.T)
			lastSent[k] = l.T
		case "deliver", "drop":
			q := sentAt[ck]
			if len(q) == 0 {
				t.Fatalf("link %v delivers a %s it did not send", k, l.Msg.Kind)
			}
			at := q[0]
			sentAt[ck] = q[1:]
			d := l.T - at
			if d > int64(3*spec.Params.LeaseSpan)+int64(spec.Net.RTT) {
				t.Fatalf("link %v: a message %v late, past stale-max", k, time.Duration(d))
			}
			if d > int64(spec.Params.LeaseSpan) {
				beyondSpan++
			}
			if lastSent[k] > at+int64(spec.Net.RTT) {
				overtaken++ // sent later messages on its link before it arrived
			}
		}
	}
	t.Logf("%d stale deliveries, %d overtaken, %d more than a lease span late; %d leases", res.StaleDelivered, overtaken, beyondSpan, res.LeasesAcquired)
	if overtaken == 0 || beyondSpan == 0 || res.StaleDelivered == 0 {
		t.Fatalf("late messages: stale %d, overtaken %d, beyond a span %d", res.StaleDelivered, overtaken, beyondSpan)
	}
	if res.Violations != 0 {
		t.Fatalf("paxoslease with late messages: %d violations", res.Violations)
	}
}

// The client counters agree with what the trace shows the clients did:
// a release input is a mid-round give-up when the node got no Acquired
// since its last Acquire; a release after an Extend input counts as an
// extend-release, and as mid-extension when no Acquired came since the
// Extend. Several resources are asked for.
func TestClientFaultCountersMatchTrace(t *testing.T) {
	spec := runner.DefaultSpec()
	spec.Proposers = 5
	spec.Duration = 3 * time.Minute
	spec.Hold = 3 * time.Second
	spec.Pause = time.Second
	spec.Resources = 3
	spec.Giveup = 0.3
	spec.Extend = 0.5
	spec.Net.Stale, spec.Net.StaleSpans = 1, 3
	res, tr := runTrace(t, spec)
	type client struct {
		res                  int
		acquired, extendedAt bool
		extending            bool
	}
	cl := map[int]*client{}
	var giveups, extensions, extRel, midExt int
	resources := map[int]bool{}
	for _, l := range tr {
		c := cl[l.Node]
		if c == nil {
			c = &client{}
			cl[l.Node] = c
		}
		switch {
		case l.What == "input" && l.Input == "acquire":
			*c = client{res: l.Res}
			resources[l.Res] = true
		case l.What == "input" && l.Input == "extend":
			extensions++
			c.extendedAt, c.extending = true, true
		case l.What == "event" && l.Event == "acquired" && l.Res == c.res:
			c.acquired, c.extending = true, false
		case l.What == "input" && l.Input == "release":
			switch {
			case !c.acquired:
				giveups++
			case c.extendedAt:
				extRel++
				if c.extending {
					midExt++
				}
			}
		}
	}
	got := [4]int{res.GiveupsMidRound, res.Extensions, res.ExtendReleases, res.ReleasesMidExtension}
	want := [4]int{giveups, extensions, extRel, midExt}
	t.Logf("give-ups, extensions, extend-releases, mid-extension releases: %v; resources %d; %d leases, %d violations",
		got, len(resources), res.LeasesAcquired, res.Violations)
	if got != want {
		t.Fatalf("counters %v, trace says %v", got, want)
	}
	for i, n := range got {
		if n == 0 {
			t.Errorf("counter %d never moved: %v", i, got)
		}
	}
	if len(resources) != 3 {
		t.Errorf("asked for %d resources, want 3", len(resources))
	}
	if res.Violations != 0 {
		t.Errorf("paxoslease: %d violations", res.Violations)
	}
}

// Free clocks are never slewed back; edge clocks sit at the extremes.
func TestFreeEdgeClocks(t *testing.T) {
	spec := runner.DefaultSpec()
	spec.Duration = time.Minute
	spec.Clocks = runner.ClockSpec{Skew: 10 * time.Millisecond, Drift: 0.001, Free: true, Edges: true}
	_, tr := runTrace(t, spec)
	clocks := 0
	for _, l := range tr {
		if l.What != "clock" {
			continue
		}
		clocks++
		if l.T != 0 {
			t.Fatalf("a free clock was reset at %v", time.Duration(l.T))
		}
		if math.Abs(float64(l.Offset)) != 5e6 || math.Abs(float64(l.Rate)) != 1e6 {
			t.Fatalf("edge clock with offset %d ns, rate %d ppb", l.Offset, l.Rate)
		}
	}
	if clocks != spec.Proposers {
		t.Fatalf("%d clock records for %d nodes", clocks, spec.Proposers)
	}
	// The same clocks slewed turn round within the minute (each offset
	// reaches ±5 ms after 5 s at 1000 ppm).
	spec.Clocks.Free = false
	_, tr = runTrace(t, spec)
	slews := 0
	for _, l := range tr {
		if l.What == "clock" && l.T > 0 {
			slews++
		}
	}
	if slews == 0 {
		t.Fatal("slewed clocks never turned round")
	}
}

// A campaign's fault kinds take effect, each seed drawing its own rates,
// and the exercised counts say so; a rate fixed by the caller, zero
// included, is not drawn.
func TestCampaignKindsAndFixedZeros(t *testing.T) {
	base := runner.DefaultSpec()
	base.Proposers = 5
	base.Duration = 2 * time.Minute
	kinds := []string{"stale", "giveup", "extend", "resources", "freeclock"}
	cs := CheckSpec{Base: base, Faults: kinds, Seeds: 6, FirstSeed: 1}
	cr, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := cr.Exercised
	t.Logf("%+v, %d leases", e, cr.LeasesAcquired)
	if e.Count("stale_delivered") == 0 || e.Count("giveups_mid_round") == 0 || e.Count("extensions") == 0 || e.Count("extend_releases") == 0 ||
		e.Count("multi_resource_seeds") != int64(cs.Seeds) || e.Count("free_clock_seeds") == 0 || e.Count("crashes") != 0 {
		t.Fatalf("exercised %+v", e)
	}
	if cr.Violations != 0 {
		t.Fatalf("%d violations", cr.Violations)
	}

	all := CheckSpec{Base: base, Faults: []string{"all"}}
	drawn, err := CheckSpecFor(all, 3)
	if err != nil {
		t.Fatal(err)
	}
	if drawn.Net.Loss == 0 || drawn.Net.Stale == 0 || drawn.Giveup == 0 || drawn.Faults.CrashRate == 0 || drawn.Resources < 2 {
		t.Fatalf("all: nothing drawn: %+v", drawn)
	}
	all.Vary.Fixed = []string{"loss", "stale", "giveup", "crash-rate", "resources", "drift", "skew"}
	fixed, err := CheckSpecFor(all, 3)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Net.Loss != 0 || fixed.Net.Stale != 0 || fixed.Giveup != 0 || fixed.Faults.CrashRate != 0 ||
		fixed.Resources != 0 || fixed.Clocks.Drift != 0 || fixed.Clocks.Skew != 0 {
		t.Fatalf("fixed zeros were drawn: %+v", fixed)
	}
	if fixed.Net.Dup != drawn.Net.Dup || fixed.Extend != drawn.Extend {
		t.Fatalf("fixing some rates moved others: dup %g/%g, extend %g/%g", fixed.Net.Dup, drawn.Net.Dup, fixed.Extend, drawn.Extend)
	}
}

// A free-running clock campaign keeps an algorithm that assumes a skew
// bound within ClockAllowance for the whole run, and leaves the others
// their full drift allowance.
func TestFreeClockAllowance(t *testing.T) {
	for _, algo := range []string{"fatlease", "paxoslease"} {
		a, err := algorithms.Lookup(algo)
		if err != nil {
			t.Fatal(err)
		}
		base := runner.DefaultSpec()
		base.Algo = algo
		base.Duration = 10 * time.Minute
		maxRate := 0.0
		for seed := uint64(1); seed <= 50; seed++ {
			s, err := CheckSpecFor(CheckSpec{Base: base, Faults: []string{"freeclock"}}, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Clocks.Free || !s.Clocks.Edges {
				t.Fatalf("%s seed %d: clocks not free at the edges", algo, seed)
			}
			worst := float64(s.Clocks.Skew) + 2*s.Clocks.Drift*float64(s.Duration)
			if a.SkewBound && worst > float64(ClockAllowance(s.Params)) {
				t.Fatalf("%s seed %d: clocks may drift %v apart, allowance %v", algo, seed, time.Duration(worst), ClockAllowance(s.Params))
			}
			if s.Clocks.Drift > s.Params.Drift {
				t.Fatalf("%s seed %d: drift %g beyond the bound %g", algo, seed, s.Clocks.Drift, s.Params.Drift)
			}
			maxRate = math.Max(maxRate, s.Clocks.Drift)
		}
		if !a.SkewBound && maxRate < 0.9*base.Params.Drift {
			t.Errorf("%s: rates up to %g only, allowance %g", algo, maxRate, base.Params.Drift)
		}
	}
}

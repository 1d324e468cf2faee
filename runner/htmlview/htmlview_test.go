package htmlview

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	"leaselab/runner"
	"leaselab/runner/sim"
)

// counter counts the trace records of each kind.
type counter map[runner.TraceKind]int

func (c counter) Observe(r *runner.TraceRec) { c[r.Kind]++ }

// replayPage replays a scenario with a violation and builds its page
// data; count has the trace's records by kind.
func replayPage(t *testing.T) (Data, sim.ReplayResult, counter) {
	t.Helper()
	f, err := os.Open("../../paxoslease/testdata/paxoslease-late-timer.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	col, count := NewCollector(Input{}), counter{}
	rr, err := sim.ReplayWith(f, io.Discard, sim.ReplayOptions{Observers: []runner.Observer{col, count}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Violations) == 0 {
		t.Fatal("the scenario shows no violation")
	}
	in := col.Input()
	in.Title, in.Violations = "late timer <test>", rr.Violations
	return col.Finish(), rr, count
}

// embedded extracts the page's data block.
func embedded(t *testing.T, page string) Data {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="data" type="application/json">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data block")
	}
	var d Data
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return d
}

// The page is one self-contained file: no external URL, no src or href,
// inline style and script, and the data block holds the trace's holds,
// crashes, violations and every message with its send and delivery.
func TestPageStructureAndData(t *testing.T) {
	d0, rr, count := replayPage(t)
	var buf bytes.Buffer
	if err := Render(&buf, d0); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"http://", "https://", " src=", " href=", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: not self-contained", bad)
		}
	}
	// url() only for the page's own patterns and markers (url(#id)).
	if m := regexp.MustCompile(`url\([^#]`).FindString(page); m != "" {
		t.Errorf("page contains %q: not self-contained", m)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<style>", `<svg id="timeline" class="view">`, `<svg id="sequence" class="view">`, `id="zoom-in"`, `id="tip"`, `id="legend"`,
		"late timer &lt;test&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(page, "<script") != 2 {
		t.Errorf("want the data block and one inline script, got %d script tags", strings.Count(page, "<script"))
	}
	d := embedded(t, page)
	if len(d.Violations) != len(rr.Violations) || d.Violations[0].Owners != [2]int{int(rr.Violations[0].Owners[0]), int(rr.Violations[0].Owners[1])} {
		t.Errorf("violations %+v, want those of the replay %+v", d.Violations, rr.Violations)
	}
	if v := d.Violations[0]; v.End-v.Start != rr.Violations[0].OverlapNS {
		t.Errorf("violation overlap %d, want %d", v.End-v.Start, rr.Violations[0].OverlapNS)
	}
	if len(d.Holds) < 2 || len(d.Crashes) != 1 || len(d.Rows) != 5 {
		t.Errorf("%d holds, %d crashes, %d rows; want >= 2, 1, 5", len(d.Holds), len(d.Crashes), len(d.Rows))
	}
	sends := count[runner.TraceSend]
	if d.TotalMsgs != sends || len(d.Msgs) != sends || d.Kept != "" {
		t.Errorf("%d messages embedded of %d, trace has %d sends (kept %q)", len(d.Msgs), d.TotalMsgs, sends, d.Kept)
	}
	delivered := 0
	for _, m := range d.Msgs {
		if m.Kind == "" || m.Ballot == "" {
			t.Errorf("message without kind or ballot: %+v", m)
		}
		if m.Deliver >= 0 {
			delivered++
			if m.Deliver < m.Send {
				t.Errorf("delivered before sent: %+v", m)
			}
		} else if m.Drop == "" {
			t.Errorf("undelivered message without a reason: %+v", m)
		}
	}
	if delivered != count[runner.TraceDeliver] {
		t.Errorf("%d messages delivered, trace has %d deliveries", delivered, count[runner.TraceDeliver])
	}
}

// A long run's file stays bounded: at most Limits.Messages messages, the
// ones nearest the violation, and the page says so.
func TestLimitsKeepMessagesNearViolations(t *testing.T) {
	s := runner.DefaultSpec()
	s.Duration = 60 * time.Second
	s.Faults.CrashRate, s.Faults.Partitions = 2, 2
	viol := runner.Violation{Resource: 0, StartNS: int64(30 * time.Second), OverlapNS: int64(time.Millisecond)}
	in := Input{Title: "bounded", Nodes: 3, Acceptors: 3, Proposers: 3, Violations: []runner.Violation{viol},
		Limits: Limits{Messages: 50, Holds: 5}}
	bounded := NewCollector(in)
	in.Limits.Messages = 1 << 30
	whole := NewCollector(in)
	in.Limits.Messages, in.Violations = 50, nil
	noViolation := NewCollector(in)
	res, err := runner.Run(s, runner.Options{Observers: []runner.Observer{bounded, whole, noViolation}})
	if err != nil {
		t.Fatal(err)
	}
	finish := func(c *Collector) Data {
		c.Input().EndNS = res.SimulatedNS
		return c.Finish()
	}
	d, all := finish(bounded), finish(whole)
	if d.TotalMsgs <= 50 || len(d.Msgs) != 50 || !strings.Contains(d.Kept, "nearest a violation") {
		t.Fatalf("%d of %d messages kept (%q)", len(d.Msgs), d.TotalMsgs, d.Kept)
	}
	if len(d.Holds) != 5 || d.TotalHolds <= 5 {
		t.Errorf("%d of %d holds kept, want 5", len(d.Holds), d.TotalHolds)
	}
	if len(d.Partitions) == 0 && res.PartitionCount > 0 {
		t.Errorf("no partitions in the page, the run had %d", res.PartitionCount)
	}
	// Every kept message is at least as near the violation as every
	// message left out.
	kept := map[Msg]bool{}
	far := int64(0)
	for i, m := range d.Msgs {
		if i > 0 && m.Send < d.Msgs[i-1].Send {
			t.Fatalf("kept messages out of send order")
		}
		kept[m] = true
		far = max(far, abs(m.Send-viol.StartNS))
	}
	for _, m := range all.Msgs {
		if !kept[m] && abs(m.Send-viol.StartNS) < far {
			t.Fatalf("left out a message %v from the violation, kept one %v away", time.Duration(abs(m.Send-viol.StartNS)), time.Duration(far))
		}
	}
	// Without a violation: those nearest the start and the end.
	d = finish(noViolation)
	if !strings.Contains(d.Kept, "nearest the start and the end") || len(d.Msgs) != 50 {
		t.Fatalf("without a violation: %d kept, %q", len(d.Msgs), d.Kept)
	}
	for _, m := range d.Msgs {
		if m.Send > int64(10*time.Second) && m.Send < res.SimulatedNS-int64(10*time.Second) {
			t.Errorf("kept a message sent at %v, far from both ends", time.Duration(m.Send))
		}
	}
}

// Streaming: with a memory bound far below the trace's messages, the
// collector keeps the messages nearest the violation, each paired with its
// own delivery, as one that keeps every message would choose them.
func TestCollectorStreamsWithinMemoryBound(t *testing.T) {
	s := runner.DefaultSpec()
	s.Duration = 60 * time.Second
	viol := runner.Violation{StartNS: int64(45 * time.Second), OverlapNS: 1}
	in := Input{Nodes: 3, Acceptors: 3, Proposers: 3, Violations: []runner.Violation{viol}, Limits: Limits{Messages: 20, Holds: 100}}
	c := NewCollector(in)
	in.Limits.Messages = 1 << 30 // no bound: every message
	whole := NewCollector(in)
	if _, err := runner.Run(s, runner.Options{Observers: []runner.Observer{c, whole}}); err != nil {
		t.Fatal(err)
	}
	got, all := c.Finish(), whole.Finish()
	if got.TotalMsgs != all.TotalMsgs || got.TotalMsgs < 8*20*2 {
		t.Fatalf("streamed %d messages, whole %d (want well above the in-memory bound %d)", got.TotalMsgs, all.TotalMsgs, 8*20)
	}
	want, _ := keepMessages(all.Msgs, all.TotalMsgs, all.Violations, all.Start, all.End, 20)
	if len(got.Msgs) != 20 || !reflect.DeepEqual(got.Msgs, want) {
		t.Errorf("streamed selection differs from the whole trace's:\n%+v\n%+v", got.Msgs, want)
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Records in, page data out: a delivery or drop goes to the earliest
// undelivered send of the same message, one with none left is the
// network's duplicate; what never arrived is in flight at the end; a
// partition's sides are named; a hold still open lasts to the end; the
// trace's violation instants stand when the result has none.
func TestCollectorRecords(t *testing.T) {
	m := algorithms.Message{Kind: algorithms.Prepare, From: 0, To: 1, Resource: 4, Ballot: algorithms.Next(0, 0, 0)}
	m2 := m
	m2.To = 2
	c := NewCollector(Input{Nodes: 3, Acceptors: 3, Proposers: 1})
	for _, r := range []runner.TraceRec{
		{T: 1, Kind: runner.TraceSend, Node: 0, Msg: m},
		{T: 1, Kind: runner.TraceSend, Node: 0, Msg: m2},
		{T: 1, Kind: runner.TraceSend, Node: 0, Msg: m},
		{T: 2, Kind: runner.TraceDeliver, Node: 1, Msg: m},
		{T: 3, Kind: runner.TraceDrop, Sub: runner.DropLoss, Node: 0, Msg: m},
		{T: 4, Kind: runner.TraceDeliver, Node: 1, Msg: m},
		{T: 5, Kind: runner.TracePartition, Node: algorithms.NoNode, X: 0b011},
		{T: 6, Kind: runner.TraceHeal, Node: algorithms.NoNode},
		{T: 7, Kind: runner.TraceHoldStart, Node: 1, Owner: 1, Res: 4, X: 100},
		{T: 8, Kind: runner.TraceCrash, Node: 2},
		{T: 9, Kind: runner.TraceViolation, Node: 0, Owner: 1, X: 0, Res: 4},
		{T: 9, Kind: runner.TracePause, Node: 1, X: 5},
		{T: 9, Kind: runner.TraceWrite, Sub: runner.WriteAccepted, Node: 0, Res: 4, X: 0, Ballot: 7},
		{T: 9, Kind: runner.TraceResume, Node: 1, X: 0},
		{T: 9, Kind: runner.TraceWrite, Sub: runner.WriteStale, Node: 1, Res: 4, X: 0, Ballot: 3},
	} {
		c.Observe(&r)
	}
	d := c.Finish()
	if len(d.Paused) != 1 || d.Paused[0].Node != 1 || d.Paused[0].End != 9 {
		t.Errorf("paused %+v", d.Paused)
	}
	if len(d.Writes) != 2 || d.Writes[1].Node != 1 || d.Writes[1].Note != "stale r4 token 0:3" {
		t.Errorf("writes %+v", d.Writes)
	}
	want := []Msg{
		{Kind: "prepare", From: 0, To: 1, Res: 4, Ballot: m.Ballot.String(), Send: 1, Deliver: 2},
		{Kind: "prepare", From: 0, To: 2, Res: 4, Ballot: m.Ballot.String(), Send: 1, Deliver: -1, Drop: "in flight at the end"},
		{Kind: "prepare", From: 0, To: 1, Res: 4, Ballot: m.Ballot.String(), Send: 1, Deliver: -1, Drop: "loss"},
		{Kind: "prepare", From: 0, To: 1, Res: 4, Ballot: m.Ballot.String(), Send: 1, Deliver: 4, Dup: true},
	}
	if !reflect.DeepEqual(d.Msgs, want) {
		t.Errorf("messages\n%+v\nwant\n%+v", d.Msgs, want)
	}
	if len(d.Partitions) != 1 || d.Partitions[0].Note != "[n0 n1] | [n2]" {
		t.Errorf("partitions %+v", d.Partitions)
	}
	if len(d.Holds) != 1 || d.Holds[0].End != 9 || d.TotalHolds != 1 {
		t.Errorf("holds %+v (%d), want the open one ending at the trace's end 9", d.Holds, d.TotalHolds)
	}
	if len(d.Down) != 1 || d.Down[0] != (Span{Node: 2, Start: 8, End: 9}) {
		t.Errorf("down %+v", d.Down)
	}
	if len(d.Violations) != 1 || d.Violations[0].Owners != [2]int{1, 0} {
		t.Errorf("violations %+v", d.Violations)
	}
	if strings.Join(d.Rows, ",") != "n0 A+P,n1 A,n2 A" {
		t.Errorf("rows %q", d.Rows)
	}
}

// In a real headless browser (Debian's chromium, when installed; CI has
// only Go and skips this): each page renders without a script error, and
// its self-test (#selftest) hovers a message and the violation through
// mouse events, zooms by button and wheel (the tooltip is gone after) and
// pans by dragging. The pages: a replay (with its step axis and the
// nodes' states), a long run whose file leaves messages and holds out
// (hatched), and data whose lists are null (as a UDP run's messages once
// were).
func TestPageInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("browser test in -short mode")
	}
	replay, _, _ := replayPage(t)
	s := runner.DefaultSpec()
	s.Duration = 20 * time.Second
	s.Hold, s.Pause = 20*time.Millisecond, 20*time.Millisecond
	col := NewCollector(Input{Nodes: 3, Acceptors: 3, Proposers: 3, Limits: Limits{Messages: 500, Holds: 50}})
	if _, err := runner.Run(s, runner.Options{Observers: []runner.Observer{col}}); err != nil {
		t.Fatal(err)
	}
	long := col.Finish()
	pf, err := os.Open("../../paxoslease/testdata/pause-stale-write.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	pcol := NewCollector(Input{})
	if _, err := sim.ReplayWith(pf, io.Discard, sim.ReplayOptions{Observers: []runner.Observer{pcol}}); err != nil {
		t.Fatal(err)
	}
	paused := pcol.Finish()
	for _, tc := range []struct {
		name string
		d    Data
		dom  []string // in the rendered page
		self []string // in the self-test's output
	}{
		{"replay", replay,
			[]string{`<rect class="hold"`, `<line class="msg"`, `<rect class="violation"`, `<path class="crash"`, `class="jump-violation"`,
				`<circle class="selfmsg"`, `class="step-label"`, `<rect class="cursor"`},
			[]string{"hover-msg: block ", "ballot ", "sent      step ", "delivered step ", "hover-violation: block VIOLATION on resource 0",
				"step-key: true step ", "states: 5 life ", "time-axis: true"}},
		{"long run", long,
			[]string{`<rect class="hold"`, `<line class="msg"`, `<rect class="gap"`},
			[]string{"hover-msg: block ", "delivered "}},
		{"null lists", Data{Title: "null", Rows: []string{"n0", "n1"}, End: 1e6}, nil, []string{"hover-msg: none"}},
		{"pause and writes", paused, []string{`<rect class="paused"`, `<line class="write stale"`, `<line class="write"`, "process paused"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "t.html")
			var buf bytes.Buffer
			if err := Render(&buf, tc.d); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1200,800", "--dump-dom", "file://"+path+"#selftest")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
			dom := string(out)
			for _, want := range append([]string{`data-ready="1"`, `id="legend"><span>`}, tc.dom...) {
				if !strings.Contains(dom, want) {
					t.Errorf("rendered page lacks %s", want)
				}
			}
			m := regexp.MustCompile(`(?s)<pre id="selftest">(.*?)</pre>`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("no self-test output in the rendered page:\n%.2000s", dom)
			}
			self := m[1]
			for _, want := range append([]string{"zoom-button: true", "tip-after-zoom: none", "zoom-wheel: true", "pan: true", "reset: true",
				"legend: 1", "errors: none"}, tc.self...) {
				if !strings.Contains(self, want) {
					t.Errorf("self-test lacks %q:\n%s", want, self)
				}
			}
		})
	}
}

// A replayed scenario has a step axis: a step for the boot, then one per
// command, each with every node's state in words and the records it
// caused; every element carries the sequence numbers the axis places it
// by; the records of all steps are the trace's.
func TestReplaySteps(t *testing.T) {
	d, rr, count := replayPage(t)
	total := 0
	for _, n := range count {
		total += n
	}
	if d.Records != int64(total) {
		t.Fatalf("%d records numbered, the trace has %d", d.Records, total)
	}
	if len(d.Steps) < 2 || !strings.HasPrefix(d.Steps[0].Cmd, "start") {
		t.Fatalf("steps %+v: want the boot first", d.Steps)
	}
	// Every command after the boot is a step (the scenario's setup lines
	// before it are not), and the verdict's records, if any, one more.
	cmds := rr.Steps - 4 // algo, cluster, params, ablate
	if n := len(d.Steps) - 1; n != cmds && n != cmds+1 {
		t.Errorf("%d steps after the boot for %d commands", n, cmds)
	}
	recs := 0
	for i, s := range d.Steps {
		if i > 0 && s.Q < d.Steps[i-1].Q {
			t.Fatalf("step %d ends at record %d, before step %d (%d)", i, s.Q, i-1, d.Steps[i-1].Q)
		}
		if len(s.Nodes) != len(d.Rows) {
			t.Fatalf("step %d describes %d nodes of %d", i, len(s.Nodes), len(d.Rows))
		}
		for n, st := range s.Nodes {
			if st == "" {
				t.Errorf("step %d: node %d not described (paxoslease describes its nodes)", i, n)
			}
		}
		recs += len(s.Recs) + s.More
	}
	if int64(recs) != d.Records {
		t.Errorf("the steps list %d records of %d", recs, d.Records)
	}
	// After the step in which the violation began, two nodes say they
	// hold the lease.
	k := 0
	for k < len(d.Steps) && d.Steps[k].Q < d.Violations[0].Q {
		k++
	}
	if at := strings.Join(d.Steps[k].Nodes, "\n"); strings.Count(at, "holds the lease") != 2 {
		t.Errorf("after step %d (%s), where the violation begins, the nodes say:\n%s", k, d.Steps[k].Cmd, at)
	}
	for _, m := range d.Msgs {
		if m.SendQ <= 0 || (m.Deliver >= 0 && m.DeliverQ <= m.SendQ) {
			t.Fatalf("message without its records' numbers: %+v", m)
		}
	}
	for _, h := range d.Holds {
		if h.Q <= 0 || h.EQ < h.Q {
			t.Fatalf("hold without its records' numbers: %+v", h)
		}
	}
	for _, v := range d.Violations {
		if v.Q <= 0 || v.Q > d.Records {
			t.Fatalf("violation without its record's number: %+v", v)
		}
	}
}

// What the file leaves out is accounted for: over the gaps, the messages
// and holds not embedded add up to those the trace had beyond the file's,
// and no gap is claimed where everything is in the file.
func TestGapsAccountForWhatIsLeftOut(t *testing.T) {
	s := runner.DefaultSpec()
	s.Duration = 60 * time.Second
	s.Hold, s.Pause = 20*time.Millisecond, 20*time.Millisecond
	for _, lim := range []Limits{{Messages: 300, Holds: 40}, {Messages: 1 << 30, Holds: 1 << 30}} {
		c := NewCollector(Input{Nodes: 3, Acceptors: 3, Proposers: 3, Limits: lim})
		res, err := runner.Run(s, runner.Options{Observers: []runner.Observer{c}})
		if err != nil {
			t.Fatal(err)
		}
		c.Input().EndNS = res.SimulatedNS
		d := c.Finish()
		left := map[string]int{}
		for _, g := range d.Gaps {
			if g.Kept >= g.Total || g.Start > g.End || g.Start < d.Start || g.End > d.End {
				t.Errorf("bad gap %+v (view %d..%d)", g, d.Start, d.End)
			}
			left[g.What] += g.Total - g.Kept
		}
		if want := d.TotalMsgs - len(d.Msgs); left["messages"] != want {
			t.Errorf("limits %+v: gaps leave out %d messages, the file %d of %d", lim, left["messages"], len(d.Msgs), d.TotalMsgs)
		}
		if want := d.TotalHolds - len(d.Holds); left["holds"] != want {
			t.Errorf("limits %+v: gaps leave out %d holds, the file %d of %d", lim, left["holds"], len(d.Holds), d.TotalHolds)
		}
		if lim.Holds == 40 && (left["holds"] == 0 || left["messages"] == 0) {
			t.Errorf("limits %+v: nothing left out (%d messages, %d holds in the trace)", lim, d.TotalMsgs, d.TotalHolds)
		}
		if d.TotalSelf <= 0 || d.TotalSelf >= d.TotalMsgs {
			t.Errorf("%d of %d messages to the sender itself", d.TotalSelf, d.TotalMsgs)
		}
	}
}

// The buckets count every instant whatever the run's length: widths
// double as time goes on, and the counts add up.
func TestBuckets(t *testing.T) {
	var b buckets
	n := 0
	for t0 := int64(0); t0 < int64(100*time.Second); t0 += int64(7 * time.Millisecond) {
		b.add(t0)
		n++
	}
	sum := 0
	for _, c := range b.counts {
		sum += c
	}
	if sum != n || len(b.counts) > maxBuckets || b.width < int64(100*time.Second)/maxBuckets {
		t.Fatalf("%d of %d counted in %d buckets of %d ns", sum, n, len(b.counts), b.width)
	}
	if g := b.gaps("x", nil, 0, int64(100*time.Second)); len(g) != 1 || g[0].Total != n || g[0].Kept != 0 {
		t.Fatalf("nothing kept: gaps %+v", g)
	}
}

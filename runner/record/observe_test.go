package record

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/runner"
)

// kept is an observer that keeps copies of what it sees.
type kept []runner.TraceRec

func (k *kept) Observe(r *runner.TraceRec) { *k = append(*k, *r) }

func sampleTrace() []runner.TraceRec {
	b := algorithms.Next(0, 0, 1)
	return []runner.TraceRec{
		{T: 1, Kind: runner.TraceInput, Node: 1, Res: 3},
		{T: 2, Kind: runner.TraceSend, Node: 1, Msg: algorithms.Message{Kind: algorithms.Prepare, From: 1, To: 0, Resource: 3, Ballot: b}},
		{T: 3, Kind: runner.TraceHoldStart, Node: 1, Owner: 1, Res: 3, Ballot: b, X: 90},
		{T: 4, Kind: runner.TraceCrash, Node: 2},
		{T: 5, Kind: runner.TraceHoldEnd, Node: 1, Owner: 1, Res: 3, Ballot: b, X: 3},
		{T: 6, Kind: runner.TraceViolation, Node: 0, Owner: 1, Res: 3},
		{T: 7, Kind: runner.TraceRestart, Node: 2, X: 1},
	}
}

// Observers see every record, in order, and do not change the hash: a run
// hashes the same whatever it was asked to write or show.
func TestTracerHandsEveryRecordToItsObservers(t *testing.T) {
	var a, b kept
	var js bytes.Buffer
	bare, watched := NewTracer(), NewTracer(&a, NewJSONLines(&js, "trace"), &b)
	for _, r := range sampleTrace() {
		bare.Add(&r)
		watched.Add(&r)
	}
	if err := watched.Flush(); err != nil {
		t.Fatal(err)
	}
	if bare.Hash() != watched.Hash() || bare.Records() != 7 {
		t.Errorf("hash %s with observers, %s without (%d records)", watched.Hash(), bare.Hash(), bare.Records())
	}
	if !reflect.DeepEqual([]runner.TraceRec(a), sampleTrace()) || !reflect.DeepEqual(a, b) {
		t.Errorf("observers saw\n%+v\n%+v", a, b)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if len(lines) != 7 || !strings.Contains(lines[1], `"what":"send"`) || !strings.Contains(lines[1], `"kind":"prepare"`) {
		t.Errorf("JSON lines:\n%s", js.String())
	}
}

// The holds CSV has a header and one row per hold as it ends.
func TestHoldsCSV(t *testing.T) {
	var buf bytes.Buffer
	h := NewHoldsCSV(&buf)
	for _, r := range sampleTrace() {
		h.Observe(&r)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	b := algorithms.Next(0, 0, 1)
	want := "resource,owner,ballot,start_ns,end_ns\n3,1," + b.String() + ",3,5\n"
	if buf.String() != want {
		t.Errorf("holds CSV %q, want %q", buf.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A sink's write error comes back from Flush and names the output.
func TestSinkErrorsNameTheOutput(t *testing.T) {
	tr := NewTracer(NewJSONLines(failingWriter{}, "trace"), NewHoldsCSV(failingWriter{}))
	for _, r := range sampleTrace() {
		tr.Add(&r)
	}
	if err := tr.Flush(); err == nil || !strings.Contains(err.Error(), "writing trace: disk full") {
		t.Errorf("Flush() = %v, want the trace's error first", err)
	}
	h := NewHoldsCSV(failingWriter{})
	if err := h.Flush(); err == nil || !strings.Contains(err.Error(), "writing holds: disk full") {
		t.Errorf("holds Flush() = %v", err)
	}
}

// The window hands on the last n records when the first violation begins,
// the violation last, and nothing after.
func TestViolationWindow(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int64 // times handed on
	}{
		{n: 3, want: []int64{4, 5, 6}},
		{n: 6, want: []int64{1, 2, 3, 4, 5, 6}},
		{n: 10, want: []int64{1, 2, 3, 4, 5, 6}},
	} {
		var got kept
		w := NewViolationWindow(tc.n, &got)
		recs := append(sampleTrace(), runner.TraceRec{T: 8, Kind: runner.TraceViolation})
		for _, r := range recs {
			w.Observe(&r)
		}
		var ts []int64
		for _, r := range got {
			ts = append(ts, r.T)
		}
		if !reflect.DeepEqual(ts, tc.want) {
			t.Errorf("window of %d: handed on %v, want %v", tc.n, ts, tc.want)
		}
	}
}

// Holds keeps the first Limit that ended, counts them all, and lists the
// open ones by start, then owner and resource.
func TestHoldsCollector(t *testing.T) {
	h := Holds{Limit: 1}
	for _, r := range []runner.TraceRec{
		{T: 1, Kind: runner.TraceHoldStart, Owner: 1, Res: 1, Ballot: 7, X: 50},
		{T: 2, Kind: runner.TraceHoldEnd, Owner: 1, Res: 1, Ballot: 7, X: 1},
		{T: 3, Kind: runner.TraceHoldStart, Owner: 2, Res: 5, X: 60},
		{T: 3, Kind: runner.TraceHoldStart, Owner: 2, Res: 4, X: 70},
		{T: 3, Kind: runner.TraceHoldStart, Owner: 0, Res: 9, X: 80},
		{T: 4, Kind: runner.TraceHoldEnd, Owner: 3, Res: 2, X: 0},
	} {
		h.Observe(&r)
	}
	if h.Total != 2 || len(h.Done) != 1 || h.Done[0] != (Hold{Res: 1, Owner: 1, Ballot: 7, Start: 1, End: 2}) {
		t.Errorf("done %+v, total %d", h.Done, h.Total)
	}
	want := []Hold{{Res: 9, Owner: 0, Start: 3, End: 80}, {Res: 4, Owner: 2, Start: 3, End: 70}, {Res: 5, Owner: 2, Start: 3, End: 60}}
	if got := h.Open(); !reflect.DeepEqual(got, want) {
		t.Errorf("open %+v, want %+v", got, want)
	}
}

// The fault state machine: a restart ends a down time, a partition during
// one is part of it, a heal without one is nothing; what is still on ends
// at the given end, still-down nodes in node order.
func TestFaults(t *testing.T) {
	var f Faults
	for _, r := range []runner.TraceRec{
		{T: 1, Kind: runner.TraceHeal},
		{T: 2, Kind: runner.TraceCrash, Node: 4},
		{T: 3, Kind: runner.TraceCrash, Node: 1},
		{T: 4, Kind: runner.TracePartition, X: 5},
		{T: 5, Kind: runner.TracePartition, X: 2},
		{T: 6, Kind: runner.TraceHeal},
		{T: 7, Kind: runner.TraceRestart, Node: 3, X: 2},
		{T: 8, Kind: runner.TracePartition, X: 1},
	} {
		f.Observe(&r)
	}
	down, parts := f.Until(10)
	if want := []NodeSpan{{Node: 1, Start: 3, End: 10}, {Node: 4, Start: 2, End: 10}}; !reflect.DeepEqual(down, want) {
		t.Errorf("down %+v, want %+v", down, want)
	}
	if want := []PartitionSpan{{Start: 4, End: 6, SideA: 5}, {Start: 8, End: 10, SideA: 1}}; !reflect.DeepEqual(parts, want) {
		t.Errorf("partitions %+v, want %+v", parts, want)
	}
	if len(f.Crashes) != 2 || len(f.Restarts) != 1 || f.Restarts[0].Restarts != 2 || len(f.Partitions) != 1 {
		t.Errorf("crashes %v restarts %v partitions %v", f.Crashes, f.Restarts, f.Partitions)
	}
}

// A meter sees only the happenings it has a hook for: one with none would
// fill its fields from nothing.
func TestEveryMeterHasAHook(t *testing.T) {
	r := NewRecorder(runner.Plan{Spec: runner.DefaultSpec()}, IdentityClocks, nil)
	defer r.Release()
	for _, m := range r.meters {
		switch m.(type) {
		case requestHook, resolveHook, eventHook, sendHook, diskHook, faultHook, holdHook, beliefHook, pauseHook, writeHook:
		default:
			t.Errorf("meter %T implements no hook", m)
		}
	}
}

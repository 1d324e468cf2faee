package record

import (
	"encoding/json"
	"strings"
	"testing"

	"leaselab/algorithms"
)

// TestTraceHashTellsRecordsApart: a change to any one field of a record,
// and two fields swapped, change the trace hash; the same records give
// the same hash, as do records added through Add and through AddMsg or
// AddState (the simulator uses those; observers see Add's).
func TestTraceHashTellsRecordsApart(t *testing.T) {
	msg := TraceRec{T: 1000, Local: 990, Kind: TraceSend, Sub: 1, Node: 2, Msg: algorithms.Message{
		Kind: algorithms.Prepare, Flags: 1, From: 2, To: 3, Owner: 2, Resource: 7, Ballot: 11,
		Accepted: 5, Promised: 9, Instance: 4, Span: 2e9, Expiry: 3e9}}
	state := TraceRec{T: 1000, Local: 990, Kind: TraceEvent, Sub: 2, Node: 2, Res: 7, Owner: 2, Ballot: 11, X: 5, Y: 6}
	hash := func(rs ...TraceRec) string {
		tr := NewTracer()
		for i := range rs {
			tr.Add(&rs[i])
		}
		return tr.Hash()
	}
	for _, base := range []TraceRec{msg, state} {
		h := hash(base)
		if hash(base) != h {
			t.Fatal("the same record, two hashes")
		}
		// Which records carry a field: the head every record, Msg the
		// message records, the rest the others.
		const all, msgs, states = 0, 1, 2
		for name, f := range map[string]struct {
			change  func(*TraceRec)
			carried int
		}{
			"T": {func(r *TraceRec) { r.T++ }, all}, "Local": {func(r *TraceRec) { r.Local++ }, all},
			"Sub": {func(r *TraceRec) { r.Sub++ }, all}, "Node": {func(r *TraceRec) { r.Node++ }, all},
			"Kind":     {func(r *TraceRec) { r.Kind++ }, all},
			"Msg.Kind": {func(r *TraceRec) { r.Msg.Kind++ }, msgs}, "Msg.Flags": {func(r *TraceRec) { r.Msg.Flags++ }, msgs},
			"Msg.From": {func(r *TraceRec) { r.Msg.From++ }, msgs}, "Msg.To": {func(r *TraceRec) { r.Msg.To++ }, msgs},
			"Msg.Owner": {func(r *TraceRec) { r.Msg.Owner++ }, msgs}, "Msg.Resource": {func(r *TraceRec) { r.Msg.Resource++ }, msgs},
			"Msg.Ballot": {func(r *TraceRec) { r.Msg.Ballot++ }, msgs}, "Msg.Accepted": {func(r *TraceRec) { r.Msg.Accepted++ }, msgs},
			"Msg.Promised": {func(r *TraceRec) { r.Msg.Promised++ }, msgs}, "Msg.Instance": {func(r *TraceRec) { r.Msg.Instance++ }, msgs},
			"Msg.Span": {func(r *TraceRec) { r.Msg.Span++ }, msgs}, "Msg.Expiry": {func(r *TraceRec) { r.Msg.Expiry++ }, msgs},
			"Msg.Ballot and Msg.Accepted swapped": {func(r *TraceRec) { r.Msg.Ballot, r.Msg.Accepted = r.Msg.Accepted, r.Msg.Ballot }, msgs},
			"Res":                                 {func(r *TraceRec) { r.Res++ }, states}, "Owner": {func(r *TraceRec) { r.Owner++ }, states},
			"Ballot": {func(r *TraceRec) { r.Ballot++ }, states}, "X": {func(r *TraceRec) { r.X++ }, states},
			"Y":               {func(r *TraceRec) { r.Y++ }, states},
			"X and Y swapped": {func(r *TraceRec) { r.X, r.Y = r.Y, r.X }, states},
		} {
			isMsg := base.Kind.HasMsg()
			if f.carried == msgs && !isMsg || f.carried == states && isMsg {
				continue
			}
			c := base
			f.change(&c)
			if c.Kind.HasMsg() != isMsg {
				continue // another sort of record altogether
			}
			if hash(c) == h {
				t.Errorf("%s changed in a %v record: same hash", name, base.Kind)
			}
		}
	}
	if hash(msg, state) == hash(state, msg) {
		t.Error("two records in the other order: same hash")
	}
	a, b := NewTracer(), NewTracer()
	a.Add(&msg)
	a.Add(&state)
	b.AddMsg(msg.T, msg.Local, msg.Kind, msg.Sub, msg.Node, &msg.Msg)
	b.AddState(state.T, state.Local, state.Kind, state.Sub, state.Node, state.Res, state.Owner, state.Ballot, state.X, state.Y)
	if a.Hash() != b.Hash() || a.Records() != 2 || b.Records() != 2 {
		t.Errorf("Add: %s, AddMsg and AddState: %s", a.Hash(), b.Hash())
	}
	// With an observer, AddMsg and AddState hand it the records, and hash
	// them the same.
	var seen recorded
	c := NewTracer(&seen)
	c.AddMsg(msg.T, msg.Local, msg.Kind, msg.Sub, msg.Node, &msg.Msg)
	c.AddState(state.T, state.Local, state.Kind, state.Sub, state.Node, state.Res, state.Owner, state.Ballot, state.X, state.Y)
	if len(seen) != 2 || seen[0] != msg || seen[1] != state || c.Hash() != a.Hash() {
		t.Errorf("observed %+v, hash %s (want the two records, %s)", seen, c.Hash(), a.Hash())
	}
}

// recorded is an observer that keeps copies of the records it is shown.
type recorded []TraceRec

func (r *recorded) Observe(rec *TraceRec) { *r = append(*r, *rec) }

// TestTraceHashPinned pins the hash function: a run's trace_hash is what
// users compare across builds and machines, so a change to the function
// (a constant, an operation) must show here, not only as changed run
// hashes (TestTraceHashTellsRecordsApart cannot tell one good hash from
// another).
func TestTraceHashPinned(t *testing.T) {
	tr := NewTracer()
	tr.AddMsg(1000, 990, TraceSend, 1, 2, &algorithms.Message{Kind: algorithms.Prepare, Flags: 1, From: 2, To: 3,
		Owner: 2, Resource: 7, Ballot: 11, Accepted: 5, Promised: 9, Instance: 4, Span: 2e9, Expiry: 3e9})
	tr.AddState(1000, 990, TraceEvent, 2, 2, 7, 2, 11, 5, 6)
	if got, want := tr.Hash(), "1ec38131c70b190d"; got != want {
		t.Fatalf("trace hash %s, want %s", got, want)
	}
}

// TestTraceJSONKeys: the keys a record's JSON line has depend on its
// kind (a drop's reason, a hold's other end) and a missing node is -1.
func TestTraceJSONKeys(t *testing.T) {
	m := algorithms.Message{Kind: algorithms.Prepare, From: 1, To: 2, Resource: 7, Ballot: 11}
	for _, tc := range []struct {
		rec       TraceRec
		want, not []string
	}{
		{TraceRec{T: 5, Kind: TraceDrop, Sub: DropDown, Node: 2, Msg: m}, []string{`"node":2`, `"reason":"` + DropReason(DropDown) + `"`}, nil},
		{TraceRec{T: 5, Kind: TraceSend, Node: 1, Msg: m}, []string{`"node":1`}, []string{`"reason"`}},
		{TraceRec{T: 5, Kind: TraceHoldStart, Node: algorithms.NoNode, Res: 7, Owner: 1, Ballot: 11, X: 900}, []string{`"node":-1`, `"end_ns":900`}, []string{`"start_ns"`}},
		{TraceRec{T: 5, Kind: TraceHoldEnd, Node: 0, Res: 7, Owner: 1, Ballot: 11, X: 100}, []string{`"node":0`, `"start_ns":100`}, []string{`"end_ns"`}},
	} {
		line := string(AppendTraceJSON(nil, &tc.rec))
		if !json.Valid([]byte(line)) {
			t.Errorf("%v: not JSON: %s", tc.rec.Kind, line)
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%v: %s lacks %s", tc.rec.Kind, line, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(line, n) {
				t.Errorf("%v: %s has %s", tc.rec.Kind, line, n)
			}
		}
	}
}

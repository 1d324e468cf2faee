package algorithms

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBallotOrder(t *testing.T) {
	// The run counter dominates, then the restart counter, then the node.
	tests := []struct {
		lo, hi Ballot
	}{
		{MakeBallot(1, 0, 5), MakeBallot(2, 0, 0)},
		{MakeBallot(1, 0, 5), MakeBallot(1, 1, 0)},
		{MakeBallot(1, 1, 0), MakeBallot(1, 1, 1)},
		{0, MakeBallot(0, 0, 0) + 1},
	}
	for _, tt := range tests {
		if !(tt.lo < tt.hi) {
			t.Errorf("%s should be below %s", tt.lo, tt.hi)
		}
	}
	b := MakeBallot(7, 3, 9)
	if b.Round() != 7 || b.Restart() != 3 || b.Node() != 9 {
		t.Errorf("unpack %s: round %d restart %d node %d", b, b.Round(), b.Restart(), b.Node())
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		above   Ballot
		restart uint16
		node    NodeID
		want    Ballot
	}{
		{0, 0, 1, MakeBallot(0, 0, 1)},
		{MakeBallot(4, 0, 2), 0, 1, MakeBallot(5, 0, 1)},
		{MakeBallot(4, 0, 2), 0, 3, MakeBallot(4, 0, 3)},
		{MakeBallot(4, 2, 2), 1, 3, MakeBallot(5, 1, 3)},
	}
	for _, tt := range tests {
		got := Next(tt.above, tt.restart, tt.node)
		if got != tt.want || got <= tt.above {
			t.Errorf("Next(%s, %d, %d) = %s, want %s", tt.above, tt.restart, tt.node, got, tt.want)
		}
	}
}

func TestParamsValidate(t *testing.T) {
	ok := DefaultParams()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"zero span", func(p *Params) { p.LeaseSpan = 0 }, "lease span"},
		{"negative M", func(p *Params) { p.MaxLease = -1 }, "max lease"},
		{"negative dmax", func(p *Params) { p.DMax = -time.Second }, "d_max"},
		{"drift", func(p *Params) { p.Drift = 0.7 }, "drift"},
		{"timeout", func(p *Params) { p.ResponseTimeout = 0 }, "timeout"},
		{"rounds", func(p *Params) { p.MaxRounds = 0 }, "rounds"},
		{"backoff", func(p *Params) { p.Backoff = -1 }, "backoff"},
	}
	for _, tt := range tests {
		p := ok
		tt.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want error mentioning %q", tt.name, err, tt.want)
		}
	}
}

func TestClusterValidate(t *testing.T) {
	if err := NewCluster(0, 3).Validate(); err == nil {
		t.Error("zero acceptors accepted")
	}
	c := NewCluster(3, 5)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Nodes != 5 || c.Majority() != 2 || !c.IsAcceptor(2) || c.IsAcceptor(3) || !c.IsProposer(4) {
		t.Errorf("cluster shape wrong: %+v", c)
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("nosuch")
	if err == nil || !strings.Contains(err.Error(), "unknown algorithm") {
		t.Fatalf("got %v", err)
	}
}

func TestCheckAblations(t *testing.T) {
	a := Algorithm{Name: "x", Ablations: []Ablation{{Name: "restart-wait"}}}
	if err := a.CheckAblations(Ablations{"restart-wait"}); err != nil {
		t.Error(err)
	}
	if err := a.CheckAblations(Ablations{"nope"}); err == nil || !strings.Contains(err.Error(), "restart-wait") {
		t.Errorf("unknown ablation: got %v", err)
	}
}

func TestOutputReset(t *testing.T) {
	var o Output
	o.Send(Message{Kind: Prepare})
	o.SetTimer(TimerKey{Resource: 1}, 5)
	o.Emit(Event{Kind: Acquired})
	o.Persist = append(o.Persist, Record{})
	o.NoSync = true
	o.Reset()
	if len(o.Msgs)+len(o.Timers)+len(o.Events)+len(o.Persist) != 0 || o.NoSync {
		t.Errorf("reset left %+v", o)
	}
}

// The built-in kinds keep their numbers (they are the wire format) and
// names, and are the only kinds below FirstExtensionKind.
func TestBuiltinKinds(t *testing.T) {
	want := []string{"request", "grant", "deny", "prepare", "promise", "prepare-reject", "propose", "accepted",
		"propose-reject", "outdated", "learn", "release", "invalidate"}
	for i, name := range want {
		k := Kind(i + 1)
		if k.String() != name || !k.Valid() || k.Owner() != "leaselab" {
			t.Errorf("kind %d: %q valid=%v owner=%q, want %q", k, k.String(), k.Valid(), k.Owner(), name)
		}
		if got, ok := KindByName(name); !ok || got != k {
			t.Errorf("KindByName(%q) = %d, %v", name, got, ok)
		}
	}
	if Invalidate != 13 || KindInvalid.Valid() || Kind(14).Valid() {
		t.Errorf("kind numbers moved: invalidate %d, invalid valid %v, 14 valid %v", Invalidate, KindInvalid.Valid(), Kind(14).Valid())
	}
	if KindInvalid.String() != "invalid" || Kind(200).String() != "kind(200)" {
		t.Errorf("names of unregistered kinds: %q %q", KindInvalid, Kind(200))
	}
}

func TestRegisterKinds(t *testing.T) {
	ks := RegisterKinds("kinds-test", 240, "kt-a", "kt-b")
	if len(ks) != 2 || ks[0] != 240 || ks[1] != 241 || !ks[1].Valid() || ks[1].String() != "kt-b" || ks[0].Owner() != "kinds-test" {
		t.Fatalf("registered %v (%q, owner %q)", ks, ks[1], ks[0].Owner())
	}
	if k, ok := KindByName("kt-b"); !ok || k != 241 {
		t.Fatalf("KindByName(kt-b) = %d, %v", k, ok)
	}
	all := Kinds()
	if all[0] != Request || all[len(all)-1] != 241 {
		t.Fatalf("Kinds() = %v, want ascending from request to 241", all)
	}
	bad := []struct {
		name  string
		owner string
		first Kind
		names []string
		want  string
	}{
		{"overlaps a built-in", "x", Release, []string{"x1"}, "taken by leaselab"},
		{"overlaps another block", "x", 241, []string{"x1"}, "taken by kinds-test"},
		{"kind 0", "x", 0, []string{"x1"}, "KindInvalid"},
		{"past 255", "x", 255, []string{"x1", "x2"}, "past 255"},
		{"name taken", "x", 200, []string{"grant"}, `"grant" is taken`},
		{"name twice", "x", 200, []string{"x1", "x1"}, "given twice"},
		{"blank name", "x", 200, []string{"a b"}, "without blanks"},
		{"no kinds", "x", 200, nil, "no kind"},
		{"no owner", "", 200, []string{"x1"}, "owner"},
	}
	for _, b := range bad {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, b.want) {
					t.Errorf("%s: panic %v, want one mentioning %q", b.name, r, b.want)
				}
			}()
			RegisterKinds(b.owner, b.first, b.names...)
		}()
		if Kind(200).Valid() {
			t.Fatalf("%s: a refused block left kind 200 registered", b.name)
		}
	}
}

// Ballots read back as they are written, in JSON too (where they are
// strings; numbers of older JSON still read).
func TestBallotNotation(t *testing.T) {
	for _, b := range []Ballot{0, MakeBallot(12, 2, 3), MakeBallot(1<<32-1, 1<<16-1, 65534)} {
		got, err := ParseBallot(b.String())
		if err != nil || got != b {
			t.Errorf("%s: parsed %v, %v", b, got, err)
		}
		js, _ := json.Marshal(b)
		if string(js) != `"`+b.String()+`"` {
			t.Errorf("%s: JSON %s", b, js)
		}
		var back Ballot
		if err := json.Unmarshal(js, &back); err != nil || back != b {
			t.Errorf("%s: JSON read back %v, %v", b, back, err)
		}
		if err := json.Unmarshal([]byte(strconv.FormatUint(uint64(b), 10)), &back); err != nil || back != b {
			t.Errorf("%s: number read back %v, %v", b, back, err)
		}
	}
	for _, s := range []string{"", "1", "1.2", "1.2.3.4", "1.2.x", "-1.0.0", "01.0.0", "1.0.70000"} {
		if _, err := ParseBallot(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// TokenBreaks names its conditions in bit order, "none" for none: the
// names `leaselab algos` prints and the docs use.
func TestTokenBreaksString(t *testing.T) {
	for _, c := range []struct {
		b    TokenBreaks
		want string
	}{
		{0, "none"},
		{BreaksOnRestart, "restart"},
		{BreaksOnRestart | BreaksOnLapse, "restart,lapse"},
		{BreaksOnClocks | BreaksOnLate | BreaksOnDelay, "clocks,late,delay"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%08b: %q, want %q", uint8(c.b), got, c.want)
		}
	}
}

package runner

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

// specLeaves walks the Spec's fields down to the leaves (a field that is
// not a struct of parameters) and returns each one's address and JSON
// path.
func specLeaves(s *Spec) map[uintptr]string {
	leaves := map[uintptr]string{}
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			path := prefix + tag
			fv := v.Field(i)
			if fv.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)) {
				walk(fv, path+".")
				continue
			}
			leaves[fv.Addr().Pointer()] = path
		}
	}
	walk(reflect.ValueOf(s).Elem(), "")
	return leaves
}

// Every field of a Spec is a parameter in the table, exactly once, and
// its JSON key is the one the table derives from the name.
func TestParamTableCoversSpec(t *testing.T) {
	var s Spec
	leaves := specLeaves(&s)
	// The protocol group's JSON object is the Spec's "protocol" field.
	if tag := reflect.TypeOf(s).Field(6).Tag.Get("json"); reflect.TypeOf(s).Field(6).Name != "Params" || tag != string(GroupProtocol) {
		t.Fatalf("Spec.Params is tagged %q, want %q", tag, GroupProtocol)
	}
	seen := map[uintptr]string{}
	names := map[string]bool{}
	for _, p := range Params() {
		if names[p.Name] {
			t.Errorf("parameter %s twice in the table", p.Name)
		}
		names[p.Name] = true
		addr := reflect.ValueOf(p.Field(&s)).Pointer()
		path, ok := leaves[addr]
		if !ok {
			t.Errorf("parameter %s points at no field of a Spec", p.Name)
			continue
		}
		if other, dup := seen[addr]; dup {
			t.Errorf("parameters %s and %s set the same field %s", other, p.Name, path)
		}
		seen[addr] = p.Name
		if path != p.JSONPath() {
			t.Errorf("parameter %s: Spec's JSON key is %s, the table says %s", p.Name, path, p.JSONPath())
		}
		if p.Name != strings.ToLower(p.Name) || strings.ContainsAny(p.Name, "_ ") {
			t.Errorf("parameter name %q: want lower-case words joined by '-'", p.Name)
		}
		if p.Help == "" || p.Label == "" {
			t.Errorf("parameter %s has no help or label", p.Name)
		}
		if p.Type() == "duration" && p.Unit != "ms" && p.Unit != "s" {
			t.Errorf("duration %s has unit %q, want ms or s", p.Name, p.Unit)
		}
	}
	for addr, path := range leaves {
		if _, ok := seen[addr]; !ok {
			t.Errorf("Spec field %s is in no entry of the parameter table", path)
		}
	}
}

// The table's defaults are the Spec the command line always started from.
func TestDefaultSpecFromTable(t *testing.T) {
	want := Spec{
		Algo:        "paxoslease",
		Workload:    "contention",
		Env:         "sim",
		Acceptors:   3,
		Proposers:   3,
		Params:      algorithms.DefaultParams(),
		Seed:        1,
		Duration:    60 * time.Second,
		Leases:      1000,
		Hold:        time.Second,
		Pause:       2 * time.Second,
		Release:     true,
		RenewBefore: time.Second,
		Store:       "plain",
		Net:         NetSpec{RTT: time.Millisecond, Jitter: 200 * time.Microsecond, StaleSpans: 4},
		Clocks:      ClockSpec{JumpMax: time.Second, JumpLen: 2 * time.Second},
		Faults:      FaultSpec{Downtime: 2 * time.Second, PartitionLen: 3 * time.Second, PauseMax: 10 * time.Second},
		Disk:        DiskSpec{FsyncLatency: 2 * time.Millisecond, GroupCommit: true},
	}
	if got := DefaultSpec(); !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultSpec() = %+v\nwant %+v", got, want)
	}
}

// Every parameter set from its own text reads back as that text, and
// every numeric one set from a number reads back as that number.
func TestParamRoundTrip(t *testing.T) {
	texts := map[string]string{"string": "x-y", "strings": "a,b", "int": "7", "int64": "123456789", "uint64": "18446744073709551615",
		"float": "0.00123", "bool": "true", "duration": "1.5ms"}
	for _, p := range Params() {
		s := DefaultSpec()
		in := texts[p.Type()]
		if err := p.Set(&s, in); err != nil {
			t.Errorf("%s: Set(%q): %v", p.Name, in, err)
			continue
		}
		if got := p.Format(s); got != in {
			t.Errorf("%s: Set(%q) then Format = %q", p.Name, in, got)
		}
		// Only this field changed.
		def := DefaultSpec()
		if err := p.Set(&def, p.Format(s)); err != nil || !reflect.DeepEqual(def, s) {
			t.Errorf("%s: setting it changed other fields too", p.Name)
		}
		if err := p.Set(&s, "not-a-value"); p.Type() != "string" && p.Type() != "strings" && err == nil {
			t.Errorf("%s: Set(not-a-value) accepted", p.Name)
		}
		if !p.Numeric() {
			if err := p.SetNumber(&s, 1); err == nil {
				t.Errorf("%s: SetNumber on a %s accepted", p.Name, p.Type())
			}
			continue
		}
		x := 3.0
		if p.Type() == "bool" {
			x = 1
		} else if !p.Integer() {
			x = 2.5
		}
		if err := p.SetNumber(&s, x); err != nil {
			t.Errorf("%s: SetNumber(%g): %v", p.Name, x, err)
		}
		if got, err := p.Number(s); err != nil || got != x {
			t.Errorf("%s: SetNumber(%g) then Number = %g, %v", p.Name, x, got, err)
		}
		for _, bad := range []float64{-1, 2.5} {
			if bad == 2.5 && !p.Integer() {
				continue
			}
			if err := p.SetNumber(&s, bad); err == nil {
				t.Errorf("%s: SetNumber(%g) accepted", p.Name, bad)
			}
		}
	}
	// A duration's number is in its unit.
	p, _ := LookupParam("rtt", nil)
	s := DefaultSpec()
	if err := p.SetNumber(&s, 55); err != nil || s.Net.RTT != 55*time.Millisecond {
		t.Errorf("rtt 55 (ms) = %v, %v", s.Net.RTT, err)
	}
}

// The two drifts are two parameters: the clocks' error and the
// algorithms' allowance.
func TestDriftNames(t *testing.T) {
	s := DefaultSpec()
	if err := SetParams(&s, "x", nil, [][2]string{{"drift", "0.01"}, {"drift-bound", "0.002"}}); err != nil {
		t.Fatal(err)
	}
	if s.Clocks.Drift != 0.01 || s.Params.Drift != 0.002 {
		t.Errorf("drift %g (clocks), drift-bound %g (algorithms)", s.Clocks.Drift, s.Params.Drift)
	}
}

// An unknown key names the valid ones; an old spelling names the new one.
func TestSetParamsErrors(t *testing.T) {
	proto := ParamsOf(GroupProtocol)
	for _, c := range []struct {
		kv   [2]string
		want []string
	}{
		{[2]string{"warp", "1"}, []string{`unknown parameter "warp"`, "valid: lease-span, max-lease, dmax, drift-bound, response-timeout, max-rounds, backoff"}},
		{[2]string{"drift", "0.001"}, []string{`"drift"`, "drift-bound", "valid: lease-span"}},
		{[2]string{"timeout", "1s"}, []string{"response-timeout"}},
		{[2]string{"rounds", "3"}, []string{"max-rounds"}},
		{[2]string{"max-rounds", "x"}, []string{"max-rounds", `"x"`, "int"}},
	} {
		var s Spec
		err := SetParams(&s, "params", proto, [][2]string{c.kv})
		if err == nil {
			t.Errorf("%v: no error", c.kv)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", c.kv, err, w)
			}
		}
	}
}

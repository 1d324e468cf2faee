package experiments

import (
	"strings"
	"testing"

	"leaselab/runner"
)

// A variant limited to some environments runs only there, and the claims
// about it are reported only there; fig5's one-message-per-datagram
// series are such variants (the simulator has no datagrams).
func TestVariantEnvs(t *testing.T) {
	fakeAlgos()
	var fig5 Experiment
	for _, e := range All() {
		if e.Name == "fig5" {
			fig5 = e
		}
	}
	for _, tc := range []struct {
		env      string
		variants int
		oneMsg   bool
	}{
		{"udp", 6, true},
		{"sim", 4, false},
	} {
		r, err := fig5.Resolve(Options{Quick: true, Env: tc.env})
		if err != nil {
			t.Fatalf("%s: %v", tc.env, err)
		}
		if len(r.Variants) != tc.variants {
			t.Errorf("%s: %d variants, want %d", tc.env, len(r.Variants), tc.variants)
		}
		claims := 0
		for _, p := range r.Published {
			if p.Variant == oneMsgName("fatlease") || p.Variant == oneMsgName("classicpaxos") {
				claims++
			}
		}
		if tc.oneMsg != (claims > 0) {
			t.Errorf("%s: %d claims about the 1 msg/datagram series", tc.env, claims)
		}
		for _, p := range r.Points() {
			v := r.Variants[p.Variant]
			s, err := r.Spec(p, 0)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if strings.HasSuffix(v.Name, "(1 msg/datagram)") {
				want = runner.MinDatagram
			}
			if s.Net.Datagram != want {
				t.Errorf("%s %s: datagram %d, want %d", tc.env, v.Name, s.Net.Datagram, want)
			}
		}
	}
}

func TestVariantEnvsRejects(t *testing.T) {
	fakeAlgos()
	base := All()[0]
	for _, tc := range []struct {
		name string
		v    Variant
		want string
		// resolve: the error comes from Resolve (a spec the runner
		// rejects), not from Validate.
		resolve bool
	}{
		{"unknown env", Variant{Name: "x", Algo: "naive", Envs: []string{"mars"}}, "unknown environment", false},
		{"datagram too small", Variant{Name: "x", Algo: "naive", Set: []Setting{{"datagram", 10}}}, "datagram size", true},
		{"datagram fractional", Variant{Name: "x", Algo: "naive", Set: []Setting{{"datagram", 72.5}}}, "whole number", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			e.Variants = append(append([]Variant{}, base.Variants...), tc.v)
			err := e.Validate()
			if tc.resolve {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				_, err = e.Resolve(Options{Quick: true})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// An experiment none of whose variants runs in the chosen environment
	// is an error, not an empty chart.
	e := base
	e.Variants = []Variant{{Name: "x", Algo: "naive", Envs: []string{"udp"}}}
	e.Published = nil
	if _, err := e.Resolve(Options{Quick: true, Env: "sim"}); err == nil || !strings.Contains(err.Error(), "no variant") {
		t.Errorf("no variant in sim: %v", err)
	}
}

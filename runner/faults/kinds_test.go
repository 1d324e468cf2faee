package faults

import (
	"strings"
	"testing"

	"leaselab/runner"
)

// The table agrees with the parameter table: every kind's parameters
// exist, its first one turns it on (On), and an environment that does not
// support it rejects a spec that asks for it, naming the flag.
func TestKindTable(t *testing.T) {
	names := map[string]bool{}
	counters := map[string]bool{}
	for _, k := range Kinds() {
		if names[k.Name] || k.Name == "all" || k.Name == "swarm" || k.Summary == "" || len(k.Params) == 0 || len(k.Envs) == 0 {
			t.Errorf("kind %+v: a name of its own, a summary, parameters and environments", k.Name)
		}
		names[k.Name] = true
		for _, c := range k.Counters {
			if counters[c.Name] {
				t.Errorf("counter %s twice", c.Name)
			}
			counters[c.Name] = true
		}
		for _, name := range k.Params {
			if _, err := runner.LookupParam(name, nil); err != nil {
				t.Errorf("kind %s: %v", k.Name, err)
			}
		}
		if k.On == nil {
			continue
		}
		s := runner.DefaultSpec()
		if k.On(&s) {
			t.Errorf("kind %s is on in the default spec", k.Name)
		}
		p, _ := runner.LookupParam(k.Params[0], nil)
		if err := p.SetNumber(&s, 1); err != nil {
			t.Fatal(err)
		}
		if !k.On(&s) {
			t.Errorf("kind %s: --%s 1 does not turn it on", k.Name, k.Params[0])
		}
		for _, env := range []string{"sim", "udp"} {
			err := Unsupported(env, &s)
			switch {
			case k.Supports(env) && err != nil:
				t.Errorf("kind %s in %s: %v", k.Name, env, err)
			case !k.Supports(env) && (err == nil || !strings.Contains(err.Error(), "--"+k.Params[0])):
				t.Errorf("kind %s in %s: want an error naming --%s, got %v", k.Name, env, k.Params[0], err)
			}
		}
	}
	if _, err := LookupKind("nope"); err == nil || !strings.Contains(err.Error(), "pause") {
		t.Errorf("unknown kind: %v", err)
	}
}

package sim

import (
	"io"
	"strings"
	"testing"

	"leaselab/runner"
)

// A scenario's setup lines set the parameters the table names, spelled
// as the table spells them: what FormatParams writes, the replayer reads
// back equal; every parameter of each setup command is covered.
func TestScenarioParamsRoundTrip(t *testing.T) {
	want := runner.DefaultSpec()
	for cmd, ps := range scenarioParams {
		for _, p := range ps {
			// A value unlike the default, of the parameter's type.
			v := map[string]string{"int": "5", "float": "0.0125", "bool": "false", "duration": "1.25s"}[p.Type()]
			if v == "" {
				t.Fatalf("%s %s: no test value for type %s", cmd, p.Name, p.Type())
			}
			if err := p.Set(&want, v); err != nil {
				t.Fatal(err)
			}
		}
		rp := &replayer{w: io.Discard, spec: runner.DefaultSpec()}
		line := cmd + " " + runner.FormatParams(want, ps)
		if err := rp.exec(strings.Fields(line)); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, p := range ps {
			if got, w := p.Format(rp.spec), p.Format(want); got != w {
				t.Errorf("%q: %s read back as %s, want %s", line, p.Name, got, w)
			}
		}
	}
}

// An unknown key lists the valid ones; an old spelling names the new.
func TestScenarioParamsErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"params warp=1", `params: unknown parameter "warp" (valid: lease-span, max-lease, dmax, drift-bound, response-timeout, max-rounds, backoff)`},
		{"params timeout=1s", `params: unknown key "timeout": now response-timeout`},
		{"params drift=0.001", "the algorithms' allowance is drift-bound (drift is the clocks' actual rate error)"},
		{"params rounds=3", "now max-rounds"},
		{"disk fsync=1ms", `disk: unknown key "fsync": now fsync-latency (valid: fsync-latency, group-commit)`},
		{"cluster acceptors=x", `cluster acceptors: "x" is not a valid int`},
		{"cluster nodes=3", `(valid: acceptors, proposers)`},
		{"params lease-span=5", `params lease-span: "5" is not a valid duration`},
	} {
		_, err := Replay(strings.NewReader(c.line+"\n"), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.line, err, c.want)
		}
	}
}

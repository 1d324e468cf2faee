package experiments

import (
	"fmt"
	"math"
	"time"

	"leaselab/runner"
)

// Setting sets one parameter of a runner.Spec. Experiments are data: every
// sweep axis, facet and variant tweak is a list of Settings. Param is a
// name from runner's parameter table (runner.Params) and Value a number in
// that parameter's unit (rtt in ms, duration in s, see Param.Unit).
type Setting struct {
	Param string  `json:"param"`
	Value float64 `json:"value"`
}

// minimum is the smallest value of the parameters that need more than
// "not negative" (runner.Param.SetNumber) before a run can mean anything.
var minimum = map[string]float64{
	"leases": 1, "acceptors": 1, "proposers": 1, "max-rounds": 1,
	"duration": 1e-9, "lease-span": 1e-9, "max-lease": 1e-9, "response-timeout": 1e-9,
}

// cost says how the simulator's work for one run grows with a parameter
// (relative to its value at calibration): the run-time estimate multiplies
// by cost(v)/cost(v0). A parameter not here has no effect.
var cost = map[string]func(v float64) float64{
	"leases": linear, "acceptors": linear, "proposers": linear, "duration": linear,
}

func linear(v float64) float64 { return math.Max(v, 1e-9) }

// numericParams are the parameters an experiment may set: the table's
// numbers.
func numericParams() []runner.Param {
	var ps []runner.Param
	for _, p := range runner.Params() {
		if p.Numeric() {
			ps = append(ps, p)
		}
	}
	return ps
}

// ParamNames lists the parameters an experiment may set, in table order.
func ParamNames() []string { return runner.ParamNames(numericParams()) }

func lookupParam(name string) (runner.Param, error) {
	return runner.LookupParam(name, numericParams())
}

// paramLabel is the axis title of a parameter, with its unit.
func paramLabel(name string) string {
	p, err := lookupParam(name)
	if err != nil {
		return name
	}
	return p.Label
}

// paramText is a parameter's name with its unit, for report text.
func paramText(name string) string {
	if p, err := lookupParam(name); err == nil && p.Unit != "" {
		return name + " (" + p.Unit + ")"
	}
	return name
}

// checkValue says what is wrong with v for parameter name, if anything.
func checkValue(name string, v float64) error {
	p, err := lookupParam(name)
	if err != nil {
		return err
	}
	if m := minimum[name]; v < m && !math.IsNaN(v) {
		return fmt.Errorf("parameter %s: %g is below its minimum %g", name, v, m)
	}
	var s runner.Spec
	return p.SetNumber(&s, v)
}

// Apply applies settings to s in order; a later setting of the same
// parameter wins.
func Apply(s *runner.Spec, settings ...Setting) error {
	for _, st := range settings {
		if err := checkValue(st.Param, st.Value); err != nil {
			return err
		}
		p, _ := lookupParam(st.Param)
		if err := p.SetNumber(s, st.Value); err != nil {
			return err
		}
	}
	return nil
}

// Get reads parameter name from s, in its unit.
func Get(s runner.Spec, name string) (float64, error) {
	p, err := lookupParam(name)
	if err != nil {
		return 0, err
	}
	return p.Number(s)
}

// costRatio is how much more work a run at v is than one at v0, for the
// run-time estimate.
func costRatio(name string, v, v0 float64) float64 {
	c, ok := cost[name]
	if !ok {
		return 1
	}
	return c(v) / c(v0)
}

func ms(v float64) time.Duration   { return time.Duration(math.Round(v * float64(time.Millisecond))) }
func toMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

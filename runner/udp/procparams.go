package udp

import (
	"leaselab/runner"
)

// ProcessParams names the parameters of a run that a node process takes,
// as flags of `leaselab node` (runner's parameter table gives their
// spelling, type and help); ProcessArgs writes them.
var ProcessParams = append(append([]string{"algo", "ablate", "acceptors", "proposers", "seed"},
	runner.ParamNames(runner.ParamsOf(runner.GroupProtocol))...),
	"rtt", "jitter", "loss", "dup", "reorder", "bandwidth", "disk-dir")

// Spec is the part of a run's Spec that c holds (ProcessParams); the rest
// is zero.
func (c ProcessConfig) Spec() runner.Spec {
	return runner.Spec{
		Algo: c.Algo, Ablate: c.Ablations, Acceptors: c.Acceptors, Proposers: c.Proposers, Seed: c.Seed, Params: c.Params,
		Net:  runner.NetSpec{RTT: c.Net.RTT, Jitter: c.Net.Jitter, Loss: c.Net.Loss, Dup: c.Net.Dup, Reorder: c.Net.Reorder, Bandwidth: c.Net.Bandwidth},
		Disk: runner.DiskSpec{Dir: c.DiskDir},
	}
}

// SetSpec sets what c holds of a run (ProcessParams) from s.
func (c *ProcessConfig) SetSpec(s runner.Spec) {
	c.Algo, c.Ablations, c.Acceptors, c.Proposers, c.Seed, c.Params = s.Algo, s.Ablate, s.Acceptors, s.Proposers, s.Seed, s.Params
	c.Net = NetemOf(s.Net)
	c.DiskDir = s.Disk.Dir
}

// ProcessArgs are the command-line arguments that give a node process
// c's parameters: "--NAME", VALUE for each of ProcessParams, leaving out
// an empty list or directory (the flag's default).
func ProcessArgs(c ProcessConfig) []string {
	s := c.Spec()
	var args []string
	for _, name := range ProcessParams {
		p, err := runner.LookupParam(name, nil)
		if err != nil {
			panic(err) // ProcessParams names table entries
		}
		v := p.Format(s)
		if v == "" && (p.Type() == "string" || p.Type() == "strings") {
			continue
		}
		args = append(args, "--"+name, v)
	}
	return args
}

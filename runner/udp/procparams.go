package udp

import (
	"leaselab/runner"
)

// ProcessParams names the parameters of a run that a node process takes,
// as flags of `leaselab node` (runner's parameter table gives their
// spelling, type and help); ProcessArgs writes them.
var ProcessParams = append(append([]string{"algo", "ablate", "acceptors", "proposers", "seed"},
	runner.ParamNames(runner.ParamsOf(runner.GroupProtocol))...),
	"rtt", "jitter", "loss", "dup", "reorder", "bandwidth", "disk-dir", "writes")

// Spec is the part of a run's Spec that c holds (ProcessParams); the rest
// is zero.
func (c ProcessConfig) Spec() runner.Spec {
	return runner.Spec{
		Algo: c.Algo, Ablate: c.Ablations, Acceptors: c.Acceptors, Proposers: c.Proposers, Seed: c.Seed, Params: c.Params,
		Net:    c.Net,
		Disk:   runner.DiskSpec{Dir: c.DiskDir},
		Writes: c.Writes,
	}
}

// SetSpec sets what c holds of a run (ProcessParams) from s.
func (c *ProcessConfig) SetSpec(s runner.Spec) {
	c.Algo, c.Ablations, c.Acceptors, c.Proposers, c.Seed, c.Params = s.Algo, s.Ablate, s.Acceptors, s.Proposers, s.Seed, s.Params
	c.Net = emulated(s.Net)
	c.DiskDir = s.Disk.Dir
	c.Writes = s.Writes
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

// emulated is the part of n a node emulates (ProcessParams' network
// flags); the datagram size and stalled links are not a node's.
func emulated(n runner.NetSpec) runner.NetSpec {
	return runner.NetSpec{RTT: n.RTT, Jitter: n.Jitter, Loss: n.Loss, Dup: n.Dup, Reorder: n.Reorder, Bandwidth: n.Bandwidth}
}

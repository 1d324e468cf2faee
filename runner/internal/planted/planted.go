// Package planted registers test-only algorithms with planted liveness
// bugs, so that the tests of more than one package can show the settle
// stretch's judgement failing (runner.Spec.Settle): a check that cannot
// fail proves nothing. Only tests import it.
package planted

import (
	"math/rand/v2"

	"leaselab/algorithms"
	_ "leaselab/paxoslease" // registered before this package's init runs
)

// Forgetful is the name of PaxosLease with a planted liveness bug: after
// its third lease a node takes no notice of the next Acquire, so its
// client waits for an answer that never comes. It stays safe: it only
// does less.
const Forgetful = "test-forgetful"

type forgetful struct {
	algorithms.Explorable
	leases int
	forgot bool
}

// Clone and AppendState keep it explorable (the battery's searches run
// on every registered algorithm; they judge safety, which it keeps).
func (f *forgetful) Clone(r *rand.Rand) algorithms.Node {
	c := *f
	c.Explorable = f.Explorable.Clone(r).(algorithms.Explorable)
	return &c
}

func (f *forgetful) AppendState(b []byte, now algorithms.Local) []byte {
	b = append(b, byte(min(f.leases, 3)))
	if f.forgot {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return f.Explorable.AppendState(b, now)
}

func (f *forgetful) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	if in.Kind == algorithms.Acquire && f.leases >= 3 && !f.forgot {
		f.forgot = true
		return
	}
	f.Explorable.Step(now, in, out)
	for _, e := range out.Events {
		if e.Kind == algorithms.Acquired {
			f.leases++
		}
	}
}

func init() {
	pl, err := algorithms.Lookup("paxoslease")
	if err != nil {
		panic(err)
	}
	a := pl
	a.Name, a.Summary = Forgetful, "test only: paxoslease whose nodes ignore one Acquire after their third lease"
	a.Ablations = nil // its rules are paxoslease's, found in paxoslease's battery
	a.Build = func(cfg algorithms.Config) (algorithms.Node, error) {
		n, err := pl.Build(cfg)
		if err != nil {
			return nil, err
		}
		return &forgetful{Explorable: n.(algorithms.Explorable)}, nil
	}
	algorithms.Register(a)
}

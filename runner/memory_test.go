package runner_test

import (
	"errors"
	"strings"
	"testing"

	_ "leaselab/classicpaxos"
	_ "leaselab/paxoslease"
	"leaselab/runner"
)

func TestMemoryNeedAndRefusal(t *testing.T) {
	s := runner.DefaultSpec()
	s.Workload, s.Leases = "batch", 1_000_000
	p, err := runner.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	// Measured: PaxosLease with three acceptors peaks at about 1.8 KB a
	// lease in the simulator; the estimate may be above, not far below.
	need := p.MemoryNeed()
	if need < 1_800_000_000 || need > 4_000_000_000 {
		t.Errorf("a million leases need %d bytes by the estimate", need)
	}
	if err := p.CheckMemory(need); err != nil {
		t.Errorf("refused with exactly enough: %v", err)
	}
	if err := p.CheckMemory(0); err != nil {
		t.Errorf("refused with the figure unknown: %v", err)
	}
	err = p.CheckMemory(need / 2)
	if !errors.Is(err, runner.ErrBadSpec) || !strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "give at most about") {
		t.Errorf("half the memory: %v", err)
	}
	s.Algo = "classicpaxos" // keeps a log: twice the state
	d, err := runner.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	if d.MemoryNeed() <= need {
		t.Errorf("a durable algorithm's batch needs %d, not more than %d", d.MemoryNeed(), need)
	}
	// Refused before it allocates: Run returns at once.
	s.Algo, s.Leases = "paxoslease", 1<<31-1
	if avail := runner.AvailableMemory(); avail == 0 || avail > 1<<42 {
		t.Skip("the system does not say how much memory it has, or has more than 4 TiB")
	}
	if _, err := runner.Run(s, runner.Options{}); !errors.Is(err, runner.ErrBadSpec) {
		t.Errorf("a batch of 2^31 leases: %v", err)
	}
}

package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Memory guard: a run that would need more memory than the machine has
// is refused before it allocates anything (Plan.Run), with the figure,
// rather than dying in the middle of an allocation with a Go fatal
// error (which exits with status 2, the code for bad input, and prints
// no result). The estimate is coarse, measured rather than derived: the
// simulator's peak resident memory for a batch of 200,000 leases is
// about 1.3 KB a lease with one acceptor, 1.8 KB with three and 3.1 KB
// with five for PaxosLease (naive alike; FaTLease 2.2 KB, classic Paxos,
// which keeps a log, 4 KB, with three), and a node costs a few KB
// (65,534 proposers: 300 MB).
const (
	memBase     = 64 << 20 // the process, its tables and buffers
	memPerNode  = 6 << 10  // a node's host, timers and client state
	memPerLease = 1 << 10  // the recorder, checker and driver per batch lease ...
	memPerGrant = 512      // ... and per acceptor holding its state
)

// MemoryNeed estimates the memory a run of the plan needs at its peak,
// in bytes: its nodes, and for a batch every lease's state in the
// recorder, the checker and each acceptor (twice that for an algorithm
// that keeps a log).
func (p Plan) MemoryNeed() int64 {
	s := p.Spec
	need := int64(memBase) + int64(s.Acceptors+s.Proposers)*memPerNode
	if p.Workload.Name == "batch" {
		per := int64(memPerLease + memPerGrant*s.Acceptors)
		if p.Algo.Durable {
			per *= 2
		}
		need += int64(s.Leases) * per
	}
	return need
}

// AvailableMemory is the memory the system can give a process now, in
// bytes: Linux's MemAvailable (free memory and what the page cache can
// give back), capped by the cgroup's limit when there is one; 0 when the
// system does not say.
func AvailableMemory() int64 {
	avail := meminfo("MemAvailable:")
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64); err == nil && (avail == 0 || lim < avail) {
			avail = lim
		}
	}
	return avail
}

// meminfo reads a field of /proc/meminfo in bytes (0: unknown).
func meminfo(key string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(key)) {
			continue
		}
		fields := bytes.Fields(line[len(key):])
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// CheckMemory refuses the plan (ErrBadSpec) when its MemoryNeed is more
// than avail bytes (0: unknown, nothing refused), saying both figures
// and, for a batch, how many leases would fit.
func (p Plan) CheckMemory(avail int64) error {
	need := p.MemoryNeed()
	if avail <= 0 || need <= avail {
		return nil
	}
	msg := fmt.Sprintf("this run needs about %s of memory, more than the %s this machine has available", GiB(need), GiB(avail))
	if p.Workload.Name == "batch" && p.Spec.Leases > 0 {
		per := (need - p.withLeases(0).MemoryNeed()) / int64(p.Spec.Leases)
		fit := (avail - p.withLeases(0).MemoryNeed()) / max(per, 1)
		msg += fmt.Sprintf(" (%d leases × about %d bytes each); give at most about %d --leases here", p.Spec.Leases, per, max(fit, 0))
	} else {
		msg += fmt.Sprintf(" (%d nodes)", p.Spec.Acceptors+p.Spec.Proposers)
	}
	return BadSpec(fmt.Errorf("%s", msg))
}

// GuardMemory is CheckMemory against the memory available now, asked
// only of a plan that needs more than a GiB (reading the system's figure
// costs more than a small run).
func (p Plan) GuardMemory() error {
	if p.MemoryNeed() <= 1<<30 {
		return nil
	}
	return p.CheckMemory(AvailableMemory())
}

func (p Plan) withLeases(n int) Plan {
	p.Spec.Leases = n
	return p
}

// GiB prints a number of bytes in GiB (or MiB below one GiB).
func GiB(b int64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

package explore

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"

	"leaselab/runner"
)

// DefaultMaxMemory is the default memory cap: three quarters of the
// memory the system says is available when the search starts (Linux's
// MemAvailable, capped by the cgroup limit: runner.AvailableMemory), or
// 4 GiB where it does not say.
func DefaultMaxMemory() int64 {
	if avail := runner.AvailableMemory(); avail > 0 {
		return avail / 4 * 3
	}
	return 4 << 30
}

var pageSize = int64(os.Getpagesize())

// resident is the process's resident set size in bytes: /proc/self/statm
// where there is one, else what the Go runtime maps (which leaves out the
// visited set's mapped tables: extra is added for them).
func resident(extra int64) int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := bytes.Fields(b); len(f) > 1 {
			if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
				return pages * pageSize
			}
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) + extra
}

// memGuard keeps the search under its memory cap. The visited set asks
// it before each table grows (allow); the search asks it after each
// chunk of work (over). What the Go heap may use is what the cap leaves
// beside the visited set's tables (the collector's soft limit, updated
// as they grow), less a margin for the resident memory the runtime keeps
// beyond its heap.
type memGuard struct {
	limit int64 // 0: none
	set   *fpSet
	peak  atomic.Int64
	last  atomic.Int64
}

// memMargin is what the cap keeps free for the work between two checks
// and for memory the runtime holds beyond the heap it counts.
func memMargin(limit int64) int64 { return max(24<<20, limit/32) }

// newMemGuard guards set: the set asks it before every growth (set.allow).
func newMemGuard(limit int64, set *fpSet) *memGuard {
	g := &memGuard{limit: limit, set: set}
	set.allow = g.allow
	g.tune()
	return g
}

// tune gives the Go heap what the cap leaves beside the visited set.
func (g *memGuard) tune() {
	if g.limit <= 0 {
		return
	}
	left := g.limit - g.setBytes() - memMargin(g.limit)
	debug.SetMemoryLimit(max(left, 64<<20))
}

func (g *memGuard) setBytes() int64 {
	if g.set == nil {
		return 0
	}
	return g.set.bytes
}

// sample reads the resident size and keeps the peak.
func (g *memGuard) sample() int64 {
	r := resident(g.setBytes())
	g.last.Store(r)
	for {
		p := g.peak.Load()
		if r <= p || g.peak.CompareAndSwap(p, r) {
			break
		}
	}
	return r
}

// over reports whether the process is at its cap (less the margin).
func (g *memGuard) over() bool {
	r := g.sample()
	return g.limit > 0 && r > g.limit-memMargin(g.limit)
}

// allow reports whether extra more bytes for the visited set keep the
// process under its cap; if so the heap's share is tuned for them.
func (g *memGuard) allow(extra int64) bool {
	r := g.sample()
	if g.limit > 0 && r+extra > g.limit-memMargin(g.limit) {
		return false
	}
	if g.limit > 0 {
		left := g.limit - g.setBytes() - extra - memMargin(g.limit)
		debug.SetMemoryLimit(max(left, 64<<20))
	}
	return true
}

// ParseSize reads a memory size: a number of bytes with an optional unit
// (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of
// 1024), e.g. "1GiB", "512MiB", "1.5GB"; "none" is -1 (no cap).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "none") {
		return -1, nil
	}
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("bad size %q (want e.g. 1GiB, 512MiB, 2GB, or none)", s)
	}
	return int64(v * mult), nil
}

package record

import (
	"math/bits"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Histogram is a log-linear (HDR) histogram of non-negative integers:
// exact below 2^histSubBits, and above it 2^histSubBits buckets per power
// of two, so every bucket is narrower than 1/128 of its values (under
// 0.8% relative error) from a nanosecond to the largest int64, in at most
// a few thousand counters, whatever the number of values.
type Histogram struct {
	counts []int64
	n      int64
	max    int64
}

const histSubBits = 7

// histIndex is v's bucket.
func histIndex(v int64) int {
	if v < 1<<histSubBits {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - 1 - histSubBits
	return (shift+1)<<histSubBits + int(v>>shift) - 1<<histSubBits
}

// histUpper is the largest value of bucket i.
func histUpper(i int) int64 {
	if i < 1<<histSubBits {
		return int64(i)
	}
	shift := i>>histSubBits - 1
	sub := int64(i&(1<<histSubBits-1) + 1<<histSubBits)
	return (sub+1)<<shift - 1
}

// Record adds v (a negative v counts as 0).
func (h *Histogram) Record(v int64) {
	v = max(v, 0)
	i := histIndex(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
	h.n++
	h.max = max(h.max, v)
}

// Buckets lists the non-empty buckets, in ascending order, with their
// upper bounds divided by unit (1e6: nanoseconds to milliseconds); the
// last bucket's bound is the largest value recorded.
func (h *Histogram) Buckets(unit float64) []runner.HistBucket {
	out := []runner.HistBucket{}
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		out = append(out, runner.HistBucket{LE: float64(min(histUpper(i), h.max)) / unit, Count: c})
	}
	return out
}

// throughput counts acquisitions in buckets of true time. Buckets start
// a millisecond wide and double (pairs merged) whenever the run outgrows
// maxBuckets of them, so a run of any length keeps at most maxBuckets
// counters and ends with between maxBuckets/2 and maxBuckets buckets.
type throughput struct {
	width  int64
	counts []int64
}

const maxBuckets = 256

func (tp *throughput) add(t int64) {
	if tp.width == 0 {
		tp.width = 1e6
	}
	tp.grow(t)
	tp.counts[t/tp.width]++
}

// grow makes room for a count at t.
func (tp *throughput) grow(t int64) {
	for t/tp.width >= maxBuckets {
		for i := 0; i < len(tp.counts); i += 2 {
			c := tp.counts[i]
			if i+1 < len(tp.counts) {
				c += tp.counts[i+1]
			}
			tp.counts[i/2] = c
		}
		tp.counts = tp.counts[:(len(tp.counts)+1)/2]
		tp.width *= 2
	}
	if i := int(t / tp.width); i >= len(tp.counts) {
		tp.counts = append(tp.counts, make([]int64, i+1-len(tp.counts))...)
	}
}

// loadMeter: the latency histogram and the acquisitions over time.
type loadMeter struct {
	hist Histogram
	tp   throughput
}

func (m *loadMeter) resolved(t int64, _ algorithms.NodeID, start int64, _ int, o Outcome) {
	if o != OutcomeAcquired {
		return
	}
	m.hist.Record(t - start)
	m.tp.add(t)
}

func (m *loadMeter) fill(res *runner.Result, end int64) {
	res.LatencyHistogram = m.hist.Buckets(1e6)
	if m.tp.width == 0 {
		m.tp.width = 1e6 // nothing acquired: zeros
	}
	if end > 0 {
		m.tp.grow(end - 1) // buckets up to the end of the run, idle ones too
	}
	res.Throughput = runner.Throughput{BucketNS: m.tp.width, LeasesPerSec: []float64{}}
	for i, c := range m.tp.counts {
		// The last bucket may end with the run, before its width is up.
		w := min(m.tp.width, max(end-int64(i)*m.tp.width, 1))
		res.Throughput.LeasesPerSec = append(res.Throughput.LeasesPerSec, float64(c)*1e9/float64(w))
	}
}

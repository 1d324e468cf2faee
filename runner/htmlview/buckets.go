package htmlview

// buckets counts instants in equal stretches of true time, for a trace
// whose length is not known in advance: it starts with narrow buckets and
// doubles their width (merging pairs) whenever an instant falls past the
// last of maxBuckets. Counting every message and hold this way costs
// nothing per record and a few kilobytes whatever the run's length, and
// tells the page exactly where what it leaves out was.
type buckets struct {
	width  int64 // ns per bucket; 0 until the first instant
	counts []int
}

const (
	maxBuckets   = 512
	bucketWidth0 = int64(1 << 20) // about a millisecond
)

func (b *buckets) add(t int64) {
	if t < 0 {
		t = 0
	}
	if b.width == 0 {
		b.width = bucketWidth0
	}
	i := t / b.width
	for i >= maxBuckets {
		for j := 0; j < len(b.counts); j += 2 {
			n := b.counts[j]
			if j+1 < len(b.counts) {
				n += b.counts[j+1]
			}
			b.counts[j/2] = n
		}
		b.counts = b.counts[:(len(b.counts)+1)/2]
		b.width *= 2
		i = t / b.width
	}
	for int(i) >= len(b.counts) {
		b.counts = append(b.counts, 0)
	}
	b.counts[i]++
}

// gaps returns, for the instants kept (a subset of those added), each run
// of buckets in which some instant is not kept, as a Gap of what, clipped
// to [start, end].
func (b *buckets) gaps(what string, kept []int64, start, end int64) []Gap {
	if b.width == 0 {
		return nil
	}
	k := make([]int, len(b.counts))
	for _, t := range kept {
		i := max(t, 0) / b.width
		if int(i) < len(k) {
			k[i]++
		}
	}
	var out []Gap
	for i := 0; i < len(b.counts); i++ {
		if k[i] >= b.counts[i] {
			continue
		}
		g := Gap{What: what, Start: int64(i) * b.width}
		for ; i < len(b.counts) && k[i] < b.counts[i]; i++ {
			g.Kept += k[i]
			g.Total += b.counts[i]
		}
		g.End = int64(i) * b.width
		g.Start, g.End = max(g.Start, start), min(g.End, end)
		if g.End < g.Start {
			g.End = g.Start
		}
		out = append(out, g)
	}
	return out
}

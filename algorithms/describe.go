package algorithms

import (
	"fmt"
	"strings"
	"time"
)

// Describer is an optional interface of a Node that says what the node
// believes, in words, for a person stepping through a run: the HTML view of
// a replayed scenario or explorer counterexample (`leaselab replay FILE
// --timeline x.html`) shows, at the step selected, each node's description.
//
// Describe must not change the node (a runner calls it between steps, as
// often as it likes), must be cheap (a few lines; at most DescribeLimit
// resources are listed, then how many more) and says times relative to
// now, the node's own clock (Until, Ago), since a reader cannot compare a
// node's raw clock readings with anything. Lines are separated by "\n"; the
// first says the node's life (restart counter, a restart wait), the others
// one role and resource each, e.g.
//
//	life 0
//	acceptor r0: promised 2.0.1, accepted 2.0.1 (n1, ends in 9.5s)
//	proposer r0: prepare phase, ballot 2.0.1: promises from n0 n1 of 2 needed
type Describer interface {
	Describe(now Local) string
}

// DescribeLimit is how many resources a description lists.
const DescribeLimit = 8

// Describe is n's description at local time now, or "" if n does not
// describe itself.
func Describe(n Node, now Local) string {
	if d, ok := n.(Describer); ok {
		return d.Describe(now)
	}
	return ""
}

// Until says when a local deadline comes, relative to now: "in 9.5s", or
// "2ms ago" once it has passed; 0 is "unset".
func Until(at, now Local) string {
	if at == 0 {
		return "unset"
	}
	if at > now {
		return "in " + short(time.Duration(at-now))
	}
	return Ago(at, now)
}

// Ago says how long before now a local time was: "3ms ago", "now".
func Ago(at, now Local) string {
	if at == now {
		return "now"
	}
	if at > now {
		return "in " + short(time.Duration(at-now))
	}
	return short(time.Duration(now-at)) + " ago"
}

// short rounds d to three significant digits (9.5s, 1.25ms, 200µs).
func short(d time.Duration) string {
	for _, u := range []time.Duration{time.Hour, time.Minute, time.Second, time.Millisecond, time.Microsecond} {
		if d >= u {
			return d.Round(u / 100).String()
		}
	}
	return d.String()
}

// String lists the ids of s in order: "n0 n2" ("none" if empty).
func (s *NodeSet) String() string {
	var b strings.Builder
	each := func(base int, w uint64) {
		for i := 0; i < 64; i++ {
			if w&(1<<i) != 0 {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				fmt.Fprintf(&b, "n%d", base+i)
			}
		}
	}
	each(0, s.lo)
	for i := 0; i < s.words(); i++ {
		each(64*(i+1), s.at(i))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// Description builds a Describer's text: a first line, then one line per
// item, at most DescribeLimit items per kind, then how many were left out.
type Description struct {
	b     strings.Builder
	kinds map[string]int
}

// Line adds a line that is always shown.
func (d *Description) Line(format string, a ...any) {
	if d.b.Len() > 0 {
		d.b.WriteByte('\n')
	}
	fmt.Fprintf(&d.b, format, a...)
}

// Item adds a line of the given kind ("acceptor", "proposer", ...) unless
// DescribeLimit of that kind are already in.
func (d *Description) Item(kind, format string, a ...any) {
	if d.kinds == nil {
		d.kinds = map[string]int{}
	}
	d.kinds[kind]++
	if d.kinds[kind] <= DescribeLimit {
		d.Line(kind+" "+format, a...)
	}
}

// String ends the text: a line for each kind with more than DescribeLimit
// items, in the order given.
func (d *Description) String(kinds ...string) string {
	for _, k := range kinds {
		if n := d.kinds[k]; n > DescribeLimit {
			d.Line("%s: %d more resources not listed", k, n-DescribeLimit)
		}
	}
	return d.b.String()
}

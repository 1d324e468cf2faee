package workload

import (
	"math/rand/v2"

	"leaselab/algorithms"
	"leaselab/runner/faults"
)

// arrivals are the open-loop load of a batch with Spec.Rate > 0: request
// k arrives at the k-th point of a Poisson process of rate Rate (the
// first at true time 0), goes to proposer k mod P and asks for resource
// k. Arrivals are scheduled from the process alone, never from answers,
// so a slow cluster cannot slow the load down and hide its own latency
// (coordinated omission): a request's latency counts from its arrival.
// They end after Leases requests or at Duration. The gaps come from a
// stream of their own, so the other draws of a run are those of any
// other batch.
type arrivals struct {
	rng  *rand.Rand
	next int     // the next request's number
	at   float64 // its arrival, ns of true time
	done bool    // every request has arrived (or Duration passed)
}

// startOpen schedules the first arrival.
func (d *Driver) startOpen() {
	d.open = &arrivals{rng: faults.Rand(d.spec.Seed, faults.StreamArrivals)}
	d.env.At(0, d.arrive)
}

// arrive hands the next request to its proposer and schedules the one
// after it.
func (d *Driver) arrive() {
	a := d.open
	n := algorithms.NodeID(a.next % d.spec.Proposers)
	if d.input(n, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(a.next)}) {
		d.outstanding++
	}
	a.next++
	a.at += a.rng.ExpFloat64() / d.spec.Rate * 1e9
	if a.next >= d.spec.Leases || a.at >= float64(d.spec.Duration) {
		a.done = true
		if d.outstanding == 0 {
			d.env.Stop()
		}
		return
	}
	d.env.At(int64(a.at), d.arrive)
}

// resolvedAll reports whether a batch or single run has nothing left to
// wait for: no request pending, and (open loop) none still to arrive.
func (d *Driver) resolvedAll() bool {
	return d.outstanding == 0 && (d.open == nil || d.open.done)
}

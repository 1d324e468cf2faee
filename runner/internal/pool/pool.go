// Package pool runs numbered jobs on a bounded number of goroutines: the
// one parallel loop of the campaign's seeds, the experiments' runs and the
// explorer's chunks of states.
package pool

import "runtime"

// Pool says how jobs run. The zero value runs GOMAXPROCS at once.
type Pool struct {
	// Workers is how many jobs run at once (<= 0: GOMAXPROCS).
	Workers int
	// Alone, if set, names the jobs that must run with no other in
	// flight: the pool waits for the others to finish, runs it, then
	// goes on.
	Alone func(i int) bool
}

// Size is the number of workers the pool runs.
func (p Pool) Size() int {
	if p.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return p.Workers
}

// Run starts job(w, i) for i = 0, 1, ..., n-1 in that order, each on a
// goroutine of its own, at most Size at once; w in [0, Size) is a worker
// number no other running job has (for per-worker scratch state). As each
// job ends, done(i) is called on Run's goroutine, in the order the jobs
// end (done may be nil); if it returns false, no further job is started.
// Run returns when every started job has ended.
func (p Pool) Run(n int, job func(w, i int), done func(i int) bool) {
	size := p.Size()
	type end struct{ w, i int }
	ends := make(chan end)
	idle := make([]int, 0, size)
	for w := size - 1; w >= 0; w-- {
		idle = append(idle, w)
	}
	next, more := 0, true
	for more && next < n || len(idle) < size {
		for more && next < n && len(idle) > 0 {
			if p.Alone != nil && p.Alone(next) && len(idle) < size {
				break // wait for the others to drain
			}
			w := idle[len(idle)-1]
			idle = idle[:len(idle)-1]
			go func(w, i int) {
				job(w, i)
				ends <- end{w, i}
			}(w, next)
			next++
			if p.Alone != nil && p.Alone(next-1) {
				break // runs alone: start nothing beside it
			}
		}
		e := <-ends
		idle = append(idle, e.w)
		if done != nil && !done(e.i) {
			more = false
		}
	}
}

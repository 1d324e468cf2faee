package workload

import (
	"leaselab/algorithms"
)

// Process pauses and the protected store's writer.
//
// A client is part of its node's process: while the process is paused
// (the environment calls Paused and Resumed) the client's own callbacks
// (think time, hold, expiry, extension, watchdog, give-up) wait, and run
// at the resume, in the order they came due. Only runs that can pause
// (FaultSpec.PauseRate) pay for the check.
//
// The writer (Spec.Writes = W > 0): while a contention or failover client
// holds a lease, it checks the lease, works for W of true time and
// writes (Recorder.Write, to the protected store), then checks again. A
// check passes when the lease, on the node's clock, has at least W to
// run; a write carries the fencing token of the lease as last acquired or
// extended (Event.Token) and the start of its hold interval. A client that
// releases its lease, learns it lost it or sees it expire stops writing;
// a write that came due while the process was paused goes out at the
// resume, before anything else the client does: the check it followed
// was made before the pause, and nothing in between looked at the clock.

// at runs f at true time t as client n's own doing: while n's process is
// paused, f waits for the resume.
func (d *Driver) at(n algorithms.NodeID, t int64, f func()) {
	if d.spec.Faults.PauseRate == 0 {
		d.env.At(t, f)
		return
	}
	d.env.At(t, func() {
		if c := &d.clients[n]; c.paused {
			c.kept = append(c.kept, f)
			return
		}
		f()
	})
}

// Paused tells the driver node n's process paused (the environment calls
// it when the pause begins).
func (d *Driver) Paused(n algorithms.NodeID) {
	d.rec.Pause(d.env.Now(), n)
	if int(n) < len(d.clients) {
		d.clients[n].paused = true
	}
}

// Resumed tells the driver node n's process resumed: a write that came
// due meanwhile goes out, then the client's kept callbacks run. The
// environment calls it before it hands the node what else came due.
func (d *Driver) Resumed(n algorithms.NodeID) {
	d.rec.Resume(d.env.Now(), n)
	if int(n) >= len(d.clients) {
		return
	}
	c := &d.clients[n]
	c.paused = false
	if c.due && c.writing {
		d.write(n)
	}
	kept := c.kept
	c.kept = nil
	for _, f := range kept {
		f()
	}
}

// writeUnder notes that client n acquired or extended the lease ev says
// and starts its writes if they are not running.
func (d *Driver) writeUnder(n algorithms.NodeID, ev algorithms.Event) {
	if d.spec.Writes == 0 || d.noWrites {
		return
	}
	c := &d.clients[n]
	c.token, c.wuntil = ev.Token, ev.Until
	if c.writing {
		return // an extension: the loop goes on under the new token
	}
	start, ok := d.rec.Since(d.env.Now(), n, ev.Resource)
	if !ok {
		return // the lease ended as it came
	}
	c.writing, c.wstart = true, start
	c.wgen++
	d.checkLease(n, c.wgen)
}

// checkLease is client n's check before a write: with at least W left on
// its lease, it works for W and writes; otherwise it stops writing.
func (d *Driver) checkLease(n algorithms.NodeID, g uint32) {
	c := &d.clients[n]
	now := d.env.Now()
	w := int64(d.spec.Writes)
	if d.localOf(n, now)+algorithms.Local(w) > c.wuntil {
		c.writing = false
		return
	}
	d.env.At(now+w, func() {
		c := &d.clients[n]
		if c.wgen != g || !c.writing {
			return
		}
		if c.paused {
			c.due = true
			return
		}
		d.write(n)
	})
}

// write makes client n's write and checks the lease again.
func (d *Driver) write(n algorithms.NodeID) {
	c := &d.clients[n]
	c.due = false
	d.rec.Write(d.env.Now(), n, c.res, c.token, c.wstart)
	d.checkLease(n, c.wgen)
}

// stopWrites ends client n's writes (it released, lost or let expire its
// lease, or crashed).
func (d *Driver) stopWrites(n algorithms.NodeID) {
	c := &d.clients[n]
	if c.writing || c.due {
		c.writing, c.due = false, false
		c.wgen++
	}
}

// NoWrites leaves the writes to the nodes themselves (node processes:
// `leaselab cluster`, whose nodes' writes must stop with their process);
// call it before Start.
func (d *Driver) NoWrites() { d.noWrites = true }

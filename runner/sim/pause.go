package sim

import (
	"leaselab/algorithms"
	"leaselab/runner/faults"
	"leaselab/runner/record"
)

// Process pauses (FaultSpec.PauseRate, a scenario's "pause"): a paused
// node's process does nothing. Every event of the node that comes due
// meanwhile (a delivery, a timer, a client input, an fsync completion) is
// kept, in the order it came due, and run when the node resumes, at the
// resume instant, after the driver heard of the resume (so a write the
// node's client checked before the pause goes out first: Driver.Resumed).
// The node's clock runs on (it is the machine's), so timers that came due
// fire late and the node reads the time that passed. A crash ends a pause:
// what was kept is lost with the process (messages as drops, reason
// "down"). Pauses come as a Poisson process of PauseRate per node per
// minute, each lasting uniformly in [0, PauseMax], drawn from their own
// stream (faults.StreamPause), the next one after the node resumed.
//
// Clock jumps (ClockSpec.Jumps, a scenario's "clock NODE jump=D"): an
// episode steps the node's clock by a draw in [-JumpMax, JumpMax] and
// after a draw in [JumpLen/2, JumpLen] steps it back (bump), or with
// Strobe > 0 steps it there and back every Strobe until then (strobe).
// A step is a change of the clock's offset (setClock: pending timers and
// hold ends are mapped to true time again); slewing goes on from the new
// offset. Episodes of a node never overlap; they come as a Poisson
// process of Jumps per node per minute, drawn from faults.StreamJump.

// pauseState is what a node keeps while its process is paused.
type pauseState struct {
	paused bool
	since  int64
	// gen names the current pause, so that the resume of a pause a crash
	// ended does nothing.
	gen uint32
	// kept are the node's events that came due while paused, in order.
	kept []simEvent
	// jump: the step the node's clock is off by in the current clock-jump
	// episode (0: none or stepped back); jumpOn: an episode is running,
	// until jumpEnd; jumpStep is the episode's step.
	jump, jumpStep int64
	jumpEnd        int64
	jumpOn         bool
	// slewGen names the node's current slew schedule (a jump makes a new
	// one); evSlew events of an earlier one do nothing.
	slewGen uint32
	// writes are a scenario's writes the node checked before its pause
	// (scenario_faults.go).
	writes []scriptWrite
}

// keep reports whether e is an event of a paused node, and if so keeps it
// for the resume.
func (s *sim) keep(e timedEvent) bool {
	switch e.kind {
	case evDeliver, evTimer, evInput, evDisk:
	default:
		return false
	}
	n := e.node
	if e.kind == evTimer {
		n = s.trefs.At(e.arg).node
	}
	ps := &s.nodes[n].pause
	if !ps.paused {
		return false
	}
	ps.kept = append(ps.kept, e.simEvent)
	return true
}

// Pause pauses node n's process now for d ns of true time (no-op if n is
// down or already paused).
func (s *sim) Pause(n algorithms.NodeID, d int64) {
	nd := &s.nodes[n]
	if !nd.Up() || nd.pause.paused {
		return
	}
	nd.pause.paused, nd.pause.since = true, s.now
	nd.pause.gen++
	s.pausing = true
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TracePause, Node: n, X: d})
	if s.drv != nil {
		s.drv.Paused(n)
	} else {
		s.rec.Pause(s.now, n)
	}
	s.schedule(s.now+d, evResume, n, 0, nd.pause.gen)
}

// resume ends node n's pause gen: the driver hears of it, then the kept
// events run, in order, at this instant.
func (s *sim) resume(n algorithms.NodeID, gen uint32) {
	ps := &s.nodes[n].pause
	if !ps.paused || ps.gen != gen {
		return
	}
	ps.paused = false
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceResume, Node: n, X: s.now - ps.since})
	if s.drv != nil {
		s.drv.Resumed(n)
	} else {
		s.rec.Resume(s.now, n)
		s.flushWrites(n)
	}
	for _, e := range ps.kept {
		s.schedule(s.now, e.kind, e.node, e.arg, e.gen)
	}
	ps.kept = ps.kept[:0]
	if f := s.spec.Faults; f.PauseRate > 0 && !s.scripted {
		s.schedule(s.now+s.pauses.Gap(f.PauseRate), evPause, n, 0, 0)
	}
}

// unpause ends node n's pause because it crashed: what it kept is lost.
func (s *sim) unpause(n algorithms.NodeID) {
	ps := &s.nodes[n].pause
	if !ps.paused {
		return
	}
	ps.paused = false
	ps.writes = ps.writes[:0]
	for _, e := range ps.kept {
		switch e.kind {
		case evDeliver:
			m := *s.msgs.At(e.arg)
			s.msgs.Free(e.arg)
			s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceDrop, Sub: record.DropDown, Node: n, Msg: m})
		case evInput:
			s.inputs.Free(e.arg)
		}
	}
	ps.kept = ps.kept[:0]
	if f := s.spec.Faults; f.PauseRate > 0 && !s.scripted {
		s.schedule(s.now+s.pauses.Gap(f.PauseRate), evPause, n, 0, 0)
	}
}

// faultPause is a drawn pause of node n: it pauses n if n is running,
// else draws the next one.
func (s *sim) faultPause(n algorithms.NodeID) {
	if s.quiet {
		return
	}
	f := &s.spec.Faults
	nd := &s.nodes[n]
	if !nd.Up() || nd.pause.paused {
		s.schedule(s.now+s.pauses.Gap(f.PauseRate), evPause, n, 0, 0)
		return
	}
	s.Pause(n, s.pauses.Upto(int64(f.PauseMax)))
}

// Paused reports whether node n's process is paused.
func (s *sim) Paused(n algorithms.NodeID) bool { return s.nodes[n].pause.paused }

// jumpClock steps node n's clock by d (a scenario's jump, or a step of an
// episode).
func (s *sim) jumpClock(n algorithms.NodeID, d int64) {
	ps := &s.nodes[n].pause
	c := s.clock[n]
	c.Offset += d
	ps.jump += d
	s.setClock(n, c)
	if !s.scripted && !s.spec.Clocks.Free && s.spec.Clocks.Skew > 0 {
		// The slew schedule was for the old offset: start a new one.
		ps.slewGen++
		s.scheduleSlew(n)
	}
}

// faultJump starts a clock-jump episode of node n, or, within one, takes
// its next strobe step or its end.
func (s *sim) faultJump(n algorithms.NodeID) {
	c := &s.spec.Clocks
	ps := &s.nodes[n].pause
	if !ps.jumpOn {
		if s.quiet {
			return
		}
		ps.jumpOn = true
		s.clockJumps++
		step := s.jumps.Upto(2*int64(c.JumpMax)) - int64(c.JumpMax)
		if step == 0 {
			step = 1 // a jump jumps
		}
		ps.jumpStep = step
		ps.jumpEnd = s.now + s.jumps.Length(int64(c.JumpLen))
		s.jumpClock(n, step)
		s.nextJumpStep(n)
		return
	}
	if s.now >= ps.jumpEnd {
		if ps.jump != 0 {
			s.jumpClock(n, -ps.jump)
		}
		ps.jumpOn = false
		s.schedule(s.now+s.jumps.Gap(c.Jumps), evJump, n, 0, 0)
		return
	}
	// A strobe step: there if back, back if there.
	if ps.jump != 0 {
		s.jumpClock(n, -ps.jump)
	} else {
		s.jumpClock(n, ps.jumpStep)
	}
	s.nextJumpStep(n)
}

// nextJumpStep schedules the next step of node n's episode: its end for a
// bump, the next strobe step (or the end, if sooner) for a strobe.
func (s *sim) nextJumpStep(n algorithms.NodeID) {
	ps := &s.nodes[n].pause
	at := ps.jumpEnd
	if p := int64(s.spec.Clocks.Strobe); p > 0 && s.now+p < at {
		at = s.now + p
	}
	s.schedule(at, evJump, n, 0, 0)
}

// scheduleNewFaults draws the first pause and the first clock-jump
// episode of every node, each from its own stream (so that runs without
// them draw exactly what they always did).
func (s *sim) scheduleNewFaults() {
	if r := s.spec.Faults.PauseRate; r > 0 {
		s.pauses = faults.NewStreamSchedule(s.spec.Seed, faults.StreamPause)
		for i := range s.nodes {
			s.schedule(s.pauses.Gap(r), evPause, algorithms.NodeID(i), 0, 0)
		}
	}
	if r := s.spec.Clocks.Jumps; r > 0 {
		s.jumps = faults.NewStreamSchedule(s.spec.Seed, faults.StreamJump)
		for i := range s.nodes {
			s.schedule(s.jumps.Gap(r), evJump, algorithms.NodeID(i), 0, 0)
		}
	}
}

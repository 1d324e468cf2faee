package record

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"leaselab/runner"
)

// The sinks: observers that write a run's trace records out as text
// (runner.Options' Trace, Holds and ViolationTrace). Nothing in leaselab
// reads these back: an in-process view observes the records themselves.

// JSONLines writes every trace record it observes as one JSON object per
// line (AppendTraceJSON), buffered until Flush.
type JSONLines struct {
	name string
	w    *bufio.Writer
	buf  []byte
	err  error
}

// NewJSONLines returns a sink writing to w; name says what it writes in
// its errors ("trace").
func NewJSONLines(w io.Writer, name string) *JSONLines {
	return &JSONLines{name: name, w: bufio.NewWriterSize(w, 1<<16)}
}

// Observe implements runner.Observer.
func (j *JSONLines) Observe(r *runner.TraceRec) {
	if j.err != nil {
		return
	}
	j.buf = AppendTraceJSON(j.buf[:0], r)
	j.buf = append(j.buf, '\n')
	if _, err := j.w.Write(j.buf); err != nil {
		j.err = fmt.Errorf("writing %s: %w", j.name, err)
	}
}

// Flush writes out what is buffered and reports the first write error.
func (j *JSONLines) Flush() error {
	if j.err == nil {
		if err := j.w.Flush(); err != nil {
			j.err = fmt.Errorf("writing %s: %w", j.name, err)
		}
	}
	return j.err
}

// HoldsCSV writes a CSV row resource,owner,ballot,start_ns,end_ns (true
// time) for every hold interval as it ends (a hold_end record), after a
// header line. Ballots are written "round.restart.node", as everywhere.
type HoldsCSV struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewHoldsCSV returns a sink writing to w; the header goes out first.
func NewHoldsCSV(w io.Writer) *HoldsCSV {
	h := &HoldsCSV{w: bufio.NewWriterSize(w, 1<<16)}
	_, h.err = h.w.WriteString("resource,owner,ballot,start_ns,end_ns\n")
	return h
}

// Observe implements runner.Observer.
func (h *HoldsCSV) Observe(r *runner.TraceRec) {
	if r.Kind != runner.TraceHoldEnd || h.err != nil {
		return
	}
	out := strconv.AppendUint(h.buf[:0], uint64(r.Res), 10)
	out = append(out, ',')
	out = strconv.AppendUint(out, uint64(r.Owner), 10)
	out = append(out, ',')
	out = append(out, r.Ballot.String()...)
	out = append(out, ',')
	out = strconv.AppendInt(out, r.X, 10)
	out = append(out, ',')
	out = strconv.AppendInt(out, r.T, 10)
	out = append(out, '\n')
	h.buf = out
	_, h.err = h.w.Write(out)
}

// Flush writes out what is buffered and reports the first write error.
func (h *HoldsCSV) Flush() error {
	if h.err == nil {
		h.err = h.w.Flush()
	}
	if h.err != nil {
		return fmt.Errorf("writing holds: %w", h.err)
	}
	return nil
}

// ViolationWindow keeps the last n trace records and, when the run's
// first violation begins, hands them to its observer, oldest first, the
// violation record last (runner.Options.ViolationTrace; `leaselab check
// --timeline` draws them). Later records are not passed on.
type ViolationWindow struct {
	to   runner.Observer
	ring []runner.TraceRec
	pos  int
	full bool
	done bool
}

// NewViolationWindow returns a window of n records (n >= 1) for to.
func NewViolationWindow(n int, to runner.Observer) *ViolationWindow {
	return &ViolationWindow{to: to, ring: make([]runner.TraceRec, n)}
}

// Observe implements runner.Observer.
func (v *ViolationWindow) Observe(r *runner.TraceRec) {
	if v.done {
		return
	}
	v.ring[v.pos] = *r
	v.pos++
	if v.pos == len(v.ring) {
		v.pos, v.full = 0, true
	}
	if r.Kind != runner.TraceViolation {
		return
	}
	v.done = true
	if v.full {
		for i := v.pos; i < len(v.ring); i++ {
			v.to.Observe(&v.ring[i])
		}
	}
	for i := 0; i < v.pos; i++ {
		v.to.Observe(&v.ring[i])
	}
	v.ring = nil
}

// Flush flushes the window's observer, if it buffers.
func (v *ViolationWindow) Flush() error {
	if f, ok := v.to.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

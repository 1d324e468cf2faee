package record

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strconv"

	"leaselab/algorithms"
	"leaselab/runner"
)

// TraceKind says what a trace record is.
type TraceKind uint8

const (
	TraceSend      TraceKind = iota + 1 // node handed Msg to the network
	TraceDeliver                        // Msg was stepped into node
	TraceDrop                           // Msg was dropped; Sub is the DropReason
	TraceDup                            // the network duplicated Msg
	TraceFire                           // timer (Res, Sub=kind) fired at node
	TraceInput                          // a client input (Sub=InputKind) on Res at node
	TraceEvent                          // node emitted an Event (Sub=EventKind; Res, Owner, Ballot, X=Until)
	TraceCrash                          // node crashed
	TraceRestart                        // node restarted; X = its restart count
	TracePartition                      // a partition began; X = bit mask of side A (nodes 0..63)
	TraceHeal                           // the partition healed
	TraceHoldStart                      // hold interval began: Res, Owner=node, Ballot, X=true end as known now
	TraceHoldEnd                        // hold interval ended: Res, Owner=node, Ballot, X=start
	TracePersist                        // node wrote X records (Y=1: NoSync)
	TraceSync                           // node's fsync finished: X = latency ns, Y = records
	TraceClock                          // node's clock was set: X = offset ns, Y = rate ppb
	TraceViolation                      // an overlap began: Res, Owner=first owner, X=second owner
	traceKindCount
)

var traceNames = [...]string{"", "send", "deliver", "drop", "dup", "fire", "input", "event", "crash", "restart",
	"partition", "heal", "hold_start", "hold_end", "persist", "sync", "clock", "violation"}

func (k TraceKind) String() string {
	if k < traceKindCount {
		return traceNames[k]
	}
	return "trace(" + strconv.Itoa(int(k)) + ")"
}

// DropReason says why a message was dropped.
const (
	DropLoss      = 1 // random loss
	DropPartition = 2 // sender and receiver on different sides of a partition
	DropDown      = 3 // receiver is down
	DropScript    = 4 // a scenario's "drop"
)

var dropNames = [...]string{"", "loss", "partition", "down", "script"}

// TraceRec is one record of a run's trace: a value with no pointers, so
// the ring buffer of recent records costs no garbage.
type TraceRec struct {
	T      int64            // true time, ns
	Local  algorithms.Local // the node's clock at T
	Kind   TraceKind
	Sub    uint8
	Node   algorithms.NodeID
	Msg    algorithms.Message // send, deliver, drop, dup
	Res    algorithms.ResourceID
	Owner  algorithms.NodeID
	Ballot algorithms.Ballot
	X, Y   int64
}

// Tracer hashes every trace record (so Result.TraceHash identifies a run
// byte for byte), optionally writes them as JSON lines, and optionally
// keeps the most recent ones in a ring buffer (to show what led to a
// violation).
//
// The hash is a 64-bit word-wise mix (multiply-rotate, in the spirit of
// FNV-1a and xxHash) over a canonical encoding of each record as 64-bit
// words; it is not cryptographic, it only has to tell runs apart.
type Tracer struct {
	// Hook, if set, sees every record as it is added (Replay prints them).
	// It gets a copy, so that records built on the caller's stack never
	// escape to the heap.
	Hook func(TraceRec)

	h     uint64
	n     int64
	w     *bufio.Writer
	werr  error
	buf   []byte
	ring  []TraceRec
	rpos  int
	rfull bool
}

// NewTracer returns a tracer that writes JSON lines to w (nil: none) and
// keeps the last ring records (0: none).
func NewTracer(w io.Writer, ring int) *Tracer {
	t := &Tracer{h: 0xcbf29ce484222325}
	if w != nil {
		t.w = bufio.NewWriterSize(w, 1<<16)
	}
	if ring > 0 {
		t.ring = make([]TraceRec, ring)
	}
	return t
}

// NewRunTracer returns the tracer of a run with options opt: it writes
// opt.Trace and keeps the records opt.ViolationTrace needs (see
// DumpFirstViolation).
func NewRunTracer(opt runner.Options) *Tracer {
	ring := 0
	if opt.ViolationTrace != nil {
		ring = runner.ViolationContext
	}
	return NewTracer(opt.Trace, ring)
}

// DumpFirstViolation makes rec write tr's recent records to w, as JSON
// lines, when the run's first violation begins (nothing if w is nil).
// It takes rec's OnViolation.
func DumpFirstViolation(rec *Recorder, tr *Tracer, w io.Writer) {
	if w == nil {
		return
	}
	dumped := false
	rec.OnViolation = func(int64, runner.Violation) {
		if dumped {
			return
		}
		dumped = true
		recent := tr.Recent()
		var b []byte
		for i := range recent {
			b = AppendTraceJSON(b[:0], &recent[i])
			b = append(b, '\n')
			if _, err := w.Write(b); err != nil {
				return
			}
		}
	}
}

// mix folds w into the hash h.
func mix(h, w uint64) uint64 {
	h ^= w * 0x9E3779B97F4A7C15
	return bits.RotateLeft64(h, 29) * 0x94D049BB133111EB
}

func (k TraceKind) hasMsg() bool { return k >= TraceSend && k <= TraceDup }

// Add records r.
func (t *Tracer) Add(r *TraceRec) {
	t.n++
	// The hash lives in a local while it is mixed: through t it would be
	// stored and loaded again at every step of a chain ten steps long.
	h := t.h
	h = mix(h, uint64(r.T))
	h = mix(h, uint64(r.Local))
	h = mix(h, uint64(r.Kind)|uint64(r.Sub)<<8|uint64(r.Node)<<16)
	if r.Kind.hasMsg() {
		m := &r.Msg
		h = mix(h, uint64(m.Kind)|uint64(m.Flags)<<8|uint64(m.From)<<16|uint64(m.To)<<32|uint64(m.Owner)<<48)
		h = mix(h, uint64(m.Resource))
		h = mix(h, uint64(m.Ballot))
		h = mix(h, uint64(m.Accepted))
		h = mix(h, uint64(m.Promised))
		h = mix(h, m.Instance)
		h = mix(h, uint64(m.Span))
		h = mix(h, uint64(m.Expiry))
	} else {
		h = mix(h, uint64(r.Res))
		h = mix(h, uint64(r.Ballot))
		h = mix(h, uint64(r.Owner))
		h = mix(h, uint64(r.X))
		h = mix(h, uint64(r.Y))
	}
	t.h = h
	if t.ring != nil {
		t.ring[t.rpos] = *r
		t.rpos++
		if t.rpos == len(t.ring) {
			t.rpos = 0
			t.rfull = true
		}
	}
	if t.Hook != nil {
		t.Hook(*r)
	}
	if t.w != nil && t.werr == nil {
		t.buf = AppendTraceJSON(t.buf[:0], r)
		t.buf = append(t.buf, '\n')
		_, t.werr = t.w.Write(t.buf)
	}
}

// Hash is the trace hash so far, as 16 hex digits.
func (t *Tracer) Hash() string {
	h := t.h ^ uint64(t.n)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return fmt.Sprintf("%016x", h)
}

// Records is the number of records added.
func (t *Tracer) Records() int64 { return t.n }

// Recent returns the records in the ring buffer, oldest first.
func (t *Tracer) Recent() []TraceRec {
	if t.ring == nil {
		return nil
	}
	if !t.rfull {
		return append([]TraceRec(nil), t.ring[:t.rpos]...)
	}
	out := make([]TraceRec, 0, len(t.ring))
	out = append(out, t.ring[t.rpos:]...)
	return append(out, t.ring[:t.rpos]...)
}

// Flush writes out buffered JSON lines and reports the first write error.
func (t *Tracer) Flush() error {
	if t.w == nil {
		return nil
	}
	if t.werr != nil {
		return t.werr
	}
	return t.w.Flush()
}

func appendNode(b []byte, n algorithms.NodeID) []byte {
	if n == algorithms.NoNode {
		return append(b, "-1"...)
	}
	return strconv.AppendUint(b, uint64(n), 10)
}

func appendBallot(b []byte, x algorithms.Ballot) []byte {
	b = append(b, '"')
	b = append(b, x.String()...)
	return append(b, '"')
}

// AppendTraceJSON appends r as one JSON object (no newline). Keys: t (true
// ns), local (node's clock), node, what (the TraceKind), and per kind: msg
// {kind, from, to, owner, res, ballot, acc, prom, inst, span, exp, flags};
// reason (drop); timer_kind, res (fire); input, res (input); event, res,
// owner, ballot, until (event); restarts (restart); side_a (partition,
// bit mask); res, owner, ballot, end / start (holds); records, nosync
// (persist); latency_ns, records (sync); offset_ns, rate_ppb (clock); res,
// owners (violation). Ballots are "round.restart.node"; NoNode is -1.
func AppendTraceJSON(b []byte, r *TraceRec) []byte {
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, r.T, 10)
	b = append(b, `,"local":`...)
	b = strconv.AppendInt(b, int64(r.Local), 10)
	b = append(b, `,"node":`...)
	b = appendNode(b, r.Node)
	b = append(b, `,"what":"`...)
	b = append(b, r.Kind.String()...)
	b = append(b, '"')
	switch r.Kind {
	case TraceSend, TraceDeliver, TraceDrop, TraceDup:
		m := &r.Msg
		b = append(b, `,"msg":{"kind":"`...)
		b = append(b, m.Kind.String()...)
		b = append(b, `","from":`...)
		b = appendNode(b, m.From)
		b = append(b, `,"to":`...)
		b = appendNode(b, m.To)
		b = append(b, `,"owner":`...)
		b = appendNode(b, m.Owner)
		b = append(b, `,"res":`...)
		b = strconv.AppendUint(b, uint64(m.Resource), 10)
		b = append(b, `,"ballot":`...)
		b = appendBallot(b, m.Ballot)
		b = append(b, `,"acc":`...)
		b = appendBallot(b, m.Accepted)
		b = append(b, `,"prom":`...)
		b = appendBallot(b, m.Promised)
		b = append(b, `,"inst":`...)
		b = strconv.AppendUint(b, m.Instance, 10)
		b = append(b, `,"span":`...)
		b = strconv.AppendInt(b, m.Span, 10)
		b = append(b, `,"exp":`...)
		b = strconv.AppendInt(b, int64(m.Expiry), 10)
		b = append(b, `,"flags":`...)
		b = strconv.AppendUint(b, uint64(m.Flags), 10)
		b = append(b, '}')
		if r.Kind == TraceDrop {
			b = append(b, `,"reason":"`...)
			if int(r.Sub) < len(dropNames) {
				b = append(b, dropNames[r.Sub]...)
			}
			b = append(b, '"')
		}
	case TraceFire:
		b = append(b, `,"res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
		b = append(b, `,"timer_kind":`...)
		b = strconv.AppendUint(b, uint64(r.Sub), 10)
	case TraceInput:
		b = append(b, `,"input":"`...)
		b = append(b, algorithms.InputKind(r.Sub).String()...)
		b = append(b, `","res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
	case TraceEvent:
		b = append(b, `,"event":"`...)
		b = append(b, algorithms.EventKind(r.Sub).String()...)
		b = append(b, `","res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
		b = append(b, `,"owner":`...)
		b = appendNode(b, r.Owner)
		b = append(b, `,"ballot":`...)
		b = appendBallot(b, r.Ballot)
		b = append(b, `,"until":`...)
		b = strconv.AppendInt(b, r.X, 10)
	case TraceRestart:
		b = append(b, `,"restarts":`...)
		b = strconv.AppendInt(b, r.X, 10)
	case TracePartition:
		b = append(b, `,"side_a":`...)
		b = strconv.AppendUint(b, uint64(r.X), 10)
	case TraceHoldStart, TraceHoldEnd:
		b = append(b, `,"res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
		b = append(b, `,"owner":`...)
		b = appendNode(b, r.Owner)
		b = append(b, `,"ballot":`...)
		b = appendBallot(b, r.Ballot)
		if r.Kind == TraceHoldStart {
			b = append(b, `,"end":`...)
		} else {
			b = append(b, `,"start":`...)
		}
		b = strconv.AppendInt(b, r.X, 10)
	case TracePersist:
		b = append(b, `,"records":`...)
		b = strconv.AppendInt(b, r.X, 10)
		b = append(b, `,"nosync":`...)
		b = strconv.AppendBool(b, r.Y != 0)
	case TraceSync:
		b = append(b, `,"latency_ns":`...)
		b = strconv.AppendInt(b, r.X, 10)
		b = append(b, `,"records":`...)
		b = strconv.AppendInt(b, r.Y, 10)
	case TraceClock:
		b = append(b, `,"offset_ns":`...)
		b = strconv.AppendInt(b, r.X, 10)
		b = append(b, `,"rate_ppb":`...)
		b = strconv.AppendInt(b, r.Y, 10)
	case TraceViolation:
		b = append(b, `,"res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
		b = append(b, `,"owners":[`...)
		b = appendNode(b, r.Owner)
		b = append(b, ',')
		b = appendNode(b, algorithms.NodeID(r.X))
		b = append(b, ']')
	}
	return append(b, '}')
}

// FormatTrace renders r as one human-readable line (Replay's output).
func FormatTrace(r *TraceRec) string {
	head := fmt.Sprintf("%12.6fms %-4s", float64(r.T)/1e6, r.Node.String())
	switch r.Kind {
	case TraceSend, TraceDeliver, TraceDup:
		return fmt.Sprintf("%s %-10s %s", head, r.Kind, r.Msg)
	case TraceDrop:
		reason := ""
		if int(r.Sub) < len(dropNames) {
			reason = dropNames[r.Sub]
		}
		return fmt.Sprintf("%s %-10s %s (%s)", head, r.Kind, r.Msg, reason)
	case TraceFire:
		return fmt.Sprintf("%s %-10s timer r%d kind %d (local %d)", head, r.Kind, r.Res, r.Sub, r.Local)
	case TraceInput:
		return fmt.Sprintf("%s %-10s %s r%d", head, r.Kind, algorithms.InputKind(r.Sub), r.Res)
	case TraceEvent:
		s := fmt.Sprintf("%s %-10s %s r%d b=%s", head, r.Kind, algorithms.EventKind(r.Sub), r.Res, r.Ballot)
		switch algorithms.EventKind(r.Sub) {
		case algorithms.Acquired, algorithms.Granted:
			s += fmt.Sprintf(" owner=%s until=%d (local now %d)", r.Owner, r.X, r.Local)
		}
		return s
	case TraceRestart:
		return fmt.Sprintf("%s %-10s restarts=%d", head, r.Kind, r.X)
	case TracePartition:
		return fmt.Sprintf("%s %-10s side_a=%b", head, r.Kind, uint64(r.X))
	case TraceHoldStart:
		return fmt.Sprintf("%s %-10s r%d owner=%s b=%s until %.6fms", head, r.Kind, r.Res, r.Owner, r.Ballot, float64(r.X)/1e6)
	case TraceHoldEnd:
		return fmt.Sprintf("%s %-10s r%d owner=%s b=%s held since %.6fms", head, r.Kind, r.Res, r.Owner, r.Ballot, float64(r.X)/1e6)
	case TracePersist:
		return fmt.Sprintf("%s %-10s %d records nosync=%v", head, r.Kind, r.X, r.Y != 0)
	case TraceSync:
		return fmt.Sprintf("%s %-10s %d records in %.3fms", head, r.Kind, r.Y, float64(r.X)/1e6)
	case TraceClock:
		return fmt.Sprintf("%s %-10s offset=%dns rate=%dppb", head, r.Kind, r.X, r.Y)
	case TraceViolation:
		return fmt.Sprintf("%s %-10s r%d owners %s and %s", head, r.Kind, r.Res, r.Owner, algorithms.NodeID(r.X))
	}
	return fmt.Sprintf("%s %s", head, r.Kind)
}

// DropReason names why a TraceDrop record's message was dropped (its Sub).
func DropReason(sub uint8) string {
	if int(sub) < len(dropNames) {
		return dropNames[sub]
	}
	return ""
}

package record

import (
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// The trace's vocabulary is package runner's (runner.TraceRec is what
// runner.Options.Observers see); the environments name it through these
// aliases.
type (
	TraceRec  = runner.TraceRec
	TraceKind = runner.TraceKind
)

const (
	TraceSend      = runner.TraceSend
	TraceDeliver   = runner.TraceDeliver
	TraceDrop      = runner.TraceDrop
	TraceDup       = runner.TraceDup
	TraceFire      = runner.TraceFire
	TraceInput     = runner.TraceInput
	TraceEvent     = runner.TraceEvent
	TraceCrash     = runner.TraceCrash
	TraceRestart   = runner.TraceRestart
	TracePartition = runner.TracePartition
	TraceHeal      = runner.TraceHeal
	TraceHoldStart = runner.TraceHoldStart
	TraceHoldEnd   = runner.TraceHoldEnd
	TracePersist   = runner.TracePersist
	TraceSync      = runner.TraceSync
	TraceClock     = runner.TraceClock
	TraceViolation = runner.TraceViolation
	TracePause     = runner.TracePause
	TraceResume    = runner.TraceResume
	TraceWrite     = runner.TraceWrite

	DropLoss      = runner.DropLoss
	DropPartition = runner.DropPartition
	DropDown      = runner.DropDown
	DropScript    = runner.DropScript
)

// DropReason names why a TraceDrop record's message was dropped (its Sub).
func DropReason(sub uint8) string { return runner.DropReason(sub) }

// Tracer is where the environment and the Recorder put a run's trace
// records: it hashes every one (so Result.TraceHash identifies a run byte
// for byte) and hands it to its observers (runner.Observer): the sinks
// that write the trace as JSON lines, the holds as CSV and the window
// before a violation (NewRunTracer), and whatever in-process views the
// run was given (runner.Options.Observers).
//
// The hash encodes each record as 64-bit words, sums them each times an
// odd constant of its own (a word's place in the record, so two fields
// swapped change the sum; a change in one word always changes it, the
// constants being odd), and folds that sum into a chain by multiply and
// rotate, one step per record. It is not cryptographic, it only has to
// tell runs apart. The products of one record are independent, so the
// processor computes them side by side: a chain step per word made the
// simulator's batch 5-9% slower (DESIGN.md, "Performance").
type Tracer struct {
	h   uint64
	n   int64
	obs []runner.Observer
	// cur is the record the observers are shown: a copy, so that the
	// records callers build on their stack never escape to the heap.
	cur TraceRec
}

// NewTracer returns a tracer that hands every record to obs, in order.
func NewTracer(obs ...runner.Observer) *Tracer {
	return &Tracer{h: 0xcbf29ce484222325, obs: obs}
}

// NewRunTracer returns the tracer of a run with options opt: it writes
// opt.Trace (JSON lines), opt.Holds (CSV) and opt.ViolationTrace, and
// hands every record to opt.Observers.
func NewRunTracer(opt runner.Options) *Tracer {
	var obs []runner.Observer
	if opt.Trace != nil {
		obs = append(obs, NewJSONLines(opt.Trace, "trace"))
	}
	if opt.Holds != nil {
		obs = append(obs, NewHoldsCSV(opt.Holds))
	}
	if opt.ViolationTrace != nil {
		obs = append(obs, NewViolationWindow(runner.ViolationContext, NewJSONLines(opt.ViolationTrace, "violation trace")))
	}
	return NewTracer(append(obs, opt.Observers...)...)
}

// fold folds the sum r of a record's words into the hash h.
func fold(h, r uint64) uint64 {
	return bits.RotateLeft64((h+r)*0x9E3779B97F4A7C15, 29) * 0x94D049BB133111EB
}

// Add records r.
func (t *Tracer) Add(r *TraceRec) {
	t.n++
	sum := head(r.T, r.Local, r.Kind, r.Sub, r.Node)
	if r.Kind.HasMsg() {
		sum += msgSum(&r.Msg)
	} else {
		sum += stateSum(r.Res, r.Ballot, r.Owner, r.X, r.Y)
	}
	t.h = fold(t.h, sum)
	t.observe(r)
}

func (t *Tracer) observe(r *TraceRec) {
	if len(t.obs) > 0 {
		t.cur = *r
		for _, o := range t.obs {
			o.Observe(&t.cur)
		}
	}
}

// AddMsg records a message record (a kind whose HasMsg is true) of node
// at true time tt: the same record and hash as Add, without building the
// record when no observer will see it (the simulator adds two per
// message, and building each cost a fifth of the hashing).
func (t *Tracer) AddMsg(tt int64, local algorithms.Local, kind TraceKind, sub uint8, node algorithms.NodeID, m *algorithms.Message) {
	if len(t.obs) > 0 {
		t.Add(&TraceRec{T: tt, Local: local, Kind: kind, Sub: sub, Node: node, Msg: *m})
		return
	}
	t.n++
	t.h = fold(t.h, head(tt, local, kind, sub, node)+msgSum(m))
}

// AddState records a record without a message (inputs, events, timer
// firings, holds) as Add does, building it only for observers.
func (t *Tracer) AddState(tt int64, local algorithms.Local, kind TraceKind, sub uint8, node algorithms.NodeID,
	res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, x, y int64) {
	if len(t.obs) > 0 {
		t.Add(&TraceRec{T: tt, Local: local, Kind: kind, Sub: sub, Node: node, Res: res, Owner: owner, Ballot: ballot, X: x, Y: y})
		return
	}
	t.n++
	t.h = fold(t.h, head(tt, local, kind, sub, node)+stateSum(res, ballot, owner, x, y))
}

// Each word of a record is multiplied by the constant of its place: the
// head's three, then a message's eight or a state record's five (a
// message record and a state record differ in their kind, in the head).
const (
	kT, kLocal, kKind                     = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
	k1, k2, k3, k4, k5, k6, k7, k8 uint64 = 0xD6E8FEB86659FD93, 0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3,
		0x589965CC75374CC3, 0x1D8E4E27C47D124F, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
)

// head is the weighted sum of the words every record starts with.
func head(tt int64, local algorithms.Local, kind TraceKind, sub uint8, node algorithms.NodeID) uint64 {
	return uint64(tt)*kT + uint64(local)*kLocal + (uint64(kind)|uint64(sub)<<8|uint64(node)<<16)*kKind
}

// msgSum is the weighted sum of a message record's message.
func msgSum(m *algorithms.Message) uint64 {
	return (uint64(m.Kind)|uint64(m.Flags)<<8|uint64(m.From)<<16|uint64(m.To)<<32|uint64(m.Owner)<<48)*k1 +
		uint64(m.Resource)*k2 + uint64(m.Ballot)*k3 + uint64(m.Accepted)*k4 +
		uint64(m.Promised)*k5 + m.Instance*k6 + uint64(m.Span)*k7 + uint64(m.Expiry)*k8
}

// stateSum is the weighted sum of the fields of a record without a
// message.
func stateSum(res algorithms.ResourceID, ballot algorithms.Ballot, owner algorithms.NodeID, x, y int64) uint64 {
	return uint64(res)*k2 + uint64(ballot)*k3 + uint64(owner)*k4 + uint64(x)*k5 + uint64(y)*k6
}

// Observed reports whether any observer sees the records (an environment
// whose trace hash means nothing may leave out what nobody looks at).
func (t *Tracer) Observed() bool { return len(t.obs) > 0 }

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

// Flush flushes every observer that buffers (a Flush() error method) and
// reports the first error, which names the output.
func (t *Tracer) Flush() error {
	var first error
	for _, o := range t.obs {
		if f, ok := o.(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
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

// appendMsgJSON appends the "msg" key of a message record.
func appendMsgJSON(b []byte, m *algorithms.Message) []byte {
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
	b = append(b, `,"span_ns":`...)
	b = strconv.AppendInt(b, m.Span, 10)
	b = append(b, `,"exp_ns":`...)
	b = strconv.AppendInt(b, int64(m.Expiry), 10)
	b = append(b, `,"flags":`...)
	b = strconv.AppendUint(b, uint64(m.Flags), 10)
	return append(b, '}')
}

// appendResOwnerBallot appends the res, owner and ballot keys of an event
// or hold record.
func appendResOwnerBallot(b []byte, r *TraceRec) []byte {
	b = append(b, `"res":`...)
	b = strconv.AppendUint(b, uint64(r.Res), 10)
	b = append(b, `,"owner":`...)
	b = appendNode(b, r.Owner)
	b = append(b, `,"ballot":`...)
	return appendBallot(b, r.Ballot)
}

// AppendTraceJSON appends r as one JSON object (no newline). Keys: t_ns
// (true time), local_ns (the node's clock), node, what (the TraceKind),
// and per kind: msg {kind, from, to, owner, res, ballot, acc, prom, inst,
// span_ns, exp_ns (the sender's clock), flags}; reason (drop); timer_kind,
// res (fire); input, res (input); event, res, owner, ballot, until_ns (the
// node's clock) (event); restarts (restart); side_a (partition, bit
// mask); res, owner, ballot, end_ns / start_ns (holds, true time);
// records, nosync (persist); latency_ns, records (sync); offset_ns,
// rate_ppb (clock); res, owners (violation); for_ns (pause: its length;
// resume: how long it lasted); res, outcome, token, lease_start_ns
// (write). Every time is in nanoseconds, and its key says so. Ballots
// are "round.restart.node"; NoNode is -1.
func AppendTraceJSON(b []byte, r *TraceRec) []byte {
	b = append(b, `{"t_ns":`...)
	b = strconv.AppendInt(b, r.T, 10)
	b = append(b, `,"local_ns":`...)
	b = strconv.AppendInt(b, int64(r.Local), 10)
	b = append(b, `,"node":`...)
	b = appendNode(b, r.Node)
	b = append(b, `,"what":"`...)
	b = append(b, r.Kind.String()...)
	b = append(b, '"')
	switch r.Kind {
	case TraceSend, TraceDeliver, TraceDrop, TraceDup:
		b = appendMsgJSON(b, &r.Msg)
		if r.Kind == TraceDrop {
			b = append(b, `,"reason":"`...)
			b = append(b, DropReason(r.Sub)...)
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
		b = appendResOwnerBallot(append(b, `",`...), r)
		b = append(b, `,"until_ns":`...)
		b = strconv.AppendInt(b, r.X, 10)
	case TraceRestart:
		b = append(b, `,"restarts":`...)
		b = strconv.AppendInt(b, r.X, 10)
	default:
		b = appendStateJSON(b, r)
	}
	return append(b, '}')
}

// appendStateJSON appends the keys of the records AppendTraceJSON's own
// switch leaves to it: partitions, holds, disk, clocks, violations,
// pauses and writes.
func appendStateJSON(b []byte, r *TraceRec) []byte {
	switch r.Kind {
	case TracePartition:
		b = append(b, `,"side_a":`...)
		b = strconv.AppendUint(b, uint64(r.X), 10)
	case TraceHoldStart, TraceHoldEnd:
		b = appendResOwnerBallot(append(b, ','), r)
		if r.Kind == TraceHoldStart {
			b = append(b, `,"end_ns":`...)
		} else {
			b = append(b, `,"start_ns":`...)
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
	case TracePause, TraceResume:
		b = append(b, `,"for_ns":`...)
		b = strconv.AppendInt(b, r.X, 10)
	case TraceWrite:
		b = append(b, `,"res":`...)
		b = strconv.AppendUint(b, uint64(r.Res), 10)
		b = append(b, `,"outcome":"`...)
		b = append(b, runner.WriteOutcome(r.Sub)...)
		b = append(b, `","token":"`...)
		b = append(b, writeToken(r).String()...)
		b = append(b, `","lease_start_ns":`...)
		b = strconv.AppendInt(b, r.Y, 10)
	}
	return b
}

// writeToken is the fencing token of a TraceWrite record.
func writeToken(r *TraceRec) algorithms.Token {
	return algorithms.Token{Major: uint64(r.X), Minor: uint64(r.Ballot)}
}

// FormatTrace renders r as one human-readable line (Replay's output).
func FormatTrace(r *TraceRec) string {
	head := fmt.Sprintf("%12.6fms %-4s", float64(r.T)/1e6, r.Node.String())
	switch r.Kind {
	case TraceSend, TraceDeliver, TraceDup:
		return fmt.Sprintf("%s %-10s %s", head, r.Kind, r.Msg)
	case TraceDrop:
		return fmt.Sprintf("%s %-10s %s (%s)", head, r.Kind, r.Msg, DropReason(r.Sub))
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
	case TracePause:
		return fmt.Sprintf("%s %-10s for %v", head, r.Kind, time.Duration(r.X))
	case TraceResume:
		return fmt.Sprintf("%s %-10s after %v", head, r.Kind, time.Duration(r.X))
	case TraceWrite:
		return fmt.Sprintf("%s %-10s r%d %s token=%s lease from %.6fms", head, r.Kind, r.Res, runner.WriteOutcome(r.Sub), writeToken(r), float64(r.Y)/1e6)
	}
	return fmt.Sprintf("%s %s", head, r.Kind)
}

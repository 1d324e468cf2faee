package record

import (
	"leaselab/algorithms"
	"leaselab/runner"
)

// The protected store (Spec.Writes, Spec.Store) and what pauses do.
//
// A holder's client writes to a store outside the cluster (the workload
// driver's writer, or a node process's: "check the lease, work, write").
// Every write reaches the store at the instant its node makes it, with
// the fencing token of the lease it was checked under and that lease's
// start (the checker's interval of the node on the resource). The store
// keeps, per resource, the highest token and the latest lease start of
// the writes it accepted. "plain" accepts every write; "fenced" rejects a
// write whose token is below the highest accepted. An accepted write is
// stale when the writer's lease had ended in true time (the node holds no
// interval on the resource that began at that start) and the store had
// already accepted a write made under a later lease: it overwrites a
// later holder's work. A write whose lease ended but that no later lease
// had written before is late but harmless, and not counted. So with
// tokens that grow from one holder to the next, the fenced store turns
// every would-be stale write into a rejection; a stale write under it
// shows a token that did not grow.
//
// A write accepted from one node with the token that another node's
// write had set as the highest is a tie: two holders carry one token, so
// the store cannot order them, and a write of the earlier one that comes
// late would be accepted. (A node's own leases are ordered by the node:
// its writes leave in the order it makes them, a pause's included.)
// Ties are counted (Result.TokenTies) whatever the store checks.
//
// A paused node's process cannot read its clock, so it goes on believing
// what it believed when it stopped: the belief meter counts, per
// resource, the true time in which two or more nodes believed they held
// it, where a hold interval of the checker that ends while its node is
// paused lasts, as a belief, until the node resumes (or crashes).

type storeRes struct {
	top      algorithms.Token // highest token accepted
	latest   int64            // latest lease start among accepted writes
	accepted bool
	topNode  algorithms.NodeID // the node whose write set top
}

// Write records a write of node n to the protected store at t, made under
// the lease on res with token that began at start (true time; Since), and
// returns what the store did with it (runner.WriteAccepted,
// runner.WriteStale or runner.WriteRejected).
func (r *Recorder) Write(t int64, n algorithms.NodeID, res algorithms.ResourceID, token algorithms.Token, start int64) uint8 {
	r.chk.Advance(t)
	if r.store == nil {
		r.store = map[algorithms.ResourceID]*storeRes{}
	}
	st := r.store[res]
	if st == nil {
		st = &storeRes{}
		r.store[res] = st
	}
	var out uint8
	since, holds := r.chk.Since(res, n)
	live := holds && since == start
	switch {
	case r.spec.Store == "fenced" && st.accepted && token.Less(st.top):
		out = runner.WriteRejected
		if live {
			r.storeMeter.live++
		}
	default:
		out = runner.WriteAccepted
		if !live && st.accepted && st.latest > start {
			out = runner.WriteStale
		}
		if st.accepted && token == st.top && n != st.topNode {
			r.storeMeter.ties++
		}
		if !st.accepted || st.top.Less(token) {
			st.top, st.topNode = token, n
		}
		if !st.accepted || start > st.latest {
			st.latest = start
		}
		st.accepted = true
	}
	if r.tr != nil {
		r.tr.Add(&TraceRec{T: t, Local: r.localOf(n, t), Kind: TraceWrite, Sub: out, Node: n, Res: res, Owner: n,
			Ballot: algorithms.Ballot(token.Minor), X: int64(token.Major), Y: start})
	}
	for _, h := range r.onWrite {
		h.wrote(t, n, out)
	}
	return out
}

// StoreCounts are the protected store's writes, stale writes, fenced
// rejections and token ties so far.
func (r *Recorder) StoreCounts() (writes, stale, rejects, ties int64) {
	m := r.storeMeter
	return m.writes, m.stale, m.rejects, m.ties
}

// Since returns the start of node n's hold interval on res, if it holds
// res now (by the checker): the lease a write is made under.
func (r *Recorder) Since(t int64, n algorithms.NodeID, res algorithms.ResourceID) (int64, bool) {
	r.chk.Advance(t)
	return r.chk.Since(res, n)
}

// Pause records that node n's process paused at t: it believes what it
// believed until it resumes, but holds nothing the invariant counts
// (Checker.Pause) until then.
func (r *Recorder) Pause(t int64, n algorithms.NodeID) {
	r.chk.Advance(t)
	for _, h := range r.onPause {
		h.paused(t, n)
	}
	r.chk.Pause(t, n)
}

// Resume records that node n's process resumed at t.
func (r *Recorder) Resume(t int64, n algorithms.NodeID) {
	r.chk.Advance(t)
	for _, h := range r.onPause {
		h.resumed(t, n)
	}
	r.chk.Resume(t, n)
}

// storeMeter: writes, stale writes and fenced rejections (live: of a
// current lease), and ties.
type storeMeter struct{ writes, stale, rejects, live, ties int64 }

func (m *storeMeter) wrote(_ int64, _ algorithms.NodeID, out uint8) {
	m.writes++
	switch out {
	case runner.WriteStale:
		m.stale++
	case runner.WriteRejected:
		m.rejects++
	}
}

func (m *storeMeter) fill(res *runner.Result, _ int64) {
	res.Writes, res.StaleWrites, res.FencedRejects, res.LiveRejects, res.TokenTies = m.writes, m.stale, m.rejects, m.live, m.ties
}

// pauseMeter: process pauses.
type pauseMeter struct{ pauses int }

func (m *pauseMeter) paused(int64, algorithms.NodeID)  { m.pauses++ }
func (m *pauseMeter) resumed(int64, algorithms.NodeID) {}

func (m *pauseMeter) fill(res *runner.Result, _ int64) { res.Pauses = m.pauses }

// beliefMeter: the true time in which two or more nodes believed they held
// a resource (Result.DoubleBeliefMS). It keeps an entry only for a
// resource with two or more believers or a paused one, so a run without
// pauses or violations never touches its map.
type beliefMeter struct {
	stopped []bool // by node: its process is paused
	res     map[algorithms.ResourceID]*beliefRes
	ns      int64
}

type beliefRes struct {
	holders int32               // the checker's open intervals
	linger  []algorithms.NodeID // paused nodes whose interval ended while they were paused
	since   int64               // two or more believe since (-1: not now)
}

func (m *beliefMeter) isPaused(n algorithms.NodeID) bool {
	return int(n) < len(m.stopped) && m.stopped[n]
}

func (m *beliefMeter) holdChanged(t int64, res algorithms.ResourceID, owner algorithms.NodeID, started bool, holders int32) {
	b := m.res[res]
	lingers := !started && m.isPaused(owner)
	if b == nil {
		if holders < 2 && !lingers {
			return
		}
		if m.res == nil {
			m.res = map[algorithms.ResourceID]*beliefRes{}
		}
		b = &beliefRes{since: -1}
		m.res[res] = b
	}
	if lingers {
		b.linger = append(b.linger, owner)
	}
	b.holders = holders
	m.settle(res, b, t)
}

// settle brings b's double-belief stretch up to t.
func (m *beliefMeter) settle(res algorithms.ResourceID, b *beliefRes, t int64) {
	n := int(b.holders) + len(b.linger)
	switch {
	case n >= 2 && b.since < 0:
		b.since = t
	case n < 2 && b.since >= 0:
		m.ns += t - b.since
		b.since = -1
	}
	if n < 2 && len(b.linger) == 0 {
		delete(m.res, res)
	}
}

func (m *beliefMeter) paused(_ int64, n algorithms.NodeID) {
	if int(n) >= len(m.stopped) {
		m.stopped = append(m.stopped, make([]bool, int(n)+1-len(m.stopped))...)
	}
	m.stopped[n] = true
}

// resumed: n reads its clock again; what it believed past its intervals
// ends. The order in which resources are visited changes no sum.
func (m *beliefMeter) resumed(t int64, n algorithms.NodeID) {
	if !m.isPaused(n) {
		return
	}
	m.stopped[n] = false
	for res, b := range m.res {
		for i := 0; i < len(b.linger); i++ {
			if b.linger[i] == n {
				b.linger = append(b.linger[:i], b.linger[i+1:]...)
				i--
			}
		}
		m.settle(res, b, t)
	}
}

func (m *beliefMeter) crashed(t int64, n algorithms.NodeID) { m.resumed(t, n) }
func (m *beliefMeter) partitioned(int64)                    {}

func (m *beliefMeter) fill(res *runner.Result, end int64) {
	ns := m.ns
	for _, b := range m.res {
		if b.since >= 0 {
			ns += end - b.since
		}
	}
	res.DoubleBeliefMS = float64(ns) / 1e6
}

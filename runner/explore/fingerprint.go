package explore

import (
	"slices"

	"leaselab/algorithms"
)

// fingerprint hashes the canonical encoding of x.w: the clock assignment;
// true time when clocks drift (with exact or offset-only clocks every time
// is written relative to now, so states that differ only by a shift in
// time are one); per node up/down, restart counter, AppendState relative
// to its local now, durable and unsynced records; the timers in firing
// order with deadlines relative to now; the messages in flight as a sorted
// multiset (their pending numbers left out); the checker's holds with
// their ends relative to now; with Liveness, the clients' requests not
// yet answered; with Tokens, the highest token written per resource and
// whether a token failed; the budgets left; the paused nodes with what
// they believe and the events they kept.
//
// It is one function, over 80 lines, on purpose: it runs once per
// transition, and split into pieces (hashHosts, hashPaused: a call each
// per state, the hasher passed by value) it cost 2.3% more instructions
// on its own encoding and 1.0% on the whole fingerprint (cachegrind on
// BenchmarkFingerprint/own and /full), as no piece that writes more than
// one word is small enough to inline.
func (x *exec) fingerprint() fp {
	w := x.w
	h := newHasher()
	h.word(uint64(w.root))
	if x.cfg.absTime {
		h.word(uint64(w.now))
	}
	if x.cfg.Slews > 0 {
		for _, c := range w.clk {
			h.word(uint64(c.Offset))
			h.word(uint64(c.RatePPB))
		}
	}
	for n, ho := range w.hosts {
		id := algorithms.NodeID(n)
		local := x.clock(id).Local(w.now)
		if ho.Node == nil {
			h.word(0xd0 | uint64(ho.Restarts)<<8)
		} else {
			h.word(0x11 | uint64(ho.Restarts)<<8)
			nf := x.nodeHash(n, local)
			h.word(nf.a)
			h.word(nf.b)
		}
		if d := &ho.Disk; !d.Idle() || len(d.Durable()) > 0 {
			st := d.State()
			var busy uint64
			if st.Busy {
				busy = 1
			}
			h.word(busy | uint64(len(st.Durable))<<8 | uint64(len(st.Syncing))<<24 | uint64(len(st.Queued))<<40)
			for _, rs := range [][]algorithms.Record{st.Durable, st.Syncing, st.Queued} {
				for i := range rs {
					r := &rs[i]
					h.word(uint64(r.Resource))
					h.word(r.Instance)
					h.word(uint64(r.Promised))
					h.word(uint64(r.Accepted))
					h.word(uint64(r.Owner))
					h.word(uint64(r.Expiry - local))
				}
			}
			h.word(uint64(len(st.Held))<<32 | uint64(st.ForSync))
			for i := range st.Held {
				m := msgHash(&st.Held[i], w.now)
				h.word(m.a)
				h.word(m.b)
			}
		}
	}
	h.word(0x7e | uint64(len(w.timers))<<8)
	for i := range w.timers {
		t := &w.timers[i]
		var dk uint64
		if t.disk {
			dk = 1 << 32
		}
		if t.resume {
			dk |= 1 << 33
		}
		h.word(uint64(t.node) | uint64(t.key.Kind)<<16 | dk)
		h.word(uint64(t.key.Resource))
		if t.t == never {
			h.word(0x8000000000000000)
		} else {
			h.word(uint64(t.t - w.now))
		}
	}
	x.mh = x.mh[:0]
	for i := range w.pending {
		x.mh = append(x.mh, msgHash(&w.pending[i].msg, w.now))
	}
	slices.SortFunc(x.mh, func(a, b fp) int {
		switch {
		case a.a < b.a:
			return -1
		case a.a > b.a:
			return 1
		case a.b < b.b:
			return -1
		case a.b > b.b:
			return 1
		}
		return 0
	})
	h.word(0x3e | uint64(len(x.mh))<<8)
	for _, m := range x.mh {
		h.word(m.a)
		h.word(m.b)
	}
	h.word(0x40 | uint64(len(w.holds))<<8)
	for i := range w.holds {
		o := &w.holds[i]
		h.word(uint64(o.res))
		h.word(uint64(o.owner))
		h.word(uint64(o.end - w.now))
	}
	if x.cfg.Liveness {
		h.word(0x5a | uint64(len(w.asks))<<8)
		for _, a := range w.asks {
			h.word(uint64(a.node))
			h.word(uint64(a.res))
		}
	}
	if x.cfg.Tokens {
		// The history variable (tokens.go): absolute tokens, so a state
		// and the same one shifted in time differ where a token is read
		// off a clock.
		var fail uint64
		if w.tokFail {
			fail = 1 << 8
		}
		h.word(0x70 | fail | uint64(len(w.tops))<<16)
		for _, t := range w.tops {
			if !t.seen {
				h.word(0)
				continue
			}
			h.word(1 | uint64(t.node)<<8)
			h.word(t.tok.Major)
			h.word(t.tok.Minor)
		}
	}
	b := w.budget
	h.word(uint64(uint16(b.inputs)) | uint64(uint16(b.crashes))<<16 | uint64(uint16(b.drops))<<32 | uint64(uint16(b.dups))<<48)
	h.word(uint64(uint16(b.slews)) | uint64(uint16(b.pauses))<<16)
	if len(w.paused) > 0 {
		// Paused nodes (in the order they paused: the order of their
		// resumes is in the timers), what they believe and what they
		// kept, in order.
		h.word(0x9a | uint64(len(w.paused))<<8)
		for i := range w.paused {
			p := &w.paused[i]
			h.word(uint64(p.node) | uint64(p.held)<<16 | uint64(len(p.kept))<<32)
			for j := range p.kept {
				e := &p.kept[j]
				h.word(uint64(e.kind) | uint64(e.in)<<8 | uint64(e.key.Kind)<<16)
				h.word(uint64(e.res) | uint64(e.key.Resource)<<32)
				if e.kind == qDeliver {
					m := msgHash(&e.msg, w.now)
					h.word(m.a)
					h.word(m.b)
				}
			}
		}
	}
	return h.sum()
}

// msgHash hashes a message in flight; its absolute expiry (FaTLease) is
// written relative to now.
func msgHash(m *algorithms.Message, now int64) fp {
	h := newHasher()
	h.word(uint64(m.Kind) | uint64(m.Flags)<<8 | uint64(m.From)<<16 | uint64(m.To)<<32 | uint64(m.Owner)<<48)
	h.word(uint64(m.Resource))
	h.word(uint64(m.Ballot))
	h.word(uint64(m.Accepted))
	h.word(uint64(m.Promised))
	h.word(m.Instance)
	h.word(uint64(m.Span))
	if m.Expiry == 0 {
		h.word(0x8000000000000000)
	} else {
		h.word(uint64(int64(m.Expiry) - now))
	}
	return h.sum()
}

// nodeHash is the fingerprint of node n's AppendState at local time
// local: the parent's, when this transition did not touch the node and
// time did not move, else computed.
func (x *exec) nodeHash(n int, local algorithms.Local) fp {
	if x.cnhSet&(1<<n) != 0 {
		return x.cnh[n]
	}
	p := x.parent
	if p != nil && x.touched&(1<<n) == 0 && p.now == x.w.now && len(p.nh) > n && p.hosts[n] == x.w.hosts[n] && p.clk[n] == x.w.clk[n] {
		return p.nh[n]
	}
	x.enc = x.w.hosts[n].Node.(algorithms.Explorable).AppendState(x.enc[:0], local)
	return hashBytes(x.enc)
}

// fillNodeHashes stores every live node's fingerprint in x.w (for the
// worlds of the frontier, whose children reuse them).
func (x *exec) fillNodeHashes() {
	w := x.w
	if cap(w.nh) < len(w.hosts) {
		w.nh = make([]fp, len(w.hosts))
	}
	w.nh = w.nh[:len(w.hosts)]
	for n, ho := range w.hosts {
		if ho.Node != nil {
			w.nh[n] = x.nodeHash(n, x.clock(algorithms.NodeID(n)).Local(w.now))
		}
	}
}

// Package planted registers test-only algorithms with planted liveness
// bugs and planted fencing bugs, so that the tests of more than one
// package can show the settle stretch's judgement (runner.Spec.Settle),
// the explorer's liveness verdict (explore.Config.Liveness) and the
// campaigns' judgement of fencing tokens (campaign.TokensJudged)
// failing: a check that cannot fail proves nothing. Only tests import
// it.
package planted

import (
	"encoding/binary"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"leaselab/algorithms"
	_ "leaselab/algorithms/example" // central; registered before this package's init runs
	_ "leaselab/paxoslease"
)

// Forgetful is the name of PaxosLease with a planted liveness bug: after
// its third lease a node takes no notice of the next Acquire, so its
// client waits for an answer that never comes. It stays safe: it only
// does less.
const Forgetful = "test-forgetful"

type forgetful struct {
	algorithms.Explorable
	leases int
	forgot bool
}

// Clone and AppendState keep it explorable (the battery's searches run
// on every registered algorithm; they judge safety, which it keeps).
func (f *forgetful) Clone(r *rand.Rand) algorithms.Node {
	c := *f
	c.Explorable = f.Explorable.Clone(r).(algorithms.Explorable)
	return &c
}

func (f *forgetful) AppendState(b []byte, now algorithms.Local) []byte {
	b = append(b, byte(min(f.leases, 3)))
	if f.forgot {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return f.Explorable.AppendState(b, now)
}

func (f *forgetful) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	if in.Kind == algorithms.Acquire && f.leases >= 3 && !f.forgot {
		f.forgot = true
		return
	}
	f.Explorable.Step(now, in, out)
	for _, e := range out.Events {
		if e.Kind == algorithms.Acquired {
			f.leases++
		}
	}
}

// DeafHolder is the name of PaxosLease with the bug class of a holder
// asked again: a node that holds the lease takes no notice of an
// Acquire of it (the contract says it answers Acquired at once, with the
// lease it holds), so a client that asks while its node holds waits for
// ever. Safe, as Forgetful is.
const DeafHolder = "test-deaf-holder"

type deafHolder struct {
	algorithms.Explorable
	held map[algorithms.ResourceID]algorithms.Local // until, as the node's events said
}

func (d *deafHolder) Clone(r *rand.Rand) algorithms.Node {
	return &deafHolder{Explorable: d.Explorable.Clone(r).(algorithms.Explorable), held: maps.Clone(d.held)}
}

// AppendState adds nothing: what it keeps is what the node's own state
// says (its lease and its end).
func (d *deafHolder) AppendState(b []byte, now algorithms.Local) []byte {
	return d.Explorable.AppendState(b, now)
}

func (d *deafHolder) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	if in.Kind == algorithms.Acquire && now < d.held[in.Resource] {
		return
	}
	d.Explorable.Step(now, in, out)
	d.track(out)
}

// track keeps what the node's events say it holds.
func (d *deafHolder) track(out *algorithms.Output) {
	for _, e := range out.Events {
		switch e.Kind {
		case algorithms.Acquired:
			d.held[e.Resource] = e.Until
		case algorithms.Lost:
			delete(d.held, e.Resource)
		}
	}
}

// LateHolder is the name of PaxosLease with the bug class of a holder
// that answers late: a node that holds the lease takes an Acquire of it
// as an extension (naive and PaxosLease took it as the extension under
// way), so the client's answer comes when a round ends, not at once as
// the contract says. The request is answered, so neither a state at rest
// nor a probe sees it; only the explorer's late-answer judgement does.
// Safe, as the others are.
const LateHolder = "test-late-holder"

type lateHolder struct{ deafHolder }

func (l *lateHolder) Clone(r *rand.Rand) algorithms.Node {
	return &lateHolder{*l.deafHolder.Clone(r).(*deafHolder)}
}

func (l *lateHolder) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	if in.Kind == algorithms.Acquire && now < l.held[in.Resource] {
		in.Kind = algorithms.Extend
	}
	l.Explorable.Step(now, in, out)
	l.track(out)
}

// Restless is the name of PaxosLease with a planted liveness bug of the
// kind a bounded search cannot see at rest: after its first lease a node
// takes every Acquire up and works on it for ever (a timer it sets again
// and again, like rounds that never end) without answering. Its node is
// never at rest while it spins; only a continuation in time shows the
// request unanswered (the explorer's settle probe, the campaigns' settle
// stretch). Safe: it does less.
const Restless = "test-restless"

// spinKind is Restless's timer; PaxosLease's own kinds are small numbers.
const spinKind uint8 = 200

type restless struct {
	algorithms.Explorable
	leased bool
}

func (r *restless) Clone(rnd *rand.Rand) algorithms.Node {
	return &restless{Explorable: r.Explorable.Clone(rnd).(algorithms.Explorable), leased: r.leased}
}

func (r *restless) AppendState(b []byte, now algorithms.Local) []byte {
	if r.leased {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return r.Explorable.AppendState(b, now)
}

func (r *restless) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	spin := algorithms.TimerKey{Resource: in.Resource, Kind: spinKind}
	switch {
	case in.Kind == algorithms.Acquire && r.leased:
		out.SetTimer(spin, now.Add(100*time.Millisecond))
		return
	case in.Kind == algorithms.Fire && in.Timer.Kind == spinKind:
		out.SetTimer(in.Timer, now.Add(100*time.Millisecond))
		return
	}
	r.Explorable.Step(now, in, out)
	for _, e := range out.Events {
		if e.Kind == algorithms.Acquired {
			r.leased = true
		}
	}
}

// ReleaseDropsOther is the name of PaxosLease with the bug class a
// mutant of naive showed no search but one reaching: in a restarted life
// a node's Release of one resource also gives up its acquisition of
// another (naive's release during its restart silence, made to withdraw
// another resource's deferred acquisition), so that client's Acquire is
// never answered. Only a search with a crash and two resources, acquire
// and release reaches it (the battery's E28). Safe: it does less.
const ReleaseDropsOther = "test-release-drops-other"

type releaseDropsOther struct {
	algorithms.Explorable
	restarted bool
	pending   []algorithms.ResourceID // Acquires not yet answered, in order
}

func (d *releaseDropsOther) Clone(r *rand.Rand) algorithms.Node {
	return &releaseDropsOther{Explorable: d.Explorable.Clone(r).(algorithms.Explorable), restarted: d.restarted, pending: slices.Clone(d.pending)}
}

// AppendState adds the pending Acquires, which decide what a Release
// gives up.
func (d *releaseDropsOther) AppendState(b []byte, now algorithms.Local) []byte {
	b = append(b, byte(len(d.pending)))
	for _, r := range d.pending {
		b = append(b, byte(r))
	}
	return d.Explorable.AppendState(b, now)
}

func (d *releaseDropsOther) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Acquire:
		if !slices.Contains(d.pending, in.Resource) {
			d.pending = append(d.pending, in.Resource)
		}
	case algorithms.Relinquish:
		d.pending = slices.DeleteFunc(d.pending, func(r algorithms.ResourceID) bool { return r == in.Resource })
		if d.restarted {
			if i := slices.IndexFunc(d.pending, func(r algorithms.ResourceID) bool { return r != in.Resource }); i >= 0 {
				other := d.pending[i]
				d.pending = slices.Delete(d.pending, i, i+1)
				d.Explorable.Step(now, algorithms.Input{Kind: algorithms.Relinquish, Resource: other}, out)
			}
		}
	}
	d.Explorable.Step(now, in, out)
	for _, e := range out.Events {
		if e.Kind == algorithms.Acquired || e.Kind == algorithms.Failed {
			d.pending = slices.DeleteFunc(d.pending, func(r algorithms.ResourceID) bool { return r == e.Resource })
		}
	}
}

// StaleToken is the name of PaxosLease with a planted fencing bug: a
// node gives each lease the token of its previous lease of the resource
// (a token cached from the last Acquired), and its first lease its own.
// Holders stay apart, so the lease invariant holds and no search or
// campaign that judges only holders fails it; a fenced store does: a
// later holder's write carries a token below an earlier one's and is
// rejected while its lease is current (the battery's token campaign,
// campaign.TokensJudged).
const StaleToken = "test-stale-token"

type staleToken struct {
	algorithms.Explorable
	last map[algorithms.ResourceID]algorithms.Token // the token of the previous lease
}

func (s *staleToken) Clone(r *rand.Rand) algorithms.Node {
	return &staleToken{Explorable: s.Explorable.Clone(r).(algorithms.Explorable), last: maps.Clone(s.last)}
}

// AppendState adds the cached tokens in resource order: they decide the
// tokens of the node's next leases.
func (s *staleToken) AppendState(b []byte, now algorithms.Local) []byte {
	for _, k := range slices.Sorted(maps.Keys(s.last)) {
		t := s.last[k]
		b = binary.LittleEndian.AppendUint64(b, uint64(k))
		b = binary.LittleEndian.AppendUint64(b, t.Major)
		b = binary.LittleEndian.AppendUint64(b, t.Minor)
	}
	return s.Explorable.AppendState(b, now)
}

func (s *staleToken) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	from := len(out.Events)
	s.Explorable.Step(now, in, out)
	for i := from; i < len(out.Events); i++ {
		e := &out.Events[i]
		if e.Kind != algorithms.Acquired {
			continue
		}
		prev, ok := s.last[e.Resource]
		s.last[e.Resource] = e.Token
		if ok {
			e.Token = prev
		}
	}
}

// ClientToken is central (algorithms/example) with its fencing token read
// off the client's clock, as algorithms.TimeToken of the lease's end
// (from when the client sent its ask), instead of the server's grant
// end. Holders stay apart; tokens do not grow when a client on the
// server's host extends and releases while another client's ask, sent
// before the extension, is in flight: that ask is granted next, with the
// lower token. The battery's quick hand-off campaign finds it on the
// default network.
const ClientToken = "test-central-client-token"

type clientToken struct{ algorithms.Explorable }

func (c *clientToken) Clone(r *rand.Rand) algorithms.Node {
	return &clientToken{c.Explorable.Clone(r).(algorithms.Explorable)}
}

func (c *clientToken) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	from := len(out.Events)
	c.Explorable.Step(now, in, out)
	for i := from; i < len(out.Events); i++ {
		if e := &out.Events[i]; e.Kind == algorithms.Acquired {
			e.Token = algorithms.TimeToken(e.Until)
		}
	}
}

func init() {
	registerFrom("central", ClientToken, "test only: central whose holders' fencing tokens are their lease ends on their own clocks",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node { return &clientToken{n} })
	register(StaleToken, "test only: paxoslease whose nodes give each lease the fencing token of their previous lease of the resource",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node {
			return &staleToken{Explorable: n, last: map[algorithms.ResourceID]algorithms.Token{}}
		})
	register(Forgetful, "test only: paxoslease whose nodes ignore one Acquire after their third lease",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node { return &forgetful{Explorable: n} })
	register(DeafHolder, "test only: paxoslease whose holders ignore an Acquire of the lease they hold",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node {
			return &deafHolder{Explorable: n, held: map[algorithms.ResourceID]algorithms.Local{}}
		})
	register(LateHolder, "test only: paxoslease whose holders take an Acquire of the lease they hold as an extension, answered when it ends",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node {
			return &lateHolder{deafHolder{Explorable: n, held: map[algorithms.ResourceID]algorithms.Local{}}}
		})
	register(Restless, "test only: paxoslease whose nodes work for ever on every Acquire after their first lease, answering none",
		func(n algorithms.Explorable, _ algorithms.Config) algorithms.Node { return &restless{Explorable: n} })
	register(ReleaseDropsOther, "test only: paxoslease whose restarted nodes give up another resource's acquisition with a release",
		func(n algorithms.Explorable, cfg algorithms.Config) algorithms.Node {
			return &releaseDropsOther{Explorable: n, restarted: cfg.Restarts > 0}
		})
}

// register registers PaxosLease under name with its nodes wrapped. The
// wrapped algorithm has no ablations of its own: its rules are
// PaxosLease's, found in PaxosLease's battery.
func register(name, summary string, wrap func(algorithms.Explorable, algorithms.Config) algorithms.Node) {
	registerFrom("paxoslease", name, summary, wrap)
}

// registerFrom registers algorithm base under name with its nodes
// wrapped, without ablations.
func registerFrom(base, name, summary string, wrap func(algorithms.Explorable, algorithms.Config) algorithms.Node) {
	b, err := algorithms.Lookup(base)
	if err != nil {
		panic(err)
	}
	a := b
	a.Name, a.Summary = name, summary
	a.Ablations = nil
	a.Build = func(cfg algorithms.Config) (algorithms.Node, error) {
		n, err := b.Build(cfg)
		if err != nil {
			return nil, err
		}
		return wrap(n.(algorithms.Explorable), cfg), nil
	}
	algorithms.Register(a)
}

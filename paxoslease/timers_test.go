package paxoslease

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"leaselab/algorithms"
)

// timerModel is the runner's timer set as the contract describes it: one
// deadline per key, set replaces, cancel forgets.
type timerModel map[algorithms.TimerKey]algorithms.Local

func (m timerModel) apply(ts []algorithms.Timer) {
	for _, t := range ts {
		if t.Cancel {
			delete(m, t.Key)
		} else {
			m[t.Key] = t.At
		}
	}
}

// first returns the earliest timer, smallest key first among equal
// deadlines.
func (m timerModel) first() (algorithms.Local, algorithms.TimerKey, bool) {
	var at algorithms.Local
	var key algorithms.TimerKey
	ok := false
	for k, a := range m {
		if !ok || timerOrder(a, k, at, key) < 0 {
			at, key, ok = a, k, true
		}
	}
	return at, key, ok
}

func timerOrder(a algorithms.Local, k algorithms.TimerKey, b algorithms.Local, l algorithms.TimerKey) int {
	return cmp.Or(cmp.Compare(a, b), cmp.Compare(k.Resource, l.Resource), cmp.Compare(k.Kind, l.Kind))
}

// keptTimers lists the timers n keeps (the pending entries).
func keptTimers(n *Node) timerModel { return keptTimersOf(&n.res) }

func keptTimersOf(t *table) timerModel {
	m := timerModel{}
	for _, es := range [][]timerEntry{t.tm.run[t.tm.head:], t.tm.heap} {
		for i := range es {
			if t.pending(&es[i]) {
				m[algorithms.TimerKey{Resource: t.rec(es[i].rec).key, Kind: timerAccepted}] = es[i].at
			}
		}
	}
	return m
}

// lateTimers counts the pending kept timers whose slot no longer holds
// their deadline (cleared before they fired).
func lateTimers(t *table) int {
	n := 0
	for k, at := range keptTimersOf(t) {
		if t.get(k.Resource).accUntil != at {
			n++
		}
	}
	return n
}

// TestKeptTimers drives two copies of one node with the same random
// inputs (prepares, proposals and releases of three proposers on a few
// resources, client requests, answers to its own rounds, and time
// passing on a coarse grid, so that timers of both kinds fall due at the
// same instants): one puts every timer in Output.Timers, the other keeps
// its acceptor timers (KeepTimers). After every step the kept timers must
// be exactly the plain node's acceptor timers (same keys, same
// deadlines), the other timers and all messages and events the same, and
// due timers must fire in the same order.
func TestKeptTimers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ablate []string
	}{
		{"strict", nil},
		{"no release-promise", []string{AblateReleasePromise}},
		{"abandon-release", []string{AblateAbandonRelease}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				testKeptTimers(t, seed, tc.ablate)
			}
		})
	}
}

func testKeptTimers(t *testing.T, seed uint64, ablate []string) {
	p := testParams()
	p.Backoff = 20 * time.Millisecond
	cfg := func() algorithms.Config {
		return algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(3, 3), Params: p, Ablations: ablate, Rand: rand.New(rand.NewPCG(seed, 7))}
	}
	plain, kept := New(cfg()), New(cfg())
	kept.KeepTimers()
	pt, kt := timerModel{}, timerModel{} // Output.Timers of each
	r := rand.New(rand.NewPCG(seed, 9))
	const ms = algorithms.Local(time.Millisecond)
	now := algorithms.Local(0)
	var inbox []algorithms.Message // node 0's messages to itself and answers to it
	var po, ko algorithms.Output
	fired, firedAcc, lates := 0, 0, 0

	step := func(in algorithms.Input) {
		t.Helper()
		po.Reset()
		ko.Reset()
		plain.Step(now, in, &po)
		kept.Step(now, in, &ko)
		var acc []algorithms.Timer
		for _, tm := range po.Timers {
			if tm.Key.Kind == timerAccepted {
				acc = append(acc, tm)
			}
		}
		pt.apply(po.Timers)
		kt.apply(ko.Timers)
		for _, tm := range ko.Timers {
			if tm.Key.Kind == timerAccepted {
				t.Fatalf("seed %d: a kept timer in Output.Timers: %+v", seed, tm)
			}
		}
		if !reflect.DeepEqual(po.Msgs, ko.Msgs) || !reflect.DeepEqual(po.Events, ko.Events) {
			t.Fatalf("seed %d at %d, %+v: outputs differ:\n%+v\n%+v", seed, now, in, po, ko)
		}
		if len(po.Timers)-len(acc) != len(ko.Timers) {
			t.Fatalf("seed %d: other timers differ: %+v vs %+v", seed, po.Timers, ko.Timers)
		}
		// Every acceptor timer of the plain node, and only those, is kept.
		want := timerModel{}
		for k, at := range pt {
			if k.Kind == timerAccepted {
				want[k] = at
			}
		}
		lates += lateTimers(&kept.res)
		if got := keptTimers(kept); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d at %d, %+v: kept timers %v, want %v", seed, now, in, got, want)
		}
		for _, m := range po.Msgs {
			switch {
			case m.To == 0:
				inbox = append(inbox, m)
			case m.Kind == algorithms.Prepare && r.IntN(3) > 0:
				inbox = append(inbox, algorithms.Message{Kind: algorithms.Promise, From: m.To, To: 0, Resource: m.Resource, Ballot: m.Ballot, Owner: algorithms.NoNode})
			case m.Kind == algorithms.Propose && r.IntN(3) > 0:
				inbox = append(inbox, algorithms.Message{Kind: algorithms.Accepted, From: m.To, To: 0, Resource: m.Resource, Ballot: m.Ballot, Owner: 0})
			}
		}
	}
	// fire steps every due timer, checking that both agree on which.
	fire := func() {
		for {
			pat, pk, pok := pt.first()
			if !pok || pat > now {
				pok = false
			}
			kat, kk, kok := kt.first()
			if at, k, ok := kept.NextTimer(); ok && (!kok || timerOrder(at, k, kat, kk) < 0) {
				kat, kk, kok = at, k, true
			}
			if kok && kat > now {
				kok = false
			}
			if pok != kok || pok && (pat != kat || pk != kk) {
				t.Fatalf("seed %d at %d: plain fires %v %d %v, kept %v %d %v", seed, now, pk, pat, pok, kk, kat, kok)
			}
			if !pok {
				return
			}
			delete(pt, pk)
			if _, ok := kt[kk]; ok && kk.Kind != timerAccepted {
				delete(kt, kk)
			} else {
				kept.PopTimer()
			}
			fired++
			if pk.Kind == timerAccepted {
				firedAcc++
			}
			step(algorithms.Input{Kind: algorithms.Fire, Timer: pk})
		}
	}

	ballots := []algorithms.Ballot{}
	step(algorithms.Input{Kind: algorithms.Start})
	for i := 0; i < 3000; i++ {
		res := algorithms.ResourceID(r.IntN(4))
		from := algorithms.NodeID(1 + r.IntN(2))
		// Ballots mostly rise, some arrive late.
		round := uint32(i/8 + r.IntN(6) + 1)
		switch op := r.IntN(17); {
		case op < 3:
			b := algorithms.MakeBallot(round, 0, from)
			ballots = append(ballots, b)
			step(algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Prepare, From: from, To: 0, Resource: res, Ballot: b, Owner: algorithms.NoNode}})
		case op < 6:
			b := algorithms.MakeBallot(round, 0, from)
			ballots = append(ballots, b)
			span := algorithms.Local(r.IntN(40)+1) * ms * 50
			step(algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Propose, From: from, To: 0, Resource: res, Ballot: b, Owner: from, Span: int64(span)}})
		case op < 8 && len(ballots) > 0:
			b := ballots[r.IntN(len(ballots))]
			step(algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: algorithms.Release, From: b.Node(), To: 0, Resource: res, Ballot: b, Owner: b.Node()}})
		case op < 9:
			step(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
		case op < 10:
			step(algorithms.Input{Kind: algorithms.Relinquish, Resource: res})
		case op < 13 && len(inbox) > 0:
			j := r.IntN(len(inbox))
			m := inbox[j]
			inbox = slices.Delete(inbox, j, j+1)
			step(algorithms.Input{Kind: algorithms.Recv, Msg: m})
		case op < 15:
			// Time passes by whole 50 ms steps, so that timers of
			// different kinds share deadlines; messages may come before
			// the due timers fire (clearing slots whose timers are pending).
			now += algorithms.Local(r.IntN(3)) * 50 * ms
		default:
			fire()
		}
	}
	for k := 0; k < 100 && len(pt) > 0; k++ {
		now += 1 << 40 // every round gives up or ends after MaxRounds
		fire()
	}
	if fired == 0 || len(pt) != 0 || len(kt) != 0 || kept.res.timers() != 0 {
		t.Fatalf("seed %d: %d fired; left %d, %d, %d", seed, fired, len(pt), len(kt), kept.res.timers())
	}
	t.Logf("seed %d: %d fired, %d acceptor timers; a timer outliving its slot's deadline seen %d times", seed, fired, firedAcc, lates)
}

// TestTableTimers checks the table's kept timers against a map over
// random sets, replacements, cancellations, clears (a cleared slot's
// pending timer keeps its deadline) and pops, on thousands of resources
// inserted while timers are pending, so that the index grows under them:
// timers must come out in (deadline, resource) order. Deadlines mostly
// rise (the sorted run) with some earlier ones (the heap); with a small
// maxSeq the arming numbers wrap around many times.
func TestTableTimers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxSeq uint32
	}{{"wide numbers", math.MaxUint32}, {"numbers wrap", 3000}} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(m uint32) { maxSeq = m }(maxSeq)
			maxSeq = tc.maxSeq
			testTableTimers(t)
		})
	}
}

func testTableTimers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	clock := algorithms.Local(0)
	var tb table
	ref := timerModel{}
	key := func(k algorithms.ResourceID) algorithms.TimerKey {
		return algorithms.TimerKey{Resource: k, Kind: timerAccepted}
	}
	for i := 0; i < 200000; i++ {
		k := algorithms.ResourceID(r.IntN(5000)) * 977
		switch op := r.IntN(10); {
		case op < 4:
			s := tb.put(k)
			clock++
			s.accUntil = clock / 50 // many ties
			if r.IntN(4) == 0 {
				s.accUntil -= algorithms.Local(r.IntN(100))
			}
			tb.setTimer(k, s)
			ref[key(k)] = s.accUntil
		case op < 5:
			if s := tb.get(k); s != nil {
				tb.cancelTimer(s)
				delete(ref, key(k))
			}
		case op < 6:
			if s := tb.get(k); s != nil {
				s.accUntil = -1 // a cleared slot: its pending timer keeps its deadline
			}
		default:
			at, rk, ok := tb.nextTimer()
			wat, wk, wok := ref.first()
			if ok != wok || ok && (at != wat || key(rk) != wk) {
				t.Fatalf("op %d: next timer %d %d %v, want %d %v %v", i, at, rk, ok, wat, wk, wok)
			}
			if ok {
				tb.popTimer()
				delete(ref, wk)
			}
		}
		if tb.timers() != len(ref) {
			t.Fatalf("op %d: %d timers, want %d", i, tb.timers(), len(ref))
		}
	}
	for k, at := range keptTimersOf(&tb) {
		if ref[k] != at {
			t.Fatalf("timer %v at %d, want %d", k, at, ref[k])
		}
	}
}

// TestTableTimersCompact: a compaction that drops the heap's root (a
// cancelled timer) leaves a heap whose new root is not its earliest
// entry; compact must restore the heap order from the root down, or the
// next timer fired is a later one. The heap is [10, 90, 20] when the
// root is cancelled; one key set again and again past compactMin makes
// the stale entries many enough to compact.
func TestTableTimersCompact(t *testing.T) {
	var tb table
	ref := timerModel{}
	set := func(k algorithms.ResourceID, at algorithms.Local) {
		s := tb.put(k)
		s.accUntil = at
		tb.setTimer(k, s)
		ref[algorithms.TimerKey{Resource: k, Kind: timerAccepted}] = at
	}
	set(1, 100) // run
	set(2, 90)  // heap [90]
	set(3, 20)  // heap [20, 90]
	set(4, 10)  // heap [10, 90, 20]
	if len(tb.tm.heap) != 3 || tb.tm.heap[0].at != 10 {
		t.Fatalf("heap %+v, want three entries, 10 first", tb.tm.heap)
	}
	tb.cancelTimer(tb.get(4))
	delete(ref, algorithms.TimerKey{Resource: 4, Kind: timerAccepted})
	for i := range compactMin + 100 {
		set(5, algorithms.Local(200+i))
	}
	if len(tb.tm.heap) != 2 {
		t.Fatalf("heap %+v: the stale root was not compacted away", tb.tm.heap)
	}
	for len(ref) > 0 {
		at, k, ok := tb.nextTimer()
		wat, wk, _ := ref.first()
		if !ok || at != wat || k != wk.Resource {
			t.Fatalf("next timer %d at %d (%v), want %d at %d", k, at, ok, wk.Resource, wat)
		}
		tb.popTimer()
		delete(ref, wk)
	}
}

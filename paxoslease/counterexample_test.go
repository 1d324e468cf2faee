package paxoslease

import (
	"testing"
	"time"

	"leaselab/algorithms"
)

// The two-owner interleavings of the 2026 TLA+ audit of PaxosLease
// (mtrencseni/paxoslease-revisited-2026, tla/counterexamples), replayed at
// state-machine level, plus the restart and drift rules. Each scenario runs
// twice: with its rule switched off it must end with two owners at once; with
// every rule on, at most one. Acceptors are n0..n2, the proposers p = n3 and
// q = n4 (fiveNodes). Ballots of the same run counter order by node id, so
// q's first ballot is above p's.

const (
	pp algorithms.NodeID = 3
	qq algorithms.NodeID = 4
)

// deliverIf delivers a matching message if one is in flight: a scenario
// runs unchanged with and without the rule, and with the rule on some
// messages are never sent.
func (nt *tnet) deliverIf(k algorithms.Kind, from, to algorithms.NodeID) bool {
	nt.t.Helper()
	if !nt.has(k, from, to) {
		return false
	}
	nt.deliver(k, from, to)
	return true
}

func (nt *tnet) dupIf(k algorithms.Kind, from, to algorithms.NodeID) {
	nt.t.Helper()
	if nt.has(k, from, to) {
		nt.dup(k, from, to)
	}
}

type scenario struct {
	name     string
	ablation string
	// also: rules ablated in both runs. With keep-others in force (see
	// abandon-release) a stale proposal never overwrites a live lease,
	// which alone stops some of these interleavings; ablating it too shows
	// what the scenario's own rule protects.
	also   []string
	params func() algorithms.Params
	run    func(nt *tnet)
}

var scenarios = []scenario{
	{
		// ScalarQuorumCounting: one acceptor's doubled answers are a
		// "majority" of three.
		name: "count-by-message", ablation: AblateCountByMessage, params: testParams,
		run: func(nt *tnet) {
			nt.acquire(pp, res)
			nt.deliver(algorithms.Prepare, pp, 0)
			nt.dup(algorithms.Promise, 0, pp)
			nt.deliverIf(algorithms.Propose, pp, 0)
			nt.dupIf(algorithms.Accepted, 0, pp)
			// q, through the two acceptors p never reached.
			nt.acquire(qq, res)
			for _, a := range []algorithms.NodeID{1, 2} {
				nt.deliver(algorithms.Prepare, qq, a)
				nt.deliver(algorithms.Promise, a, qq)
			}
			for _, a := range []algorithms.NodeID{1, 2} {
				nt.deliver(algorithms.Propose, qq, a)
				nt.deliver(algorithms.Accepted, a, qq)
			}
		},
	},
	{
		// OwnerOnlyRelease: a release delayed past the owner's next
		// acquisition erases the newer lease.
		name: "owner-only-release", ablation: AblateOwnerOnlyRelease, params: testParams,
		run: func(nt *tnet) {
			nt.acquire(pp, res)
			nt.deliverAll(100)
			nt.relinquish(pp, res)
			var late []algorithms.Message // the releases, held up in the network
			for a := algorithms.NodeID(0); a < 3; a++ {
				late = append(late, nt.take(algorithms.Release, pp, a))
			}
			nt.advance(nt.params.LeaseSpan + time.Millisecond) // acceptors' timers run out
			nt.acquire(pp, res)
			nt.deliverAll(100)
			nt.put(late[0])
			nt.put(late[1])
			nt.acquire(qq, res)
			settle(nt, 300*time.Millisecond)
		},
	},
	{
		// StaleOwnerOpen: q abandons a round with its Propose in flight;
		// the acceptors restart; p acquires; q's old Propose overwrites p's
		// lease at two acceptors; q's retry reads it back as its own.
		name: "stale-owner-open", ablation: AblateStaleOwnerOpen, also: []string{AblateAbandonRelease}, params: testParams,
		run: func(nt *tnet) {
			nt.acquire(qq, res)
			for a := algorithms.NodeID(0); a < 3; a++ {
				nt.deliver(algorithms.Prepare, qq, a)
			}
			nt.deliver(algorithms.Promise, 0, qq)
			nt.deliver(algorithms.Promise, 1, qq) // q proposes; the Proposes stay in flight
			nt.relinquish(qq, res)                // q abandons the attempt
			nt.drop(algorithms.Release, qq, anyNode)
			nt.drop(algorithms.Promise, anyNode, anyNode)
			for a := algorithms.NodeID(0); a < 3; a++ {
				nt.crash(a)
				nt.restart(a)
			}
			nt.advance(Quarantine(nt.params) + time.Millisecond)
			nt.acquire(pp, res)
			for a := algorithms.NodeID(0); a < 3; a++ {
				nt.deliver(algorithms.Prepare, pp, a)
				nt.deliver(algorithms.Promise, a, pp)
			}
			for a := algorithms.NodeID(0); a < 3; a++ {
				nt.deliver(algorithms.Propose, pp, a)
				nt.deliver(algorithms.Accepted, a, pp)
			}
			// q's stale Proposes arrive now: a higher ballot, accepted.
			nt.deliver(algorithms.Propose, qq, 0)
			nt.deliver(algorithms.Propose, qq, 1)
			nt.drop(algorithms.Accepted, anyNode, qq)
			nt.acquire(qq, res)
			settle(nt, 300*time.Millisecond)
		},
	},
	{
		// LateTimer (three acceptors, one restart): p and q hold prepare
		// quorums that include a promise a0 forgot in its restart; both use
		// them after a0's quarantine. Counting from Prepare, both deadlines
		// have passed by then. The phase timer would bound a quorum's age,
		// so the scenario lets a phase outlast the quarantine.
		name: "late-timer", ablation: AblateLateTimer, also: []string{AblateAbandonRelease},
		params: func() algorithms.Params {
			p := testParams()
			p.ResponseTimeout = 10 * time.Second
			return p
		},
		run: func(nt *tnet) {
			nt.acquire(pp, res)
			nt.acquire(qq, res)
			nt.deliver(algorithms.Prepare, pp, 0)
			nt.deliver(algorithms.Prepare, pp, 1)
			nt.deliver(algorithms.Prepare, qq, 0)
			nt.deliver(algorithms.Prepare, qq, 1)
			nt.deliver(algorithms.Promise, 0, pp)
			nt.deliver(algorithms.Promise, 0, qq)
			late := []algorithms.Message{nt.take(algorithms.Promise, 1, pp), nt.take(algorithms.Promise, 1, qq)}
			nt.drop(algorithms.Prepare, anyNode, anyNode)
			nt.crash(0)
			nt.restart(0)
			nt.advance(Quarantine(nt.params) + time.Millisecond)
			nt.drop(algorithms.Prepare, anyNode, anyNode) // strict retries: not needed
			nt.put(late[0])                               // p's quorum completes
			nt.deliverIf(algorithms.Propose, pp, 0)
			nt.deliverIf(algorithms.Propose, pp, 2)
			nt.deliverIf(algorithms.Accepted, 0, pp)
			nt.deliverIf(algorithms.Accepted, 2, pp)
			nt.put(late[1]) // q's quorum completes
			nt.deliverIf(algorithms.Propose, qq, 0)
			nt.deliverIf(algorithms.Propose, qq, 1)
			nt.deliverIf(algorithms.Accepted, 0, qq)
			nt.deliverIf(algorithms.Accepted, 1, qq)
			// With the rule on, the stale quorums were worthless: both
			// time out; their later rounds go through one at a time.
			settle(nt, 6*time.Second)
		},
	},
	{
		// An acceptor that rejoins at once forgot p's lease.
		name: "restart-wait", ablation: AblateRestartWait, params: testParams,
		run: func(nt *tnet) {
			nt.acquire(pp, res)
			for _, a := range []algorithms.NodeID{0, 1} {
				nt.deliver(algorithms.Prepare, pp, a)
				nt.deliver(algorithms.Promise, a, pp)
			}
			for _, a := range []algorithms.NodeID{0, 1} {
				nt.deliver(algorithms.Propose, pp, a)
				nt.deliver(algorithms.Accepted, a, pp)
			}
			nt.drop(algorithms.Prepare, pp, 2)
			nt.drop(algorithms.Propose, pp, 2)
			nt.crash(0)
			nt.restart(0)
			nt.acquire(qq, res)
			settle(nt, 10*time.Second) // past p's lease and a0's quarantine
		},
	},
	{
		// The holder's clock runs slow, the acceptors' fast, both within
		// Params.Drift; q tries right after the acceptors' timers fire.
		name: "drift-margin", ablation: AblateDriftMargin, params: testParams,
		run: func(nt *tnet) {
			rho := nt.params.Drift
			for a := algorithms.NodeID(0); a < 3; a++ {
				nt.setClock(a, 0, rho)
			}
			nt.setClock(pp, 0, -rho)
			nt.acquire(pp, res)
			nt.deliverAll(100)
			nt.advance(nt.params.LeaseSpan) // acceptor timers fire at T/(1+ρ)
			nt.acquire(qq, res)
			nt.deliverAll(100)
		},
	},
}

func TestCounterexamples(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for _, ablate := range []bool{false, true} {
				abl := append([]string(nil), sc.also...)
				if ablate {
					abl = append(abl, sc.ablation)
				}
				nt := newNet(t, fiveNodes, sc.params(), abl...)
				sc.run(nt)
				p, _ := nt.last(pp, algorithms.Acquired)
				q, _ := nt.last(qq, algorithms.Acquired)
				switch {
				case ablate && len(nt.violations) == 0:
					t.Errorf("ablate %s: no two owners\n%s", sc.ablation, nt.dump())
				case !ablate && len(nt.violations) != 0:
					t.Errorf("all rules on: two owners %+v\n%s", nt.violations, nt.dump())
				case !ablate && nt.count(pp, algorithms.Acquired)+nt.count(qq, algorithms.Acquired) == 0:
					t.Errorf("all rules on: nobody acquired, the scenario proves nothing\n%s", nt.dump())
				case !ablate:
					t.Logf("all rules on: p acquired %d, q acquired %d times, one owner at a time",
						nt.count(pp, algorithms.Acquired), nt.count(qq, algorithms.Acquired))
				case ablate:
					v := nt.violations[0]
					t.Logf("ablate %s: n%d and n%d both hold r%d for %v (p ballot %v, q ballot %v)",
						sc.ablation, v.a, v.b, v.r, time.Duration(v.overlapT), p.ev.Ballot, q.ev.Ballot)
				}
			}
		})
	}
}

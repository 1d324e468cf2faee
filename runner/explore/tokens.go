package explore

import (
	"fmt"
	"strings"

	"leaselab/algorithms"
	"leaselab/runner/faults"
)

// Fencing tokens in a search (Config.Tokens).
//
// A lease's fencing token protects the resource from a holder that lost
// its lease without knowing: the store rejects a write whose token is
// below the highest it accepted (runner/record's fenced store). The
// judgement here is the store's, with a writer that writes at every
// chance: at the end of every transition, each hold whose token is new
// (a lease that began, or an Acquired event that changed its token)
// writes once, and that token must not be below the highest token
// written to the resource before, nor equal to it when another node
// wrote it. Below it, the store rejects the write of a current lease (the
// campaigns' live rejection); equal to another node's, two holders carry
// one token, and a write of the earlier one made before a pause and
// delivered after the later one's would be accepted (a tie, the store's
// Result.TokenTies). Either is a token failure. A node's own two leases
// may share a token: its writes leave in the order it makes them.
//
// The highest token written per resource is a history variable: part of
// the state (and of its fingerprint), as an absolute value, so the same
// configuration has more states with Tokens than without. A path with a
// token failure is marked (world.tokFail), and the search treats it as it
// treats a violation: breadth first finishes the level and stops, and the
// first one found is rebuilt as a scenario with a fenced store and the
// writes, which replay fails on.
//
// A hold that begins and ends within one transition writes nothing (the
// writer never saw it): the simulator's writer, which writes every few
// milliseconds of a hold, cannot see a hold that lasts no time either.
// A paused node acquires nothing (its events wait for its resume), so
// every token written is a running holder's.

// tokTop is a resource's highest token written so far and the node that
// wrote it.
type tokTop struct {
	tok  algorithms.Token
	node algorithms.NodeID
	seen bool
}

// tokenFail describes the first token failure of a transition.
type tokenFail struct {
	res   algorithms.ResourceID
	owner algorithms.NodeID
	tok   algorithms.Token
	top   algorithms.Token
}

// writeTokens writes every hold's new token (Config.Tokens): a token
// below its resource's highest so far, or equal to another node's, marks
// the world failed.
func (x *exec) writeTokens() {
	w := x.w
	for i := range w.holds {
		h := &w.holds[i]
		if h.written {
			continue
		}
		h.written = true
		if x.keepWrites {
			x.wrote = append(x.wrote, *h)
		}
		t := &w.tops[h.res]
		if t.seen && (h.token.Less(t.tok) || h.token == t.tok && h.owner != t.node) {
			if !w.tokFail {
				x.tokFailed = &tokenFail{res: h.res, owner: h.owner, tok: h.token, top: t.tok}
			}
			w.tokFail = true
		}
		if !t.seen || t.tok.Less(h.token) {
			t.tok, t.node, t.seen = h.token, h.owner, true
		}
	}
}

// TokenFailure is the first token failure a search found: a hold of
// Owner on Resource whose token was not above the highest written to
// it before.
type TokenFailure struct {
	Resource algorithms.ResourceID `json:"resource"`
	Owner    algorithms.NodeID     `json:"owner"`
	Token    string                `json:"token"`
	Highest  string                `json:"highest_before"`
	AtNS     int64                 `json:"at_ns"`
}

// TokenCauses is the set of an algorithm's token conditions
// (algorithms.TokenBreaks) that a search with c's budgets and clocks can
// bring about; a search judges tokens (Tokens) only where the algorithm
// names none of them. A search can hold a message in flight for as
// long as it likes and deliver it after any delay, a release included,
// and a client may leave a lease to lapse: so late messages, delays and
// lapses are among them, unless Sync stops time while a message is in
// flight or a hold would end; then a lost message, a pause or a crash
// still lapses a holder. Delays always: within one instant a release and
// the next ask are no time apart, and an ask made earlier may arrive
// after one made later. Crashes restart acceptors; clocks other than
// exact, or slews, make them disagree.
func (c Config) TokenCauses() algorithms.TokenBreaks {
	b := algorithms.BreaksOnDelay
	if !c.Sync || c.Drops > 0 || c.Pauses > 0 || c.Crashes > 0 {
		b |= algorithms.BreaksOnLapse
	}
	if !c.Sync {
		b |= algorithms.BreaksOnLate
	}
	if c.Crashes > 0 {
		b |= algorithms.BreaksOnRestart
	}
	if (c.Clocks != "" && c.Clocks != "exact") || c.Slews > 0 {
		b |= algorithms.BreaksOnClocks
	}
	return b
}

// checkTokens refuses Tokens where the search can bring about a
// condition under which the algorithm does not claim its tokens grow: a
// failure there would be the algorithm's stated limit, not a bug.
func (c *config) checkTokens() error {
	if !c.Tokens {
		return nil
	}
	causes := c.TokenCauses()
	if p := c.from; p != nil {
		// The prefix's own faults count too.
		for _, k := range p.clocks {
			if k != (faults.Clock{}) {
				causes |= algorithms.BreaksOnClocks
			}
		}
		for _, cmd := range p.cmds {
			switch {
			case cmd.verb == "crash":
				causes |= algorithms.BreaksOnRestart
			case cmd.verb == "clock":
				causes |= algorithms.BreaksOnClocks
			}
		}
	}
	if both := causes & c.algo.TokenBreaks; both != 0 {
		return badf("tokens: %s does not claim its fencing tokens grow under %s (algos' token_breaks), which this search brings about (delays always; late messages and lapses unless --sync, lapses with --sync too under drops, pauses or crashes; restarts with crashes; clocks that disagree with clocks other than exact or slews): its tokens cannot be judged here", c.Algo, both)
	}
	return nil
}

// writeLines writes a scenario's "write" line for each hold in ws.
func writeLines(b *strings.Builder, ws []hold) {
	for _, h := range ws {
		fmt.Fprintf(b, "%-24s # token %s\n", fmt.Sprintf("write n%d r%d", h.owner, h.res), h.token)
	}
}

// tokenWitness writes the end of a token failure's counterexample: the
// rebuilt path's writes are in b already (rebuildOn with Tokens), and the
// last one either was rejected (a token below the highest) or carried the
// highest token another node had written (a tie: a late write of that
// node's lease would be accepted).
func tokenWitness(b *strings.Builder, f *tokenFail) {
	if f.tok.Less(f.top) {
		fmt.Fprintf(b, "# n%d's write under its lease on r%d (token %s) is rejected: the store had accepted %s\n", f.owner, f.res, f.tok, f.top)
		b.WriteString("expect fenced-rejects 0   # replay exits 1: a current lease's write was rejected\n")
		return
	}
	fmt.Fprintf(b, "# n%d's lease on r%d carries token %s, which another node's write already carried: the store cannot tell the two apart\n", f.owner, f.res, f.tok)
	b.WriteString("expect token-ties 0       # replay exits 1: a later holder's token is not above an earlier one's\n")
}

// countFirst counts the one counterexample a depth-first search or a
// random walk stops at, by its kind.
func (r *Result) countFirst() {
	if r.FirstToken != nil {
		r.TokenFailures, r.Stopped = 1, StopTokens
		return
	}
	r.Violations = 1
}

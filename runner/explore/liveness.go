package explore

import (
	"fmt"
	"strings"

	"leaselab/algorithms"
)

// With Config.Liveness the search also judges the contract's liveness
// promise (algorithms.Failed: every Acquire is answered, Acquired or
// Failed, once the network delivers and the node runs) where a finite
// search can: at the states where nothing is left to happen on its own.
//
// A state is at rest when every node is up and running (none down, none
// paused), no message is in flight, and no timer or fsync is pending. From
// such a state nothing happens without a new client input or fault: no
// delivery, no deadline, no restart. A client request still unanswered
// there is never answered, however long the faults stay away; that state
// is a liveness failure (Result.Unanswered), and the first one found is
// rebuilt as a scenario that replays to "expect unanswered 0" failing.
//
// What it finds: a node that takes no notice of an Acquire (the holder
// asked again, the forgetful node of runner/internal/planted), a round
// that ends without an answer and without a retry. What it cannot find:
// rounds without end (a proposer that retries for ever never comes to
// rest), nor an answer that comes only late. The campaigns' settle
// stretch (runner.Spec.Settle) judges those over time, not by states.
//
// Three changes to the search make the verdict sound (doc.go, "Liveness"):
// the requests are part of the state (two states that differ only in a
// pending request are two states: one may be stuck where the other is
// not), an Acquire the node ignores is a transition of its own when it
// leaves a request pending, and the reductions that keep a message in
// flight for ever instead of delivering it to a node that ignores it or
// is down (ignored-delivery, no-delivery-to-down-node) are off: a state
// at rest has no message in flight, and those reductions would replace
// it by its parent, which holds one.

// ask records a client's Acquire at node n on res (a request already
// pending there is the same request).
func (x *exec) ask(n algorithms.NodeID, res algorithms.ResourceID) {
	w := x.w
	i := 0
	for i < len(w.asks) && (w.asks[i].node < n || w.asks[i].node == n && w.asks[i].res < res) {
		i++
	}
	if i < len(w.asks) && w.asks[i] == (ask{n, res}) {
		return
	}
	w.asks = append(w.asks, ask{})
	copy(w.asks[i+1:], w.asks[i:])
	w.asks[i] = ask{n, res}
	x.asksChanged = true
}

// answer ends node n's request on res, if one is pending: the node
// answered it (Acquired, Failed), or the client gave it up (Relinquish:
// the contract's "any acquisition in progress").
func (x *exec) answer(n algorithms.NodeID, res algorithms.ResourceID) {
	w := x.w
	for i := range w.asks {
		if w.asks[i] == (ask{n, res}) {
			w.asks = append(w.asks[:i], w.asks[i+1:]...)
			x.asksChanged = true
			return
		}
	}
}

// input registers what a client input does to the requests (Liveness).
func (x *exec) input(n algorithms.NodeID, in algorithms.InputKind, res algorithms.ResourceID) {
	if !x.cfg.Liveness {
		return
	}
	switch in {
	case algorithms.Acquire:
		x.ask(n, res)
	case algorithms.Relinquish:
		x.answer(n, res)
	}
}

// dropAsks forgets node n's requests: its process crashed, and its
// clients' requests with it (the recorder counts them failed).
func (w *world) dropAsks(n algorithms.NodeID) {
	k := 0
	for _, a := range w.asks {
		if a.node != n {
			w.asks[k] = a
			k++
		}
	}
	w.asks = w.asks[:k]
}

// atRest reports whether nothing is left to happen in w on its own: every
// node up and running, no message in flight, no timer, fsync or resume
// pending.
func (w *world) atRest() bool {
	if len(w.pending) > 0 || len(w.timers) > 0 || len(w.paused) > 0 {
		return false
	}
	for _, h := range w.hosts {
		if h.Node == nil {
			return false
		}
	}
	return true
}

// verdict judges w's liveness: whether it is at rest, and stuck there (a
// request pending: a liveness failure). Both false without Liveness.
func (c *config) verdict(w *world) (rest, stuck bool) {
	if !c.Liveness || !w.atRest() {
		return false, false
	}
	return true, len(w.asks) > 0
}

// stuckWitness re-executes the path (root, moves) to a state at rest with
// a request pending and writes it as a scenario that fails where it is
// replayed: time passes (nothing is due) and the request is still
// unanswered.
func (c *config) stuckWitness(root int, path []int32) (string, error) {
	var b strings.Builder
	w, err := c.rebuild(&b, root, path)
	if err != nil {
		return "", err
	}
	if _, stuck := c.verdict(w); !stuck {
		return "", fmt.Errorf("explore: internal error: the rebuilt path does not end at rest with a request pending")
	}
	fmt.Fprintf(&b, "# at rest: every node up, nothing in flight, no timer pending; unanswered:")
	for _, a := range w.asks {
		fmt.Fprintf(&b, " n%d r%d", a.node, a.res)
	}
	b.WriteString("\nadvance 1h                # nothing is due: time alone answers nothing\n")
	fmt.Fprintf(&b, "expect unanswered %d\n", len(w.asks))
	b.WriteString("# every Acquire is answered (algorithms.Failed's contract): leaselab replay exits 1 here\n")
	b.WriteString("expect unanswered 0\n")
	return b.String(), nil
}

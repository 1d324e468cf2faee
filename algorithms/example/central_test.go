package example_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
)

func TestCheckRejects(t *testing.T) {
	a, err := algorithms.Lookup(example.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.DefaultParams()
	if err := a.ValidateConfig(p, algorithms.NewCluster(3, 3), nil); err == nil || !strings.Contains(err.Error(), "exactly 1 acceptor") {
		t.Errorf("3 acceptors: %v", err)
	}
	p.LeaseSpan = p.MaxLease
	if err := a.ValidateConfig(p, algorithms.NewCluster(1, 3), nil); err == nil || !strings.Contains(err.Error(), "below max lease") {
		t.Errorf("T = M: %v", err)
	}
	if err := a.ValidateConfig(algorithms.DefaultParams(), algorithms.NewCluster(1, 3), algorithms.Ablations{"nosuch"}); err == nil {
		t.Error("unknown ablation accepted")
	}
}

// The kinds are registered under the algorithm's name with fixed numbers.
func TestKinds(t *testing.T) {
	for i, name := range []string{"central-ask", "central-granted", "central-busy", "central-free"} {
		k, ok := algorithms.KindByName(name)
		if !ok || k != algorithms.FirstExtensionKind+algorithms.Kind(i) || k.Owner() != example.Name {
			t.Errorf("%s: kind %d, registered %v, owner %q", name, k, ok, k.Owner())
		}
	}
}

// newNode builds a node to step by hand.
func newNode(t *testing.T, id algorithms.NodeID, seed uint64) algorithms.Explorable {
	t.Helper()
	n, err := example.New(algorithms.Config{ID: id, Cluster: algorithms.NewCluster(1, 3), Params: algorithms.DefaultParams(),
		Rand: rand.New(rand.NewPCG(seed, 0))})
	if err != nil {
		t.Fatal(err)
	}
	return n.(algorithms.Explorable)
}

func step(n algorithms.Node, now algorithms.Local, in algorithms.Input) algorithms.Output {
	var out algorithms.Output
	n.Step(now, in, &out)
	return out
}

func ask(from algorithms.NodeID, r algorithms.ResourceID, b algorithms.Ballot) algorithms.Input {
	return algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: example.KindAsk, From: from, To: example.Server,
		Owner: from, Resource: r, Ballot: b, Span: int64(5 * time.Second)}}
}

// Clone is deep and AppendState is canonical: relative to now, and
// independent of the order in which resources were first touched.
func TestExplorable(t *testing.T) {
	const sec = algorithms.Local(time.Second)
	a := newNode(t, example.Server, 1)
	step(a, 0, algorithms.Input{Kind: algorithms.Start})
	step(a, 10*sec, ask(1, 7, algorithms.MakeBallot(1, 0, 1)))
	step(a, 10*sec, ask(2, 3, algorithms.MakeBallot(1, 0, 2)))

	// The same grants made in the other order and 100 s later.
	b := newNode(t, example.Server, 1)
	step(b, 0, algorithms.Input{Kind: algorithms.Start})
	step(b, 110*sec, ask(2, 3, algorithms.MakeBallot(1, 0, 2)))
	step(b, 110*sec, ask(1, 7, algorithms.MakeBallot(1, 0, 1)))
	sa, sb := a.AppendState(nil, 11*sec), b.AppendState(nil, 111*sec)
	if !bytes.Equal(sa, sb) {
		t.Fatalf("equal states encode differently:\n%x\n%x", sa, sb)
	}
	if bytes.Equal(sa, a.AppendState(nil, 12*sec)) {
		t.Fatal("the encoding does not depend on now, though the grants' ends do")
	}

	c := a.Clone(rand.New(rand.NewPCG(2, 0))).(algorithms.Explorable)
	if !bytes.Equal(c.AppendState(nil, 11*sec), sa) {
		t.Fatal("a clone encodes differently from its original")
	}
	// Node 1's grant on r7 is released on the clone only.
	out := step(c, 12*sec, algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: example.KindFree, From: 1, To: example.Server,
		Owner: 1, Resource: 7, Ballot: algorithms.MakeBallot(1, 0, 1)}})
	if len(out.Events) != 1 || out.Events[0].Kind != algorithms.Cleared {
		t.Fatalf("release on the clone: %+v", out.Events)
	}
	if !bytes.Equal(a.AppendState(nil, 11*sec), sa) {
		t.Fatal("stepping the clone changed the original")
	}
	// The original still has the grant: node 2 is told node 1 holds r7.
	out = step(a, 12*sec, ask(2, 7, algorithms.MakeBallot(2, 0, 2)))
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != example.KindBusy || out.Msgs[0].Owner != 1 {
		t.Fatalf("original after the clone's release: %+v", out.Msgs)
	}
}

// The server ignores an ask of the owner older than its grant, and a
// release older than the grant.
func TestServerOrdersByBallot(t *testing.T) {
	n := newNode(t, example.Server, 1)
	step(n, 0, algorithms.Input{Kind: algorithms.Start})
	b1, b2 := algorithms.MakeBallot(1, 0, 1), algorithms.MakeBallot(2, 0, 1)
	if out := step(n, 1, ask(1, 0, b2)); len(out.Msgs) != 1 || out.Msgs[0].Kind != example.KindGranted {
		t.Fatalf("first ask: %+v", out.Msgs)
	}
	if out := step(n, 2, ask(1, 0, b1)); len(out.Msgs) != 0 || len(out.Events) != 0 {
		t.Fatalf("stale ask answered: %+v %+v", out.Msgs, out.Events)
	}
	free := algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: example.KindFree, From: 1, To: example.Server, Owner: 1, Ballot: b1}}
	if out := step(n, 3, free); len(out.Events) != 0 {
		t.Fatalf("stale release cleared the grant: %+v", out.Events)
	}
	free.Msg.From, free.Msg.Ballot = 2, algorithms.MakeBallot(9, 0, 2)
	if out := step(n, 3, free); len(out.Events) != 0 {
		t.Fatalf("another node's release cleared the grant: %+v", out.Events)
	}
	free.Msg.From, free.Msg.Ballot = 1, b2
	if out := step(n, 4, free); len(out.Events) != 1 || out.Events[0].Kind != algorithms.Cleared {
		t.Fatalf("the owner's release: %+v", out.Events)
	}
}

// The server says whom it granted each resource and until when, relative
// to its clock; asking changes nothing.
func TestDescribe(t *testing.T) {
	const sec = algorithms.Local(time.Second)
	a := newNode(t, example.Server, 1)
	step(a, 0, algorithms.Input{Kind: algorithms.Start})
	step(a, 10*sec, ask(1, 7, algorithms.MakeBallot(1, 0, 1)))
	before := a.AppendState(nil, 11*sec)
	got := a.(algorithms.Describer).Describe(11 * sec)
	if !strings.Contains(got, "r7: granted to n1 (ballot 1.0.1), lapses in 4s") {
		t.Errorf("description %q", got)
	}
	if !bytes.Equal(a.AppendState(nil, 11*sec), before) {
		t.Error("Describe changed the node")
	}
}

// The message kinds' numbers travel on the wire, so they are fixed: the
// block from algorithms.FirstExtensionKind, in order. (Numbered downwards
// from it instead, they passed the safety battery and these package's
// other tests: every node of a run shares the numbers; a node of another
// build would not.)
func TestKindNumbersFixed(t *testing.T) {
	for i, k := range []algorithms.Kind{example.KindAsk, example.KindGranted, example.KindBusy, example.KindFree} {
		if want := algorithms.FirstExtensionKind + algorithms.Kind(i); k != want {
			t.Errorf("kind %d is %d, want %d", i, k, want)
		}
	}
}

// The token is the server's: each grant carries its end on the server's
// clock and its place among the grants of its instant, so grants made
// one after another carry growing tokens, at one instant, across
// instants and across a restart (the server waits M, past every grant
// of its earlier life); the client holds with the token it was granted
// and answers a second acquire with the same one.
func TestServerTokensGrow(t *testing.T) {
	const sec = algorithms.Local(time.Second)
	p := algorithms.DefaultParams()
	token := func(m algorithms.Message) algorithms.Token {
		return algorithms.Token{Major: algorithms.TimeToken(m.Expiry).Major, Minor: m.Instance}
	}
	free := func(from algorithms.NodeID, b algorithms.Ballot) algorithms.Input {
		return algorithms.Input{Kind: algorithms.Recv, Msg: algorithms.Message{Kind: example.KindFree, From: from, To: example.Server, Owner: from, Ballot: b}}
	}
	grant := func(n algorithms.Node, now algorithms.Local, in algorithms.Input) algorithms.Message {
		t.Helper()
		out := step(n, now, in)
		if len(out.Msgs) != 1 || out.Msgs[0].Kind != example.KindGranted {
			t.Fatalf("ask at %v: %+v, want a grant", now, out.Msgs)
		}
		return out.Msgs[0]
	}
	s := newNode(t, example.Server, 1)
	step(s, 0, algorithms.Input{Kind: algorithms.Start})
	b1, b2, b3 := algorithms.MakeBallot(1, 0, 1), algorithms.MakeBallot(1, 0, 2), algorithms.MakeBallot(2, 0, 1)
	var seq []algorithms.Token
	g := grant(s, sec, ask(1, 0, b1))
	if g.Expiry != sec.Add(p.LeaseSpan) || g.Instance != 1 {
		t.Fatalf("first grant carries end %v, place %d: want %v, 1", g.Expiry, g.Instance, sec.Add(p.LeaseSpan))
	}
	seq = append(seq, token(g))
	step(s, sec, free(1, b1)) // released at the same instant
	seq = append(seq, token(grant(s, sec, ask(2, 0, b2))))
	step(s, 2*sec, free(2, b2))
	seq = append(seq, token(grant(s, 2*sec, ask(1, 0, b3))))
	// A restarted server: the same clock, silent for M.
	r, err := example.New(algorithms.Config{ID: example.Server, Cluster: algorithms.NewCluster(1, 3), Params: p, Restarts: 1,
		Rand: rand.New(rand.NewPCG(2, 0))})
	if err != nil {
		t.Fatal(err)
	}
	restart := 3 * sec
	step(r, restart, algorithms.Input{Kind: algorithms.Start})
	if out := step(r, restart+sec, ask(2, 0, algorithms.MakeBallot(2, 0, 2))); len(out.Msgs) != 0 {
		t.Fatalf("a restarted server answered within M: %+v", out.Msgs)
	}
	seq = append(seq, token(grant(r, restart.Add(p.MaxLease), ask(2, 0, algorithms.MakeBallot(3, 0, 2)))))
	for i := 1; i < len(seq); i++ {
		if !seq[i-1].Less(seq[i]) {
			t.Fatalf("token %d (%s) is not above token %d (%s)", i, seq[i], i-1, seq[i-1])
		}
	}

	// The client's side.
	c := newNode(t, 1, 3)
	step(c, 0, algorithms.Input{Kind: algorithms.Start})
	out := step(c, sec, algorithms.Input{Kind: algorithms.Acquire, Resource: 0})
	if len(out.Msgs) != 1 || out.Msgs[0].Kind != example.KindAsk {
		t.Fatalf("acquire: %+v", out.Msgs)
	}
	m := out.Msgs[0]
	g = algorithms.Message{Kind: example.KindGranted, From: example.Server, To: 1, Owner: 1, Resource: 0, Ballot: m.Ballot,
		Expiry: 7 * sec, Instance: 3}
	acquired := func(out algorithms.Output) algorithms.Event {
		t.Helper()
		for _, e := range out.Events {
			if e.Kind == algorithms.Acquired {
				return e
			}
		}
		t.Fatalf("no Acquired in %+v", out.Events)
		return algorithms.Event{}
	}
	e := acquired(step(c, sec+sec/1000, algorithms.Input{Kind: algorithms.Recv, Msg: g}))
	if e.Token != token(g) || e.Until == 7*sec {
		t.Fatalf("acquired with token %s until %v: want the grant's %s, until the client's own end", e.Token, e.Until, token(g))
	}
	if again := acquired(step(c, 2*sec, algorithms.Input{Kind: algorithms.Acquire, Resource: 0})); again.Token != e.Token {
		t.Fatalf("asked again while holding: token %s, want %s", again.Token, e.Token)
	}
}

package main

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

// TestRegisteredAreExplorable: every registered algorithm builds nodes the
// explorer can copy and encode, with every ablation it offers.
func TestRegisteredAreExplorable(t *testing.T) {
	names := algorithms.Names()
	if len(names) < 5 {
		t.Fatalf("only %d algorithms registered: %v", len(names), names)
	}
	for _, name := range names {
		a, err := algorithms.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		abls := []algorithms.Ablations{nil}
		for _, ab := range a.Ablations {
			abls = append(abls, algorithms.Ablations{ab.Name})
		}
		// Three acceptors, or one for an algorithm that allows no other
		// shape (the example "central" is one lease server).
		cl := algorithms.NewCluster(3, 2)
		if a.Validate != nil && a.Validate(algorithms.DefaultParams(), cl) != nil {
			cl = algorithms.NewCluster(1, 2)
		}
		for _, abl := range abls {
			n, err := a.New(algorithms.Config{ID: 1, Cluster: cl, Params: algorithms.DefaultParams(), Ablations: abl, Rand: rand.New(rand.NewPCG(1, 1))})
			if err != nil {
				t.Fatalf("%s %v: New: %v", name, abl, err)
			}
			e, ok := n.(algorithms.Explorable)
			if !ok {
				t.Fatalf("%s: %T does not implement algorithms.Explorable", name, n)
			}
			var out algorithms.Output
			e.Step(1000, algorithms.Input{Kind: algorithms.Start}, &out)
			e.Step(1000, algorithms.Input{Kind: algorithms.Acquire, Resource: 3}, &out)
			c, ok := e.Clone(rand.New(rand.NewPCG(2, 2))).(algorithms.Explorable)
			if !ok {
				t.Fatalf("%s: Clone returned a node that is not Explorable", name)
			}
			if a, b := e.AppendState(nil, 1000), c.AppendState(nil, 1000); len(a) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("%s %v: a fresh clone encodes differently (%x vs %x)", name, abl, a, b)
			}
		}
	}
}

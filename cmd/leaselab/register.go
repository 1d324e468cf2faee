package main

// The algorithms the command knows: each package registers itself with
// algorithms.Register from init, so importing it is all it takes. An
// author of a new algorithm package adds its blank import in a file of
// their own (e.g. register_fatlease.go) rather than editing this one.
//
// runner/udp registers the udp environment (--env udp) the same way.
import (
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	_ "leaselab/runner/udp"
)

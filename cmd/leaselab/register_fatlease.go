package main

// FaTLease and the classic Paxos baseline built on the same engine.
import (
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
)

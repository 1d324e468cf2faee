package udp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	_ "leaselab/runner/sim"
)

// simLine is the part of a simulator trace line this test reads.
type simLine struct {
	T     int64                  `json:"t_ns"`
	Local int64                  `json:"local_ns"`
	Node  int                    `json:"node"`
	What  string                 `json:"what"`
	Msg   struct{ From, To int } `json:"msg"`
	Why   string                 `json:"reason"`
	SideA *int64                 `json:"side_a"`
}

// One seed is one fault schedule in both environments: a simulated run's
// trace shows the clocks, the partition episodes and the per-message
// network decisions the simulator drew, and the UDP environment's draws
// for the same spec (drawClocks, partitionPlan, NetDraws) give the same
// values: every traced local reading, every episode's start, sides and
// heal, and, message by message in the order the simulator sent them,
// the same loss and duplication (with jitter and reordering on, so a
// delay drawn out of order would shift every later decision).
func TestOneSeedOneSchedule(t *testing.T) {
	s := shortSpec("paxoslease", "contention")
	s.Env = "sim"
	s.Seed = 11
	s.Duration = 5 * time.Second
	s.Net = runner.NetSpec{RTT: time.Millisecond, Jitter: 200 * time.Microsecond, Loss: 0.1, Dup: 0.1, Reorder: 0.1}
	s.Clocks.Skew, s.Clocks.Drift = 20*time.Millisecond, 1e-4
	s.Faults.Partitions, s.Faults.PartitionLen = 30, 300*time.Millisecond
	var trace bytes.Buffer
	if _, err := runner.Run(s, runner.Options{Trace: &trace}); err != nil {
		t.Fatal(err)
	}
	var lines []simLine
	sc := bufio.NewScanner(&trace)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l simLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}

	nodes := algorithms.NewCluster(s.Acceptors, s.Proposers).Nodes
	clocks := drawClocks(s, nodes)
	plan := newPartitionPlan(s.Seed, s.Faults.Partitions, s.Faults.PartitionLen, nodes)
	draws := NewNetDraws(s.Seed, s.Net)
	var heal int64 = -1 // the planned heal of the episode under way
	var read, splits, lost, dups int
	for i, l := range lines {
		if l.Node >= 0 && l.Node < nodes {
			if got := int64(clocks[l.Node].Local(l.T)); got != l.Local {
				t.Fatalf("line %d (%s at %d): node %d read %d in the simulator, %d with the UDP clock", i, l.What, l.T, l.Node, l.Local, got)
			}
			read++
		}
		switch l.What {
		case "partition":
			start, h := plan.next()
			var mask int64
			for k, side := range plan.sides {
				if side == 0 {
					mask |= 1 << k
				}
			}
			if l.SideA == nil || start != l.T || mask != *l.SideA {
				t.Fatalf("episode %d: simulator split at %d (side A %v), UDP plans %d (side A %d)", splits, l.T, l.SideA, start, mask)
			}
			heal = h
			splits++
		case "heal":
			if l.T != heal {
				t.Fatalf("episode %d: simulator healed at %d, UDP plans %d", splits, l.T, heal)
			}
		case "send":
			if l.Msg.To == l.Msg.From {
				continue // self-delivery: no draws
			}
			var next simLine
			if i+1 < len(lines) {
				next = lines[i+1]
			}
			if next.What == "drop" && next.Why == "partition" {
				continue // dropped before any draw
			}
			f := draws.draw()
			simLost := next.What == "drop" && next.Why == "loss"
			simDup := next.What == "dup"
			if f.lost != simLost || f.dup != simDup {
				t.Fatalf("line %d, message %d->%d at %d: simulator lost %v dup %v, UDP draws lost %v dup %v",
					i, l.Msg.From, l.Msg.To, l.T, simLost, simDup, f.lost, f.dup)
			}
			if f.lost {
				lost++
			}
			if f.dup {
				dups++
			}
		}
	}
	t.Logf("%d readings, %d partitions, %d messages lost and %d duplicated, all drawn alike", read, splits, lost, dups)
	if read == 0 || splits < 2 || lost == 0 || dups == 0 {
		t.Fatalf("the run did not exercise the draws: %d readings, %d partitions, %d lost, %d duplicated", read, splits, lost, dups)
	}
}

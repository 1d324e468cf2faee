package udp

import (
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// msgCounter counts a trace's message records and checks each delivery
// against a send seen before it.
type msgCounter struct {
	sends, delivers, self, unmatched int
	sent                             map[algorithms.Message]int
}

func (c *msgCounter) Observe(r *runner.TraceRec) {
	switch r.Kind {
	case runner.TraceSend:
		c.sends++
		c.sent[r.Msg]++
		if r.Msg.From == r.Msg.To {
			c.self++
		}
		if r.Node != r.Msg.From {
			c.unmatched++
		}
	case runner.TraceDeliver:
		c.delivers++
		if c.sent[r.Msg] == 0 || r.Node != r.Msg.To {
			c.unmatched++
		} else {
			c.sent[r.Msg]--
		}
	}
}

// A UDP run's trace has its messages when someone observes it (the HTML
// view draws them): every send at its sender, every delivery at its
// receiver after a send of the same message; the sends to other nodes are
// the run's message count, the rest a node's messages to itself.
func TestTraceHasMessages(t *testing.T) {
	s := shortSpec("paxoslease", "contention")
	s.Duration = 500 * time.Millisecond
	c := &msgCounter{sent: map[algorithms.Message]int{}}
	r, err := runner.Run(s, runner.Options{Observers: []runner.Observer{c}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sends (%d to itself), %d deliveries, result messages %d", c.sends, c.self, c.delivers, r.Messages)
	if c.sends == 0 || c.delivers == 0 || c.unmatched != 0 {
		t.Fatalf("%d sends, %d deliveries, %d unmatched", c.sends, c.delivers, c.unmatched)
	}
	if int64(c.sends-c.self) != r.Messages {
		t.Errorf("%d sends to other nodes traced, the run counted %d messages", c.sends-c.self, r.Messages)
	}
	if c.delivers > c.sends {
		t.Errorf("%d deliveries of %d sends (no duplication configured)", c.delivers, c.sends)
	}
}

package host

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"leaselab/algorithms"
)

// script is a node that answers every input with the Output it is given.
type script struct {
	outs  []algorithms.Output
	steps int
}

func (s *script) Step(_ algorithms.Local, _ algorithms.Input, out *algorithms.Output) {
	o := s.outs[s.steps]
	s.steps++
	out.Msgs = append(out.Msgs, o.Msgs...)
	out.Timers = append(out.Timers, o.Timers...)
	out.Events = append(out.Events, o.Events...)
	out.Persist = append(out.Persist, o.Persist...)
	out.NoSync = o.NoSync
}

func (s *script) Clone(*rand.Rand) algorithms.Node {
	c := *s
	return &c
}

func (s *script) AppendState(b []byte, _ algorithms.Local) []byte { return fmt.Append(b, s.steps) }

// logEnv records what a host asks of its environment.
type logEnv struct {
	log   []string
	crash bool // crash the node at its first event
}

func (e *logEnv) Arm(h *Host, i int32, local algorithms.Local) {
	t := h.Timers.At(i)
	e.log = append(e.log, fmt.Sprintf("arm %d/%d@%d", t.Res, t.Kind, t.At))
}
func (e *logEnv) Disarm(_ *Host, _ int32, t Timer) {
	e.log = append(e.log, fmt.Sprintf("disarm %d/%d", t.Res, t.Kind))
}
func (e *logEnv) Send(m *algorithms.Message) {
	e.log = append(e.log, fmt.Sprintf("send %d", m.Resource))
}
func (e *logEnv) Persist(_ *Host, out *algorithms.Output) {
	e.log = append(e.log, fmt.Sprintf("persist %d", len(out.Persist)))
}
func (e *logEnv) Sync(h *Host) { e.log = append(e.log, fmt.Sprintf("sync %d", h.Disk.Syncing())) }
func (e *logEnv) Event(h *Host, _ algorithms.Local, ev *algorithms.Event) {
	e.log = append(e.log, fmt.Sprintf("event %d", ev.Resource))
	if e.crash {
		h.Crash()
	}
}

// TestStepOrder checks the order in which Step carries out an Output: timers,
// the disk write holding its messages (or the messages), events; and
// that the events stop when one crashes the node, and a message not
// from the node is an error.
func TestStepOrder(t *testing.T) {
	msg := func(from algorithms.NodeID, r algorithms.ResourceID) algorithms.Message {
		return algorithms.Message{From: from, Resource: r}
	}
	out := algorithms.Output{
		Timers: []algorithms.Timer{{Key: algorithms.TimerKey{Resource: 1, Kind: 1}, At: 10},
			{Key: algorithms.TimerKey{Resource: 2, Kind: 1}, At: 20}, {Key: algorithms.TimerKey{Resource: 1, Kind: 1}, Cancel: true}},
		Msgs:    []algorithms.Message{msg(3, 7), msg(3, 8)},
		Persist: []algorithms.Record{{Resource: 7}},
		Events:  []algorithms.Event{{Resource: 7}, {Resource: 8}},
	}
	cases := []struct {
		name  string
		outs  []algorithms.Output
		crash bool
		err   bool
		want  string
	}{
		{"persist", []algorithms.Output{out}, false, false,
			"arm 1/1@10, arm 2/1@20, disarm 1/1, persist 1, sync 1, event 7, event 8 | send 7, send 8"},
		{"plain", []algorithms.Output{{Msgs: out.Msgs, Events: out.Events}}, false, false, "send 7, send 8, event 7, event 8 |"},
		{"crash in an event", []algorithms.Output{{Events: out.Events}}, true, false, "event 7 |"},
		{"foreign message", []algorithms.Output{{Msgs: []algorithms.Message{msg(2, 1)}}}, false, true, "|"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := Host{ID: 3}
			h.Run(&script{outs: c.outs}, nil)
			env := &logEnv{crash: c.crash}
			var o algorithms.Output
			err := h.Step(env, 0, &algorithms.Input{Kind: algorithms.Start}, &o)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want an error: %v", err, c.err)
			}
			env.log = append(env.log, "|")
			if h.Disk.Busy() {
				h.Synced(env)
			}
			got := strings.ReplaceAll(strings.Join(env.log, ", "), ", |", " |")
			if got = strings.ReplaceAll(got, "|, ", "| "); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestHostLives: a restart counts, recovers the durable records, starts a
// new life with no timers; a clone is independent of the original.
func TestHostLives(t *testing.T) {
	var built []algorithms.Config
	algo := algorithms.Algorithm{Name: "host-test", Build: func(c algorithms.Config) (algorithms.Node, error) {
		built = append(built, c)
		return &script{outs: make([]algorithms.Output, 4)}, nil
	}}
	s := &Setup{Algo: algo, Cluster: algorithms.NewCluster(1, 1), Params: algorithms.DefaultParams(), Seed: 5}
	h := Host{Disk: Disk{Keep: true}}
	if err := h.Boot(s, nil); err != nil {
		t.Fatal(err)
	}
	h.Disk.Write([]algorithms.Record{{Resource: 4}}, nil, false)
	h.Disk.Start()
	h.Disk.Done()
	h.Timers.Set(algorithms.TimerKey{Resource: 1}, 5)
	c := h.Clone()
	c.Timers.Set(algorithms.TimerKey{Resource: 2}, 5)
	c.Node.Step(0, algorithms.Input{}, &algorithms.Output{})
	if h.Timers.Len() != 1 || h.Node.(*script).steps != 0 {
		t.Fatal("changing a clone changed the original")
	}
	h.Crash()
	if h.Up() || h.Timers.Len() != 0 {
		t.Fatal("a crashed host is up or kept its timers")
	}
	if err := h.Restart(s); err != nil {
		t.Fatal(err)
	}
	last := built[len(built)-1]
	if h.Life != 2 || h.Restarts != 1 || last.Restarts != 1 || len(last.Recovered) != 1 || last.Recovered[0].Resource != 4 {
		t.Fatalf("life %d, restarts %d, built with %+v", h.Life, h.Restarts, last)
	}
}

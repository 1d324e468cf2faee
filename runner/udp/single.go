package udp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"leaselab/algorithms"
)

// SingleResult is what RunSingle measured.
type SingleResult struct {
	// LatencyNS per repetition, sorted: from the driver handing the
	// request to the proposer (its true time just before Submit) to the
	// proposer's Acquired event. It includes waking the proposer's
	// goroutine, which a client of a real node would also pay.
	LatencyNS []int64
	Failed    int
	Timeouts  int
	Meters    Meters
	// Background: the background writer's work (ClusterConfig.Background).
	Background BackgroundStats
}

type singleObs struct {
	events chan singleEvent
}

type singleEvent struct {
	t    int64
	kind algorithms.EventKind
	res  algorithms.ResourceID
}

func (s *singleObs) Event(n *Node, t int64, _ algorithms.Local, ev algorithms.Event) {
	if n.id != 0 {
		return
	}
	switch ev.Kind {
	case algorithms.Acquired, algorithms.Failed, algorithms.Timeout:
		select {
		case s.events <- singleEvent{t: t, kind: ev.Kind, res: ev.Resource}:
		default: // the driver is gone (limit reached); never block a node
		}
	}
}

// RunSingle is the negotiation-duration experiment (FaTLease Sec. 5.2):
// reps times, one lease on a fresh resource is requested at proposer 0 of
// an otherwise idle cluster, and the time to acquisition is recorded. Each
// repetition waits for the previous one, so they never overlap. limit
// bounds one repetition.
func RunSingle(ctx context.Context, cfg ClusterConfig, reps int, limit time.Duration) (SingleResult, error) {
	if reps < 1 {
		return SingleResult{}, fmt.Errorf("udp: single needs at least 1 repetition, got %d", reps)
	}
	if limit <= 0 {
		limit = 10 * time.Second
	}
	obs := &singleObs{events: make(chan singleEvent, 64)}
	cfg.Observer = obs
	c, err := StartCluster(cfg)
	if err != nil {
		return SingleResult{}, err
	}
	var r SingleResult
	var runErr error
	tm := time.NewTimer(limit)
	defer tm.Stop()
reps:
	for i := 0; i < reps; i++ {
		res := algorithms.ResourceID(i + 1)
		t0 := c.Clock.True()
		c.Nodes[0].Submit(algorithms.Input{Kind: algorithms.Acquire, Resource: res})
		tm.Reset(limit)
		for {
			select {
			case ev := <-obs.events:
				if ev.res != res {
					continue
				}
				switch ev.kind {
				case algorithms.Timeout:
					r.Timeouts++
					continue
				case algorithms.Acquired:
					r.LatencyNS = append(r.LatencyNS, ev.t-t0)
				case algorithms.Failed:
					r.Failed++
				}
				continue reps
			case <-tm.C:
				r.Failed++
				continue reps
			case <-ctx.Done():
				runErr = ctx.Err()
				break reps
			}
		}
	}
	if err := c.Stop(); err != nil && runErr == nil {
		runErr = err
	}
	r.Meters = c.Meters()
	r.Background = c.Background()
	slices.Sort(r.LatencyNS)
	return r, runErr
}

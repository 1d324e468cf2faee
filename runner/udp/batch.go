package udp

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"leaselab/algorithms"
)

// BatchConfig is the FaTLease paper's throughput experiment (Sec. 5.1):
// Leases requests on Leases distinct resources submitted at once, spread
// round-robin over the proposers.
type BatchConfig struct {
	Leases int
	// Window bounds the acquisitions each proposer has in flight; the rest
	// of the batch waits in the proposer's queue and is admitted as earlier
	// ones finish. Without it a million requests would be turned into
	// messages in one burst and overflow the receivers' socket buffers;
	// with it the kernel queues stay bounded and no message is lost to
	// congestion. 0 means DefaultWindow.
	Window int
	// Limit: requests still unfinished after this long count as failed
	// (0: no limit).
	Limit time.Duration
	// Progress, if set, is called about every 200 ms with the fraction of
	// requests finished, and once with 1 at the end.
	Progress func(done float64)
}

// DefaultWindow is the per-proposer bound on acquisitions in flight, in
// the batch workload and in the runner's udp environment (NodeConfig.Window).
// 4096 acquisitions of a Paxos-style algorithm put at most about 2 x 4096
// 64-byte messages in each acceptor's receive queue, well inside the 8 MiB
// socket buffer the nodes ask for; leaselab bench --window tries others.
const DefaultWindow = 4096

// BatchResult is what a batch measured.
type BatchResult struct {
	Leases   int
	Acquired int
	Failed   int // Failed events plus requests unfinished at the limit
	Timeouts int
	// ElapsedNS: from the first request to the last acquisition.
	ElapsedNS    int64
	LeasesPerSec float64
	// LatencyNS of every acquired lease: from the moment the proposer took
	// the request (stepped the Acquire input) to its Acquired event. With
	// Window smaller than the batch, time spent queued before admission is
	// not included; QueuedNS is.
	LatencyNS []int64
	// QueuedNS of every acquired lease: from the batch's start (all
	// requests were submitted then) to acquisition.
	QueuedNS    []int64
	Preemptions int
	Meters      Meters
	WallNS      int64
	// Background: the background writer's work (ClusterConfig.Background).
	Background BackgroundStats
}

// batchObs is the batch workload's observer. Resource r (1..Leases) is
// requested at proposer (r-1) % P; all its per-resource state is touched
// only on that proposer's goroutine, so no lock is needed. Counters that
// the driver reads are per proposer and atomic where read concurrently.
type batchObs struct {
	start     int64 // true time the batch began
	leases    int
	proposers int
	reqT      []int64 // per resource index: true time the proposer stepped Acquire (0: not yet)
	doneT     []int64 // acquisition time (0: not yet); -1 failed
	per       []proposerState
	done      atomic.Int64
	finished  chan struct{}
}

type proposerState struct {
	next        int // next resource index this proposer admits
	timeouts    int
	preemptions int
	failed      int
	last        int64 // last acquisition time
	_           [64]byte
}

func (b *batchObs) Event(n *Node, t int64, _ algorithms.Local, ev algorithms.Event) {
	if int(n.id) >= b.proposers {
		return
	}
	p := &b.per[n.id]
	switch ev.Kind {
	case algorithms.Timeout:
		p.timeouts++
		return
	case algorithms.Preempted:
		p.preemptions++
		return
	case algorithms.Acquired, algorithms.Failed:
	default:
		return
	}
	i := int(ev.Resource) - 1
	if i < 0 || i >= b.leases || (i%b.proposers) != int(n.id) || b.doneT[i] != 0 || b.reqT[i] == 0 {
		return
	}
	if ev.Kind == algorithms.Acquired {
		b.doneT[i] = t
		p.last = t
	} else {
		b.doneT[i] = -1
		p.failed++
	}
	b.admit(n, t, p)
	if b.done.Add(1) == int64(b.leases) {
		close(b.finished)
	}
}

// admit queues the proposer's next request.
func (b *batchObs) admit(n *Node, t int64, p *proposerState) {
	if p.next >= b.leases {
		return
	}
	i := p.next
	p.next += b.proposers
	b.reqT[i] = t
	n.Enqueue(algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(i + 1)})
}

// RunBatch starts a cluster, runs one batch on it and stops it. The
// observer of cfg is replaced by the batch's own.
func RunBatch(ctx context.Context, cfg ClusterConfig, bc BatchConfig) (BatchResult, error) {
	if bc.Leases < 1 {
		return BatchResult{}, fmt.Errorf("udp: batch needs at least 1 lease, got %d", bc.Leases)
	}
	if bc.Window == 0 {
		bc.Window = DefaultWindow
	}
	if bc.Window < 1 {
		return BatchResult{}, fmt.Errorf("udp: batch window must be positive, got %d", bc.Window)
	}
	P := cfg.Cluster.Proposers
	obs := &batchObs{
		leases: bc.Leases, proposers: P,
		reqT: make([]int64, bc.Leases), doneT: make([]int64, bc.Leases),
		per: make([]proposerState, P), finished: make(chan struct{}),
	}
	for p := range obs.per {
		obs.per[p].next = p
	}
	cfg.Observer = obs
	wall := time.Now()
	c, err := StartCluster(cfg)
	if err != nil {
		return BatchResult{}, err
	}
	// The first window of every proposer is handed over now. reqT is set
	// before Submit, which orders it before the proposer's goroutine reads it.
	start := c.Clock.True()
	obs.start = start
	for p := 0; p < P; p++ {
		ps := &obs.per[p]
		var ins []algorithms.Input
		for k := 0; k < bc.Window && ps.next < bc.Leases; k++ {
			i := ps.next
			ps.next += P
			obs.reqT[i] = start
			ins = append(ins, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(i + 1)})
		}
		if len(ins) > 0 {
			c.Nodes[p].Submit(ins...)
		}
	}
	var limit <-chan time.Time
	if bc.Limit > 0 {
		tm := time.NewTimer(bc.Limit)
		defer tm.Stop()
		limit = tm.C
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var stopErr error
wait:
	for {
		select {
		case <-obs.finished:
			break wait
		case <-limit:
			break wait
		case <-ctx.Done():
			stopErr = ctx.Err()
			break wait
		case <-tick.C:
			if bc.Progress != nil {
				bc.Progress(float64(obs.done.Load()) / float64(bc.Leases))
			}
		}
	}
	if err := c.Stop(); err != nil && stopErr == nil {
		stopErr = err
	}
	if bc.Progress != nil {
		bc.Progress(1)
	}
	// After Stop every node goroutine has ended: all state is ours.
	r := BatchResult{Leases: bc.Leases, Meters: c.Meters(), WallNS: int64(time.Since(wall)), Background: c.Background()}
	var last int64
	for p := range obs.per {
		ps := &obs.per[p]
		r.Timeouts += ps.timeouts
		r.Preemptions += ps.preemptions
		if ps.last > last {
			last = ps.last
		}
	}
	r.LatencyNS = make([]int64, 0, bc.Leases)
	r.QueuedNS = make([]int64, 0, bc.Leases)
	for i := range obs.doneT {
		switch d := obs.doneT[i]; {
		case d > 0:
			r.Acquired++
			r.LatencyNS = append(r.LatencyNS, d-obs.reqT[i])
			r.QueuedNS = append(r.QueuedNS, d-start)
		default:
			r.Failed++ // failed, or unfinished at the limit
		}
	}
	if r.Acquired > 0 && last > start {
		r.ElapsedNS = last - start
		r.LeasesPerSec = float64(r.Acquired) / (float64(r.ElapsedNS) / 1e9)
	}
	slices.Sort(r.LatencyNS)
	slices.Sort(r.QueuedNS)
	return r, stopErr
}

package record

import (
	"leaselab/algorithms"
	"leaselab/runner"
)

// A meter keeps some of the Result's meters. The Recorder tells it the
// happenings of the run it has a method for (the hooks below), as typed
// values in true-time order, and at the end has it fill its fields of the
// Result. A new meter is a type here, one line in Recorder.addMeters and
// its Result field; every environment and the etcd peer feed it, since
// they all feed the Recorder.
type meter interface {
	// fill writes the meter's fields for a run that ended at true time
	// end; res already holds what the meters before it filled.
	fill(res *runner.Result, end int64)
}

// The hooks a meter may implement.
type (
	// requested: node n's client asked for a lease it was not already
	// waiting for (an Acquire that opened a pending request).
	requestHook interface {
		requested(t int64, n algorithms.NodeID)
	}
	// resolved: node n's pending request, made at start, ended: acquired,
	// or failed (a Failed event, the node's crash, the client giving up,
	// the run's end). chain is how many rounds it lost to higher ballots.
	resolveHook interface {
		resolved(t int64, n algorithms.NodeID, start int64, chain int, o Outcome)
	}
	// event: node n emitted ev.
	eventHook interface {
		event(t int64, n algorithms.NodeID, ev *algorithms.Event)
	}
	// sent: a message was handed to the network (a node's messages to
	// itself too).
	sendHook interface {
		sent(t int64, m *algorithms.Message)
	}
	// diskWrite: bytes went to stable storage (synced or not); fsync: one
	// completed, taking latency ns, with bytes not already counted.
	diskHook interface {
		diskWrite(t int64, bytes int64)
		fsync(t int64, latency int64, bytes int64)
	}
	// crashed: node n crashed; partitioned: a partition began.
	faultHook interface {
		crashed(t int64, n algorithms.NodeID)
		partitioned(t int64)
	}
	// failover: the holder n was crashed on purpose (the failover
	// workload); holdStarted: owner began holding res, after prev (NoNode
	// if nobody held it before).
	holdHook interface {
		failover(t int64, n algorithms.NodeID)
		holdStarted(t int64, res algorithms.ResourceID, owner, prev algorithms.NodeID)
	}
	// holdChanged: owner's hold interval on res began (started) or ended;
	// holders is how many are open on res now.
	beliefHook interface {
		holdChanged(t int64, res algorithms.ResourceID, owner algorithms.NodeID, started bool, holders int32)
	}
	// paused, resumed: node n's process paused or resumed.
	pauseHook interface {
		paused(t int64, n algorithms.NodeID)
		resumed(t int64, n algorithms.NodeID)
	}
	// wrote: node n's write reached the protected store, which did out
	// with it (runner.WriteAccepted, WriteStale, WriteRejected).
	writeHook interface {
		wrote(t int64, n algorithms.NodeID, out uint8)
	}
)

// hooks are the meters that implement each hook, in fill order.
type hooks struct {
	meters    []meter
	onRequest []requestHook
	onResolve []resolveHook
	onEvent   []eventHook
	onSend    []sendHook
	onDisk    []diskHook
	onFault   []faultHook
	onHold    []holdHook
	onBelief  []beliefHook
	onPause   []pauseHook
	onWrite   []writeHook
	requests  *requestMeter // the counts the workload and scenarios ask for
	// storeMeter: the protected store's counts scenarios ask for.
	storeMeter *storeMeter
}

// addMeters gives the recorder its meters, in fill order: the per-lease
// meters divide by LeasesAcquired, which the request meter fills first.
func (r *Recorder) addMeters() {
	r.storeMeter = &storeMeter{}
	r.requests = &requestMeter{workload: r.spec.Workload, chains: map[int]int{}, firstRequest: -1, firstAcquire: -1,
		latencies: r.tables.latencies[:0]}
	for _, m := range []meter{r.requests, &loadMeter{}, &fairnessMeter{}, &protocolMeter{}, &messageMeter{}, &diskMeter{},
		&faultMeter{}, &handoffMeter{workload: r.spec.Workload, failoverAt: -1, gap: -1},
		r.storeMeter, &pauseMeter{}, &beliefMeter{}} {
		r.meters = append(r.meters, m)
		if h, ok := m.(requestHook); ok {
			r.onRequest = append(r.onRequest, h)
		}
		if h, ok := m.(resolveHook); ok {
			r.onResolve = append(r.onResolve, h)
		}
		if h, ok := m.(eventHook); ok {
			r.onEvent = append(r.onEvent, h)
		}
		if h, ok := m.(sendHook); ok {
			r.onSend = append(r.onSend, h)
		}
		if h, ok := m.(diskHook); ok {
			r.onDisk = append(r.onDisk, h)
		}
		if h, ok := m.(faultHook); ok {
			r.onFault = append(r.onFault, h)
		}
		if h, ok := m.(holdHook); ok {
			r.onHold = append(r.onHold, h)
		}
		if h, ok := m.(beliefHook); ok {
			r.onBelief = append(r.onBelief, h)
		}
		if h, ok := m.(pauseHook); ok {
			r.onPause = append(r.onPause, h)
		}
		if h, ok := m.(writeHook); ok {
			r.onWrite = append(r.onWrite, h)
		}
	}
}

// perSecondOfRun reports whether a workload's rates are per second of the
// whole run (contention, failover) rather than over its requests (batch,
// single: FaTLease Sec. 5.1).
func perSecondOfRun(workload string) bool { return workload != "batch" && workload != "single" }

// requestMeter: acquisitions, failures, their latency and pre-emption
// chains, the time to the first lease and the lease rate.
type requestMeter struct {
	workload                                string
	acquired, failed                        int
	latencies                               []int64
	chains                                  map[int]int
	firstRequest, firstAcquire, lastAcquire int64
	// short counts the chains below len(short), the usual ones, without
	// a map update per request; fill adds them to chains.
	short [8]int
}

func (m *requestMeter) requested(t int64, _ algorithms.NodeID) {
	if m.firstRequest < 0 {
		m.firstRequest = t
	}
}

func (m *requestMeter) resolved(t int64, _ algorithms.NodeID, start int64, chain int, o Outcome) {
	if chain >= 0 && chain < len(m.short) {
		m.short[chain]++
	} else {
		m.chains[chain]++
	}
	if o != OutcomeAcquired {
		m.failed++
		return
	}
	m.acquired++
	m.latencies = append(m.latencies, t-start)
	if m.firstAcquire < 0 {
		m.firstAcquire = t
	}
	m.lastAcquire = t
}

func (m *requestMeter) fill(res *runner.Result, end int64) {
	res.LeasesAcquired, res.LeasesFailed = m.acquired, m.failed
	res.LatencyMS = PercentilesMS(m.latencies)
	for c, k := range m.short {
		if k > 0 {
			m.chains[c] += k
			m.short[c] = 0
		}
	}
	res.PreemptionChains = m.chains
	res.TimeToFirstLeaseMS = runner.None
	if m.firstAcquire >= 0 {
		res.TimeToFirstLeaseMS = runner.OptionalMS(float64(m.firstAcquire-m.firstRequest) / 1e6)
	}
	if perSecondOfRun(m.workload) {
		if end > 0 {
			res.LeasesPerSec = float64(m.acquired) / (float64(end) / 1e9)
		}
	} else if m.acquired > 0 && m.lastAcquire > m.firstRequest {
		// FaTLease Sec. 5.1: N / (time from the first request to the
		// last lease acquired).
		res.LeasesPerSec = float64(m.acquired) / (float64(m.lastAcquire-m.firstRequest) / 1e9)
	}
}

// fairnessMeter: leases by node and Jain's index over the nodes that
// asked.
type fairnessMeter struct {
	byNode []int
	asked  []bool
}

func (m *fairnessMeter) requested(_ int64, n algorithms.NodeID) {
	if int(n) >= len(m.asked) {
		m.asked = append(m.asked, make([]bool, int(n)+1-len(m.asked))...)
	}
	m.asked[n] = true
}

func (m *fairnessMeter) resolved(_ int64, n algorithms.NodeID, _ int64, _ int, o Outcome) {
	if o != OutcomeAcquired {
		return
	}
	if int(n) >= len(m.byNode) {
		m.byNode = append(m.byNode, make([]int, int(n)+1-len(m.byNode))...)
	}
	m.byNode[n]++
}

func (m *fairnessMeter) fill(res *runner.Result, _ int64) {
	res.LeasesByNode = []int{}
	if len(m.asked) > 0 {
		res.LeasesByNode = make([]int, len(m.asked))
		copy(res.LeasesByNode, m.byNode)
		res.Fairness = runner.JainIndex(res.LeasesByNode, m.asked)
	}
}

// protocolMeter: the Timeout and Preempted events.
type protocolMeter struct{ timeouts, preemptions int }

func (m *protocolMeter) event(_ int64, _ algorithms.NodeID, ev *algorithms.Event) {
	switch ev.Kind {
	case algorithms.Timeout:
		m.timeouts++
	case algorithms.Preempted:
		m.preemptions++
	}
}

func (m *protocolMeter) fill(res *runner.Result, _ int64) {
	res.Timeouts, res.Preemptions = m.timeouts, m.preemptions
}

// messageMeter: messages that crossed the network, per lease and in
// bytes (a node's messages to itself never cross it).
type messageMeter struct{ messages int64 }

func (m *messageMeter) sent(_ int64, msg *algorithms.Message) {
	if msg.From != msg.To {
		m.messages++
	}
}

func (m *messageMeter) fill(res *runner.Result, _ int64) {
	res.Messages = m.messages
	if res.LeasesAcquired > 0 {
		res.MessagesPerLease = float64(m.messages) / float64(res.LeasesAcquired)
		res.BytesPerLease = res.MessagesPerLease * runner.WireSize
	}
}

// diskMeter: fsyncs, their latency, and the bytes written.
type diskMeter struct {
	fsyncs, bytes int64
	latencies     []int64
}

func (m *diskMeter) diskWrite(_ int64, bytes int64) { m.bytes += bytes }

func (m *diskMeter) fsync(_ int64, latency int64, bytes int64) {
	m.fsyncs++
	m.bytes += bytes
	m.latencies = append(m.latencies, latency)
}

func (m *diskMeter) fill(res *runner.Result, end int64) {
	res.Fsyncs, res.DiskBytes = m.fsyncs, m.bytes
	res.FsyncLatencyMS = PercentilesMS(m.latencies)
	if res.LeasesAcquired > 0 {
		res.FsyncsPerLease = float64(m.fsyncs) / float64(res.LeasesAcquired)
	}
	if end > 0 {
		res.DiskBytesPerS = float64(m.bytes) / (float64(end) / 1e9)
	}
}

// faultMeter: crashes and partitions.
type faultMeter struct{ crashes, partitions int }

func (m *faultMeter) crashed(int64, algorithms.NodeID) { m.crashes++ }
func (m *faultMeter) partitioned(int64)                { m.partitions++ }

func (m *faultMeter) fill(res *runner.Result, _ int64) {
	res.Crashes, res.PartitionCount = m.crashes, m.partitions
}

// handoffMeter: owner changes, hand-offs per second and the failover gap
// (from the holder's planned crash to the next hold of another node).
type handoffMeter struct {
	workload     string
	ownerChanges int
	failoverAt   int64
	failoverNode algorithms.NodeID
	gap          int64
}

func (m *handoffMeter) failover(t int64, n algorithms.NodeID) { m.failoverAt, m.failoverNode = t, n }

func (m *handoffMeter) holdStarted(t int64, _ algorithms.ResourceID, owner, prev algorithms.NodeID) {
	if prev != algorithms.NoNode && prev != owner {
		m.ownerChanges++
	}
	if m.failoverAt >= 0 && m.gap < 0 && owner != m.failoverNode && t >= m.failoverAt {
		m.gap = t - m.failoverAt
	}
}

func (m *handoffMeter) fill(res *runner.Result, end int64) {
	res.OwnerChanges = m.ownerChanges
	res.FailoverGapMS = runner.None
	if m.gap >= 0 {
		res.FailoverGapMS = runner.OptionalMS(float64(m.gap) / 1e6)
	}
	if perSecondOfRun(m.workload) && end > 0 {
		res.HandoffsPerSec = float64(m.ownerChanges) / (float64(end) / 1e9)
	}
}

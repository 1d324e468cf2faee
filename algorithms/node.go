package algorithms

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// Node is what every algorithm is, to the runner.
type Node interface {
	// Step handles one input at the node's local time now and appends what
	// it wants done to out. It does no I/O, reads no clock, starts no
	// goroutine and keeps no reference to out after it returns.
	Step(now Local, in Input, out *Output)
}

// InputKind says what happened to a node.
type InputKind uint8

const (
	Start      InputKind = iota // the node (re)started; Config.Restarts says how often before
	Recv                        // Msg arrived
	Fire                        // the timer Timer fired (it was not replaced or cancelled since)
	Acquire                     // a client asks this node to acquire the lease on Resource; a node that holds it answers Acquired at once, with that lease
	Extend                      // a client asks the holder to extend its lease on Resource
	Relinquish                  // a client gives up its claim on Resource: the lease this node holds, and any acquisition in progress
)

// inputNames are the spellings in traces and scenario files: Relinquish
// is "release", what the client asks for (not the message kind Release,
// which an algorithm may or may not send in answer).
var inputNames = [...]string{"start", "recv", "fire", "acquire", "extend", "release"}

func (k InputKind) String() string { return name(inputNames[:], uint8(k), "input") }

// name is names[k], or what(k) for a number past them.
func name(names []string, k uint8, what string) string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("%s(%d)", what, k)
}

// Input is one thing that happened to a node.
type Input struct {
	Kind     InputKind
	Msg      Message    // Recv
	Timer    TimerKey   // Fire
	Resource ResourceID // Acquire, Extend, Relinquish
}

// TimerKey names a timer of a node. Setting a timer replaces any pending
// timer with the same key, so a stale timer can never fire: the runner's
// timer heap stays one entry per live key. Kind is algorithm-defined.
type TimerKey struct {
	Resource ResourceID
	Kind     uint8
}

// TimerKeeper is an optional interface of a Node that can keep some of
// its timers itself, where it stores their deadlines anyway (PaxosLease's
// acceptor timers are its slots' accUntil), so that a runner holding
// millions of them need not store each one a second time. A runner that
// wants this calls KeepTimers once, before the first Step; one that does
// not (the simulator, the explorer) gets every timer in Output.Timers, as
// from any other node.
//
// Kept timers behave as if the runner kept them: setting one replaces a
// pending timer of the same key, cancelling forgets it, and each fires
// once, when the runner, finding it due, takes it with PopTimer and steps
// Fire for its key. A kept timer is in force from the Step that set it
// (Output.Timers take effect when the runner applies them, which it does
// before it looks for due timers again, so no runner can tell).
type TimerKeeper interface {
	// KeepTimers switches the node to keeping the timers it can keep: from
	// then on they are no longer in Output.Timers. Which keys it keeps is
	// the node's choice (PaxosLease: by kind), but a key is always kept or
	// never, so one key's timers never go to both places.
	KeepTimers()
	// NextTimer returns the earliest kept timer, its deadline and key; of
	// timers due at the same instant, the one with the smallest key
	// (Resource, then Kind), as the runner orders its own. False: none.
	NextTimer() (at Local, key TimerKey, ok bool)
	// PopTimer removes the timer NextTimer returns (the runner then steps
	// Fire for it).
	PopTimer()
}

// Releaser is an optional interface of a Node whose memory the next
// nodes of the process may reuse: a runner that will never step (or
// clone) the node again calls Release once, at the end of a run, and the
// node hands its tables to a pool its package keeps. Runs one after the
// other (campaigns, the benchmarks) then reuse memory that is already
// mapped instead of allocating, zeroing and collecting it for every run.
type Releaser interface {
	Release()
}

// Timer asks the runner to fire Key when the node's local clock reaches At,
// or, with Cancel, to forget Key.
type Timer struct {
	Key    TimerKey
	At     Local
	Cancel bool
}

// EventKind says what a node now believes or did; the runner's meters and
// the lease-invariant checker are built on events.
type EventKind uint8

const (
	// Acquired: the node holds the lease on Resource until its local clock
	// reads Until. Emitted again, with a later Until, on extension.
	Acquired EventKind = iota
	// Lost: the node no longer believes it holds Resource (released, or it
	// learned its lease is gone). Expiry at Until needs no event.
	Lost
	// Failed: an acquisition of Resource was abandoned after MaxRounds.
	// Every Acquire is answered, Acquired or Failed, once the network
	// delivers and the node runs (the settle stretch of a campaign,
	// runner.Spec.Settle, checks it).
	Failed
	// Timeout: a phase got no majority within ResponseTimeout.
	Timeout
	// Preempted: a round on Resource was lost to the higher ballot Ballot
	// (0 when the algorithm does not learn it), a step of a dynamic
	// deadlock.
	Preempted
	// Round: the node started a round (sent prepare / request) with Ballot.
	Round
	// Granted: this acceptor now holds a grant (naive) or an accepted
	// proposal (Paxos family) for Owner, until its local clock reads Until.
	// The runner's static-deadlock meter reads it, with
	// Algorithm.GrantBlocks saying whether such state blocks others.
	Granted
	// Cleared: this acceptor's grant / accepted proposal on Resource is gone.
	Cleared
	// Joined: a restarted node finished its quarantine and takes part again.
	Joined
)

var eventNames = [...]string{"acquired", "lost", "failed", "timeout", "preempted", "round", "granted", "cleared", "joined"}

func (k EventKind) String() string { return name(eventNames[:], uint8(k), "event") }

// Event is something a node believes or did.
//
// Owner names the node that holds, or wants, the lease the event is about:
//   - Acquired, Lost, Round, Timeout, Failed: the node that emits the event
//     (the holder, or the proposer whose acquisition it is);
//   - Granted, Cleared: the owner of the grant or accepted proposal this
//     acceptor gained or lost;
//   - Preempted: the node in the way, as far as the emitter knows: the
//     proposer of the higher Ballot when Ballot is known (Owner is then
//     Ballot.Node()), or the owner an answer named (naive's deny), else
//     NoNode;
//   - Joined: NoNode (no lease is concerned).
//
// Meters read it for Granted only; traces show it for every kind.
type Event struct {
	Kind     EventKind
	Resource ResourceID
	Owner    NodeID // see above, per kind
	Ballot   Ballot
	Until    Local // Acquired, Granted: end of the hold on the node's clock
	// Token: Acquired only: the fencing token of the lease (Token;
	// Algorithm.Fencing says what it is and why it grows).
	Token Token
}

// Token is a lease's fencing token (Kleppmann, "How to do distributed
// locking", 2016): a holder sends it with every write to the resource the
// lease protects, and a fenced store rejects a write whose token is below
// the highest it has accepted, so a holder whose lease ended while it was
// paused cannot overwrite a later holder's writes. That works only if a
// later holder's token is higher: each algorithm says in
// Algorithm.Fencing what its token is and why it grows from one holder to
// the next (and the runner's campaigns and explorer check it: a write the
// fenced store accepts after a later lease's write is a stale write).
// Tokens compare by Major, then Minor.
type Token struct{ Major, Minor uint64 }

// Less reports whether t is below u.
func (t Token) Less(u Token) bool {
	return t.Major < u.Major || t.Major == u.Major && t.Minor < u.Minor
}

// BallotToken is the token of a lease chosen with ballot b in instance
// inst (0 for algorithms without instances).
func BallotToken(inst uint64, b Ballot) Token { return Token{Major: inst, Minor: uint64(b)} }

// TimeToken is a token read off a clock, such as the end of a lease on
// its holder's clock (the naive votes) or of a grant on the server's
// (central, with a Minor of its own): Major is until with its sign bit
// flipped, so tokens order as the times do, negative readings included.
func TimeToken(until Local) Token { return Token{Major: uint64(until) ^ 1<<63} }

// Time is the instant a token read off a clock (TimeToken) was read as:
// its Major with the sign bit flipped back.
func (t Token) Time() Local { return Local(t.Major ^ 1<<63) }

func (t Token) String() string {
	return strconv.FormatUint(t.Major, 10) + ":" + strconv.FormatUint(t.Minor, 10)
}

// Record is acceptor state that must be on stable storage before the
// messages of the same Output may be sent (classic Paxos only: etcd raft's
// MustSync rule). A restarted node gets its records back in Config.Recovered.
type Record struct {
	Resource ResourceID
	Instance uint64
	Promised Ballot
	Accepted Ballot
	Owner    NodeID
	Expiry   Local
}

// Output is what a node wants done after one Step. The runner performs it
// in this order: Persist (all records durable), then Msgs; Timers and
// Events take effect at once.
type Output struct {
	Persist []Record
	// NoSync: write Persist but do not wait for it to be synced before
	// sending Msgs (classic Paxos's "fsync" ablation). A crash then loses
	// whatever the disk had not synced.
	NoSync bool
	Msgs   []Message
	Timers []Timer
	Events []Event
}

// Reset empties o, keeping its buffers.
func (o *Output) Reset() {
	o.Persist = o.Persist[:0]
	o.NoSync = false
	o.Msgs = o.Msgs[:0]
	o.Timers = o.Timers[:0]
	o.Events = o.Events[:0]
}

// Send appends a message.
func (o *Output) Send(m Message) { o.Msgs = append(o.Msgs, m) }

// SetTimer asks for key to fire when the local clock reaches at.
func (o *Output) SetTimer(key TimerKey, at Local) {
	o.Timers = append(o.Timers, Timer{Key: key, At: at})
}

// CancelTimer forgets key.
func (o *Output) CancelTimer(key TimerKey) {
	o.Timers = append(o.Timers, Timer{Key: key, Cancel: true})
}

// Emit appends an event.
func (o *Output) Emit(e Event) { o.Events = append(o.Events, e) }

// Config is what a node is built from.
type Config struct {
	ID        NodeID
	Cluster   Cluster
	Params    Params
	Ablations Ablations
	// Rand is the node's seeded source for ballot jitter and backoff; the
	// runner derives it from the run's seed.
	Rand *rand.Rand
	// Restarts counts earlier starts of this node; it survives crashes (the
	// papers keep it on stable storage) and goes into every ballot.
	Restarts uint16
	// Recovered holds the records this node made durable before its last
	// crash, oldest first (classic Paxos).
	Recovered []Record
}

// Cluster says who takes part. Nodes are numbered 0..Nodes-1; nodes
// 0..Acceptors-1 are acceptors and nodes 0..Proposers-1 are proposers, so a
// node may be both. Learn and invalidation messages go to every node.
type Cluster struct {
	Nodes     int
	Acceptors int
	Proposers int
}

// NewCluster returns a cluster of max(acceptors, proposers) nodes.
func NewCluster(acceptors, proposers int) Cluster {
	n := acceptors
	if proposers > n {
		n = proposers
	}
	return Cluster{Nodes: n, Acceptors: acceptors, Proposers: proposers}
}

// Majority is the number of distinct acceptors that form a quorum.
func (c Cluster) Majority() int { return c.Acceptors/2 + 1 }

// IsAcceptor reports whether id is an acceptor.
func (c Cluster) IsAcceptor(id NodeID) bool { return int(id) < c.Acceptors }

// IsProposer reports whether id may propose.
func (c Cluster) IsProposer(id NodeID) bool { return int(id) < c.Proposers }

// Validate checks the cluster's shape.
func (c Cluster) Validate() error {
	switch {
	case c.Acceptors < 1:
		return fmt.Errorf("need at least 1 acceptor, got %d", c.Acceptors)
	case c.Proposers < 1:
		return fmt.Errorf("need at least 1 proposer, got %d", c.Proposers)
	case c.Nodes < c.Acceptors || c.Nodes < c.Proposers:
		return fmt.Errorf("cluster of %d nodes cannot hold %d acceptors and %d proposers", c.Nodes, c.Acceptors, c.Proposers)
	case c.Nodes >= int(NoNode):
		return fmt.Errorf("at most %d nodes, got %d", int(NoNode)-1, c.Nodes)
	}
	return nil
}

// Params are the protocol parameters shared by the algorithms. Each
// algorithm validates the ones it uses (see Algorithm.Validate) and says so
// in its error; nothing is silently clamped.
type Params struct {
	// LeaseSpan is T (naive, PaxosLease) or v (FaTLease, classic Paxos):
	// how long one acquisition or extension holds.
	LeaseSpan time.Duration `json:"lease_span_ns"`
	// MaxLease is M: no lease is longer; a restarted diskless node stays
	// silent this long (PaxosLease). T < M.
	MaxLease time.Duration `json:"max_lease_ns"`
	// DMax bounds the difference of any two clocks (FaTLease). v > DMax.
	DMax time.Duration `json:"dmax_ns"`
	// Drift bounds the clock rate error of any node, as a fraction (0.001 =
	// 1000 ppm). Holders end their lease a margin early to absorb it.
	Drift float64 `json:"drift_bound"`
	// ResponseTimeout: a phase that got no majority by then times out and
	// the round is retried (FaTLease Sec. 5: 1 s).
	ResponseTimeout time.Duration `json:"response_timeout_ns"`
	// MaxRounds: an acquisition is abandoned (a failed lease) after this many
	// rounds (FaTLease Sec. 5: 7).
	MaxRounds int `json:"max_rounds"`
	// Backoff is the upper bound of the random wait before a retry.
	Backoff time.Duration `json:"backoff_ns"`
}

// DefaultParams are the defaults of the command line.
func DefaultParams() Params {
	return Params{
		LeaseSpan:       5 * time.Second,
		MaxLease:        7 * time.Second,
		DMax:            500 * time.Millisecond,
		Drift:           0.001,
		ResponseTimeout: time.Second,
		MaxRounds:       7,
		Backoff:         100 * time.Millisecond,
	}
}

// Validate checks what every algorithm needs; Algorithm.Validate adds the
// algorithm's own constraints.
func (p Params) Validate() error {
	switch {
	case p.LeaseSpan <= 0:
		return fmt.Errorf("lease span must be positive, got %v", p.LeaseSpan)
	case p.MaxLease <= 0:
		return fmt.Errorf("max lease M must be positive, got %v", p.MaxLease)
	case p.DMax < 0:
		return fmt.Errorf("d_max must not be negative, got %v", p.DMax)
	case !(p.Drift >= 0 && p.Drift < 0.5): // NaN too
		return fmt.Errorf("drift bound must be in [0, 0.5), got %g", p.Drift)
	case p.ResponseTimeout <= 0:
		return fmt.Errorf("response timeout must be positive, got %v", p.ResponseTimeout)
	case p.MaxRounds < 1:
		return fmt.Errorf("max rounds must be at least 1, got %d", p.MaxRounds)
	case p.Backoff < 0:
		return fmt.Errorf("backoff must not be negative, got %v", p.Backoff)
	}
	return nil
}

// Ablations names the rules switched off for a run. Only membership is
// asked, so the order never leaks into results.
type Ablations []string

// MarshalJSON writes none as [] (not null), so readers see a list.
func (a Ablations) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(a))
}

// Has reports whether rule name is switched off.
func (a Ablations) Has(name string) bool {
	for _, s := range a {
		if s == name {
			return true
		}
	}
	return false
}

package udp

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/udp/wal"
	"leaselab/runner/udp/wire"
)

// A node process (`leaselab node`) runs one node of a cluster that spans
// processes or hosts. It is driven through its standard streams, which
// keeps the network socket for the protocol alone:
//
//   - stdin, one command per line: "acquire R", "extend R", "release R",
//     "stats", "quit" (R a resource number). End of input also quits.
//   - stdout, one JSON object per line: first {"type":"ready",...} once the
//     socket is bound and the node started, then {"type":"event",...} for
//     every event the node emits, {"type":"error",...} for a bad command,
//     and {"type":"stats",...} (datagrams dropped so far) after "stats"
//     and as the last line.
//
// Event lines carry the node's local time, the Until of the event and, so a
// driver on another clock can place the hold, RemainingNS = Until - local.

// ProcessConfig configures one node process.
type ProcessConfig struct {
	ID        algorithms.NodeID
	Listen    netip.AddrPort
	Peers     map[algorithms.NodeID]netip.AddrPort // every other node
	Algo      string
	Acceptors int // 0: every node
	Proposers int // 0: every node
	Params    algorithms.Params
	Ablations algorithms.Ablations
	Seed      uint64
	// Restarts is how often this node ran before. With StateDir set it
	// must be 0: the node reads and records it there (NextRestarts).
	Restarts uint16
	StateDir string
	// Net is the network the node emulates on send (emulated fields only).
	Net runner.NetSpec
	// DiskDir holds the log of a durable algorithm ("" means StateDir, or
	// without one a temporary directory, removed at exit).
	DiskDir string
	// KeyFile, if set, names a file holding the key the cluster shares
	// (ReadKeyFile): the node signs its datagrams and drops any that are
	// not signed with it or do not come from a peer's address.
	KeyFile string
	// ReusePort binds Listen with SO_REUSEPORT, beside the placeholder
	// with which the process that started the node holds the port while
	// the node is down (see listenFresh); without it another program could
	// take the port of a crashed node before it restarts. Two nodes started
	// by hand on one port would then share it, so only a supervisor that
	// holds the port sets it (Linux only; elsewhere ignored).
	ReusePort bool
	// Writes: the node writes to the protected store every Writes while
	// it holds a lease (procWriter; 0: no writes).
	Writes time.Duration
}

// ProcessLine is one line a node process writes.
type ProcessLine struct {
	Type     string `json:"type"` // ready, event, error
	Node     int    `json:"node"`
	Addr     string `json:"addr,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts,omitempty"` // ready: the restart counter of this life
	Event    string `json:"event,omitempty"`
	Resource uint64 `json:"resource,omitempty"`
	// Owner is set only where the event names one: the node itself for
	// acquired and lost, the grant's owner for granted and cleared. It is
	// a pointer so that node 0 is written ("owner":0) and an event without
	// an owner leaves the key out.
	Owner       *int              `json:"owner,omitempty"`
	Ballot      algorithms.Ballot `json:"ballot,omitempty"` // "round.restart.node"
	LocalNS     int64             `json:"local_ns,omitempty"`
	UntilNS     int64             `json:"until_ns,omitempty"`
	RemainingNS int64             `json:"remaining_ns,omitempty"`
	// TokenMajor, TokenMinor: a write line's fencing token (Event.Token of
	// the lease it was made under).
	TokenMajor uint64 `json:"token_major,omitempty"`
	TokenMinor uint64 `json:"token_minor,omitempty"`
	Error      string `json:"error,omitempty"`
	// Auth: ready, the node signs and checks datagrams (--key-file).
	Auth bool `json:"auth,omitempty"`
	// Stats: the stats line's counters.
	Stats *ProcessStats `json:"stats,omitempty"`
}

// ProcessStats are the counters of a stats line: datagrams the node
// dropped before its algorithm saw them (Meters.BadDatagrams and
// Meters.Unauthenticated).
type ProcessStats struct {
	BadDatagrams    int64 `json:"bad_datagrams"`
	Unauthenticated int64 `json:"unauthenticated"`
}

// ReadKeyFile reads a cluster key: the file's bytes, without the white
// space around them, at least wire.MinKeySize of them, from a file only
// its owner can read. They are used as
// they are (e.g. 64 hex digits are a 64-byte key).
func ReadKeyFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		// Whoever can read the key can forge any node's datagrams, as
		// ssh refuses a private key others can read.
		return nil, fmt.Errorf("key file %s can be read by others (mode %04o): give it mode 0600 (chmod 600 %s)", path, m, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	k := []byte(strings.TrimSpace(string(b)))
	if len(k) < wire.MinKeySize {
		return nil, fmt.Errorf("key file %s holds %d bytes, at least %d needed (e.g. 64 hex digits from a random source; leaselab cluster writes one)", path, len(k), wire.MinKeySize)
	}
	return k, nil
}

// WriteKeyFile writes a fresh random key (32 random bytes as 64 hex
// digits) to a new file path, readable by its owner only.
func WriteKeyFile(path string) error {
	var raw [32]byte
	if _, err := crand.Read(raw[:]); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "%s\n", hex.EncodeToString(raw[:])); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ParsePeers parses "0=127.0.0.1:7000,1=127.0.0.1:7001".
func ParsePeers(s string) (map[algorithms.NodeID]netip.AddrPort, error) {
	peers := map[algorithms.NodeID]netip.AddrPort{}
	if strings.TrimSpace(s) == "" {
		return peers, nil
	}
	for _, item := range strings.Split(s, ",") {
		id, addr, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("peer %q: want ID=HOST:PORT", item)
		}
		n, err := strconv.ParseUint(id, 10, 16)
		if err != nil || n >= uint64(algorithms.NoNode) {
			return nil, fmt.Errorf("peer %q: bad node id %q", item, id)
		}
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return nil, fmt.Errorf("peer %q: %v", item, err)
		}
		if _, dup := peers[algorithms.NodeID(n)]; dup {
			return nil, fmt.Errorf("peer %d given twice", n)
		}
		peers[algorithms.NodeID(n)] = ap
	}
	return peers, nil
}

type lineObs struct {
	lines chan ProcessLine
	w     *procWriter // nil: no writes
}

func (o *lineObs) Event(n *Node, _ int64, now algorithms.Local, ev algorithms.Event) {
	if o.w != nil {
		o.w.event(ev)
	}
	l := eventLine(n.id, now, ev)
	// A node never waits for its output: if the reader of stdout is too
	// slow, lines are lost rather than leases.
	select {
	case o.lines <- l:
	default:
	}
}

// eventLine is the line for event ev of node id at local time now.
func eventLine(id algorithms.NodeID, now algorithms.Local, ev algorithms.Event) ProcessLine {
	l := ProcessLine{Type: "event", Node: int(id), Event: ev.Kind.String(), Resource: uint64(ev.Resource),
		Ballot: ev.Ballot, LocalNS: int64(now)}
	if ev.Until != 0 {
		l.UntilNS = int64(ev.Until)
		l.RemainingNS = int64(ev.Until - now)
	}
	// The contract defines an event's owner for grants only; for acquired
	// and lost the holder is the node that emits them, whatever the
	// algorithm wrote in the field. Other events have no owner.
	owner := algorithms.NoNode
	switch ev.Kind {
	case algorithms.Acquired, algorithms.Lost:
		owner = id
	case algorithms.Granted, algorithms.Cleared:
		owner = ev.Owner
	}
	if owner != algorithms.NoNode {
		o := int(owner)
		l.Owner = &o
	}
	return l
}

// ProcessEpoch is the instant a node process's local clock reads 0.
var ProcessEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ProcessClock is the local clock of a node process: the wall clock at
// start, as nanoseconds since ProcessEpoch, advanced by the monotonic
// clock. FaTLease and classic Paxos compare absolute lease times across
// nodes and assume their clocks agree within d_max: processes on one host
// share the wall clock, hosts keep theirs close with NTP, and a restarted
// process reads the same time scale as its earlier life, whose recovered
// expiries it compares with its clock. (A clock that started at 0 with
// each process would put a restarted node behind the others by its whole
// earlier uptime.) Stepping the wall clock while a process runs does not
// affect it: only the start is read from the wall.
func ProcessClock() *Clock {
	start := time.Now()
	off := start.Round(0).Sub(ProcessEpoch).Nanoseconds()
	return &Clock{Start: start, Map: faults.NewClock(off, 0)}
}

// processIdentity reads the cluster key (nil without --key-file) and,
// with a state directory, counts this start in it (cfg.Restarts).
func processIdentity(cfg *ProcessConfig) (key []byte, err error) {
	if cfg.KeyFile != "" {
		if key, err = ReadKeyFile(cfg.KeyFile); err != nil {
			return nil, err
		}
	}
	if cfg.StateDir != "" {
		if cfg.Restarts != 0 {
			return nil, fmt.Errorf("give the restart counter either by hand (--restarts %d) or from a state directory (--state-dir %s), not both", cfg.Restarts, cfg.StateDir)
		}
		// Counted before the node can send anything: a life that ran is
		// never counted twice.
		if cfg.Restarts, err = NextRestarts(cfg.StateDir, cfg.ID); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// processListen binds the node's socket (beside the supervisor's
// placeholder with --reuse-port).
func processListen(cfg ProcessConfig) (*net.UDPConn, error) {
	var conn *net.UDPConn
	var err error
	if cfg.ReusePort {
		conn, err = listenNode(cfg.Listen)
	} else {
		conn, err = net.ListenUDP("udp", net.UDPAddrFromAddrPort(cfg.Listen))
	}
	if err != nil {
		return nil, fmt.Errorf("listen %v: %w", cfg.Listen, err)
	}
	return conn, nil
}

// RunProcess runs one node until ctx ends, stdin says "quit" or ends.
func RunProcess(ctx context.Context, cfg ProcessConfig, stdin io.Reader, stdout io.Writer) error {
	alg, err := algorithms.Lookup(cfg.Algo)
	if err != nil {
		return err
	}
	cl, peers, err := processCluster(&cfg)
	if err != nil {
		return err
	}
	if err := alg.ValidateConfig(cfg.Params, cl, cfg.Ablations); err != nil {
		return err
	}
	key, err := processIdentity(&cfg)
	if err != nil {
		return err
	}
	conn, err := processListen(cfg)
	if err != nil {
		return err
	}
	self := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	peers[cfg.ID] = self
	var st *wal.Log
	var recovered []algorithms.Record
	if alg.Durable {
		dir, cleanup, err := processLogDir(cfg)
		if err == nil {
			defer cleanup()
			st, recovered, err = OpenLog(dir, cfg.ID, true, false)
		}
		if err != nil {
			conn.Close()
			return err
		}
	}
	obs := &lineObs{lines: make(chan ProcessLine, 4096)}
	clock := ProcessClock()
	if cfg.Writes > 0 {
		obs.w = newProcWriter(cfg.Writes, clock, cfg.ID, obs.lines)
	}
	nc := NodeConfig{
		ID: cfg.ID, Algo: alg, Seed: cfg.Seed,
		Node: algorithms.Config{Cluster: cl, Params: cfg.Params, Ablations: cfg.Ablations, Restarts: cfg.Restarts,
			Recovered: recovered, Rand: rand.New(faults.NodeSource(cfg.Seed, cfg.ID, cfg.Restarts))},
		Conn: conn, Peers: peers, Clock: clock, Observer: obs,
		// The processes of a cluster send in no common order: each draws
		// from a stream of its own, the run's seed's Net stream for a seed
		// of the node's.
		Net: cfg.Net, Draws: NewNetDraws(cfg.Seed^uint64(cfg.ID)<<32^uint64(cfg.Restarts), cfg.Net),
		MaxDatagram: DefaultDatagram(peers),
		Key:         key,
	}
	if st != nil {
		nc.Storage = st
	}
	node, err := NewNode(nc)
	if err != nil {
		conn.Close()
		if st != nil {
			st.Close()
		}
		return err
	}
	// The ready line carries the local time read before the node starts,
	// so a driver can measure on the node's own clock how long a
	// restarted node stayed silent (its Joined event's local_ns minus this).
	_, started := clock.Now()
	node.Start()
	ready := ProcessLine{Type: "ready", Node: int(cfg.ID), Addr: self.String(), PID: os.Getpid(), Restarts: int(cfg.Restarts),
		LocalNS: int64(started), Auth: key != nil}
	return serveCommands(ctx, node, obs, ready, stdin, stdout)
}

// processCluster is the cluster a node process belongs to, from its peers
// (node ids 0..n-1, every other one listed), and the peers' addresses by
// id (its own is filled in once bound).
func processCluster(cfg *ProcessConfig) (algorithms.Cluster, []netip.AddrPort, error) {
	nodes := int(cfg.ID) + 1
	for id := range cfg.Peers {
		if id == cfg.ID {
			delete(cfg.Peers, id) // listing oneself among the peers is harmless
			continue
		}
		if int(id)+1 > nodes {
			nodes = int(id) + 1
		}
	}
	peers := make([]netip.AddrPort, nodes)
	for i := range peers {
		id := algorithms.NodeID(i)
		if id == cfg.ID {
			continue
		}
		ap, ok := cfg.Peers[id]
		if !ok {
			return algorithms.Cluster{}, nil, fmt.Errorf("no address for node %d (nodes are numbered 0..%d; give every other one in --peers)", i, nodes-1)
		}
		peers[i] = ap
	}
	cl := algorithms.Cluster{Nodes: nodes, Acceptors: cfg.Acceptors, Proposers: cfg.Proposers}
	if cl.Acceptors == 0 {
		cl.Acceptors = nodes
	}
	if cl.Proposers == 0 {
		cl.Proposers = nodes
	}
	return cl, peers, nil
}

// processLogDir is where a durable node process keeps its log, and what
// to do at exit (remove a temporary directory). A log that exists there
// is an earlier life of this node: the node recovers from it, and its
// ballots must not repeat that life's, so it needs a higher restart
// counter.
func processLogDir(cfg ProcessConfig) (string, func(), error) {
	dir := cfg.DiskDir
	if dir == "" {
		// A node that keeps its restart counter keeps its log beside it: a
		// second life must find the first one's promises.
		dir = cfg.StateDir
	}
	cleanup := func() {}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "leaselab-node-"); err != nil {
			return "", cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
	}
	if fi, err := os.Stat(LogPath(dir, cfg.ID)); err == nil && fi.Size() > 0 && cfg.Restarts == 0 {
		cleanup()
		return "", func() {}, fmt.Errorf("%s holds the log of an earlier run of node %d: give --restarts (one more than that run's) or a --state-dir that counted its starts to recover from it, or use another --disk-dir", dir, cfg.ID)
	}
	return dir, cleanup, nil
}

// serveCommands writes the node's lines to stdout (ready first) and
// hands it the commands read from stdin until ctx ends, stdin says "quit"
// or ends; then it stops the node and writes the last stats line.
func serveCommands(ctx context.Context, node *Node, obs *lineObs, ready ProcessLine, stdin io.Reader, stdout io.Writer) error {
	defer node.Stop()
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for l := range obs.lines {
			enc.Encode(l)
			if len(obs.lines) == 0 {
				out.Flush() // a driver waits for these lines: do not sit on them
			}
		}
		out.Flush()
	}()
	obs.lines <- ready
	stats := func() ProcessLine {
		bad, unauth := node.Rejected()
		return ProcessLine{Type: "stats", Node: int(node.id), Stats: &ProcessStats{BadDatagrams: bad, Unauthenticated: unauth}}
	}
	cmds := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			cmds <- sc.Text()
		}
		close(cmds)
	}()
	defer func() {
		node.Stop()
		if obs.w != nil {
			obs.w.stop() // no write line after this
		}
		obs.lines <- stats() // the writer drains the channel: this cannot block for long
		close(obs.lines)
		<-writerDone
	}()
	for {
		select {
		case <-ctx.Done():
			return node.Err()
		case line, ok := <-cmds:
			if !ok {
				return node.Err()
			}
			if strings.TrimSpace(line) == "stats" {
				obs.lines <- stats()
				continue
			}
			in, quit, err := parseCommand(line)
			switch {
			case quit:
				return node.Err()
			case err != nil:
				obs.lines <- ProcessLine{Type: "error", Node: int(node.id), Error: err.Error()}
			case in != nil:
				node.Submit(*in)
			}
		}
	}
}

func parseCommand(line string) (*algorithms.Input, bool, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil, false, nil
	}
	if f[0] == "quit" && len(f) == 1 {
		return nil, true, nil
	}
	kinds := map[string]algorithms.InputKind{"acquire": algorithms.Acquire, "extend": algorithms.Extend, "release": algorithms.Relinquish}
	k, ok := kinds[f[0]]
	if !ok {
		return nil, false, fmt.Errorf("unknown command %q (acquire R, extend R, release R, stats, quit)", f[0])
	}
	if len(f) != 2 {
		return nil, false, fmt.Errorf("%s needs exactly one resource number", f[0])
	}
	r, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return nil, false, fmt.Errorf("%s: bad resource %q", f[0], f[1])
	}
	return &algorithms.Input{Kind: k, Resource: algorithms.ResourceID(r)}, false, nil
}

package udp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/faults"
)

// ClusterConfig describes a cluster whose nodes all run in this process,
// each with its own socket and event loop, sharing one monotonic clock
// (true time) so that the checker can compare their hold intervals.
type ClusterConfig struct {
	Algo      string
	Cluster   algorithms.Cluster
	Params    algorithms.Params
	Ablations algorithms.Ablations
	Seed      uint64
	// Addr is the address every node binds (port chosen by the kernel);
	// the zero value means 127.0.0.1.
	Addr netip.Addr
	// MaxDatagram: 0 picks DefaultDatagram.
	MaxDatagram int
	Net         Netem
	// Skew and Drift give each node a local clock offset uniform in
	// [-Skew/2, Skew/2] and a rate error uniform in [-Drift, Drift], drawn
	// from Seed (as the simulator does).
	Skew  time.Duration
	Drift float64
	// DiskDir holds the log files of durable algorithms (an earlier log
	// of the same node there is removed: the cluster starts empty); ""
	// means a new temporary directory, removed by Stop.
	DiskDir string
	// SyncEach turns group commit off (one fsync per persisting step).
	SyncEach bool
	// Background runs a background disk writer in DiskDir (or the
	// temporary directory) from before the nodes start until Stop, for
	// any algorithm (see StartBackground).
	Background bool
	Observer   Observer
	// Key, if set, makes the nodes sign and check every datagram
	// (NodeConfig.Key).
	Key []byte
}

// Cluster is a running in-process cluster.
type Cluster struct {
	Nodes   []*Node
	Clock   Clock // the shared base clock: true time
	tempDir string
	bg      *Background
	bgStats BackgroundStats
}

// StartCluster binds one socket per node, builds the algorithm's nodes and
// starts them.
func StartCluster(cfg ClusterConfig) (*Cluster, error) {
	alg, err := algorithms.Lookup(cfg.Algo)
	if err != nil {
		return nil, err
	}
	if err := alg.ValidateConfig(cfg.Params, cfg.Cluster, cfg.Ablations); err != nil {
		return nil, err
	}
	if cfg.Skew < 0 || cfg.Drift < 0 || cfg.Drift >= 0.5 {
		return nil, fmt.Errorf("udp: skew %v and drift %g must be non-negative (drift < 0.5)", cfg.Skew, cfg.Drift)
	}
	addr := cfg.Addr
	if !addr.IsValid() {
		addr = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	n := cfg.Cluster.Nodes
	c := &Cluster{Clock: Clock{Start: time.Now()}}
	conns := make([]*net.UDPConn, n)
	peers := make([]netip.AddrPort, n)
	cleanup := func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
		if c.bg != nil {
			c.bg.Stop()
		}
		if c.tempDir != "" {
			os.RemoveAll(c.tempDir)
		}
	}
	for i := range conns {
		cn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("udp: bind node %d: %w", i, err)
		}
		conns[i] = cn
		peers[i] = cn.LocalAddr().(*net.UDPAddr).AddrPort()
	}
	dir := cfg.DiskDir
	if (alg.Durable || cfg.Background) && dir == "" {
		if c.tempDir, err = os.MkdirTemp("", "leaselab-udp-"); err != nil {
			cleanup()
			return nil, err
		}
		dir = c.tempDir
	}
	if cfg.Background {
		if c.bg, err = StartBackground(BackgroundConfig{Dir: dir}); err != nil {
			cleanup()
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x636c6f636b))
	for i := 0; i < n; i++ {
		clk := &Clock{Start: c.Clock.Start, Map: drawClock(rng, cfg.Skew, cfg.Drift)}
		nc := NodeConfig{
			ID:          algorithms.NodeID(i),
			Algo:        alg,
			Node:        algorithms.Config{Cluster: cfg.Cluster, Params: cfg.Params, Ablations: cfg.Ablations},
			Seed:        cfg.Seed,
			Conn:        conns[i],
			Peers:       peers,
			Clock:       clk,
			MaxDatagram: cfg.MaxDatagram,
			Net:         cfg.Net,
			SyncEach:    cfg.SyncEach,
			Observer:    cfg.Observer,
			Key:         cfg.Key,
		}
		if alg.Durable {
			st, _, err := OpenLog(dir, algorithms.NodeID(i), !cfg.SyncEach, true)
			if err != nil {
				c.stopNodes()
				cleanup()
				return nil, err
			}
			nc.Storage = st
		}
		node, err := NewNode(nc)
		if err != nil {
			if nc.Storage != nil {
				nc.Storage.Close()
			}
			c.stopNodes()
			cleanup()
			return nil, err
		}
		c.Nodes = append(c.Nodes, node)
	}
	for _, node := range c.Nodes {
		node.Start()
	}
	return c, nil
}

// drawClock draws a node's clock: offset uniform in [-skew/2, skew/2],
// rate error uniform in [-drift, drift].
func drawClock(rng *rand.Rand, skew time.Duration, drift float64) faults.Clock {
	var off int64
	var rate float64
	if skew > 0 {
		off = rng.Int64N(int64(skew)+1) - int64(skew)/2
	}
	if drift > 0 {
		rate = (2*rng.Float64() - 1) * drift
	}
	return faults.NewClock(off, rate)
}

func (c *Cluster) stopNodes() {
	for _, n := range c.Nodes {
		started := n.timer != nil
		n.Stop()
		if !started && n.cfg.Storage != nil {
			n.cfg.Storage.Close() // a started node's loop closes it
		}
	}
}

// Stop stops every node and removes a temporary disk directory. It returns
// the first error a node met.
func (c *Cluster) Stop() error {
	var errs []error
	if c.bg != nil {
		// Its rate is the one while the cluster worked, so it stops first.
		var err error
		c.bgStats, err = c.bg.Stop()
		if err != nil {
			errs = append(errs, err)
		}
	}
	c.stopNodes()
	for _, n := range c.Nodes {
		if n.err != nil {
			errs = append(errs, n.err)
		}
	}
	if c.tempDir != "" {
		os.RemoveAll(c.tempDir)
	}
	return errors.Join(errs...)
}

// Background is what the background writer did (zero without one); call
// after Stop.
func (c *Cluster) Background() BackgroundStats { return c.bgStats }

// Meters sums the nodes' counters; call after Stop.
func (c *Cluster) Meters() Meters {
	var m Meters
	for _, n := range c.Nodes {
		addMeters(&m, n.Meters())
	}
	return m
}

package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner/udp"
)

func init() {
	register(command{
		name:    "node",
		summary: "run one node of a cluster that spans processes or hosts (UDP)",
		usage:   "--id I --listen ADDR --peers ID=ADDR,... --algo NAME [flags]",
		long: `Runs one node: its own UDP socket at --listen, its own monotonic clock, the
algorithm's state machine. --peers lists the address of every other node
(ID=HOST:PORT, comma-separated; nodes are numbered 0..N-1 and N is the
highest id + 1). All nodes of a cluster must be given the same --algo,
--acceptors, --proposers and protocol flags.

Client commands come on standard input, one per line:
  acquire R | extend R | release R | stats | quit
(R a resource number; end of input also quits). The node prints one JSON
object per line on standard output: {"type":"ready",...} once it runs
(with its restart counter),
then {"type":"event","event":"acquired","resource":R,"owner":I,"ballot":B,
"local_ns":...,"until_ns":...,"remaining_ns":...} and the like for every
event, {"type":"error",...} for a bad command. "owner" is present exactly
when the event has one (acquired and lost: this node; granted and cleared:
the grant's owner), so node 0 shows as "owner":0. With --writes D the
node writes to a protected store while it holds a lease: every D, after a
check that the lease had D to run, a line {"type":"write","resource":R,
"token_major":M,"token_minor":m,"local_ns":...} with the lease's fencing
token ('leaselab cluster' is the store). "stats" prints
{"type":"stats","stats":{"bad_datagrams":B,"unauthenticated":U}}, the
datagrams dropped so far; the node prints a stats line as its last line too.

Without a key a node reads whatever datagram reaches its port and trusts
the sender it names: anyone who can send to it can forge a Release or a
Propose and break the lease invariant. With --key-file F (the same file on
every node; 'leaselab cluster' makes one) the node signs every datagram
with HMAC-SHA256 over its header and messages and drops, counted in
unauthenticated, every datagram without a valid signature or from an
address other than the --peers entry of the node it names; malformed ones
are counted in bad_datagrams. A signed datagram can still be captured and
sent again from the right address spoofed (see the README). remaining_ns lets a driver
on another clock place the hold; 'leaselab cluster' is such a driver.

The restart counter goes into the node's ballots, and a diskless node that
restarted stays silent for M (--max-lease) before it answers or proposes.
Give it by hand with --restarts, or let the node keep it: with --state-dir
it reads how often it started from DIR/nodeI.restarts, records one more
start there (fsync) before it sends anything, and uses the old count.`,
		setup: setupNode,
	})
}

func setupNode(fs *pflag.FlagSet) action {
	var (
		cfg    udp.ProcessConfig
		id     = fs.Int("id", -1, "this node's id (0..N-1); required")
		listen = fs.String("listen", "127.0.0.1:0", "UDP address to listen on")
		peers  = fs.String("peers", "", "every other node as ID=HOST:PORT, comma-separated")
		// spec holds the node's parameters (udp.ProcessParams), with the
		// node's defaults: every node an acceptor and a proposer, no
		// emulated delay or loss.
		spec = udp.ProcessConfig{Algo: "paxoslease", Params: algorithms.DefaultParams(), Seed: 1}.Spec()
	)
	addNamedFlags(fs, &spec, udp.ProcessParams...)
	for _, n := range []string{"acceptors", "proposers"} {
		fs.Lookup(n).Usage += "; 0: every node"
	}
	fs.Lookup("disk-dir").Usage = "durable algorithms: directory of the log (default: --state-dir, else a temporary directory)"
	restarts := fs.Uint16("restarts", 0, "how often this node ran before (goes into its ballots; a restarted diskless node waits M); or use --state-dir")
	fs.StringVar(&cfg.StateDir, "state-dir", "", "directory where the node counts its own starts (file nodeI.restarts, synced before it runs) instead of --restarts")
	fs.StringVar(&cfg.KeyFile, "key-file", "", "sign and check every datagram with the cluster key in this file (at least 16 bytes; white space around them is ignored)")
	fs.BoolVar(&cfg.ReusePort, "reuse-port", false, "bind --listen with SO_REUSEPORT, beside the placeholder with which the supervisor (leaselab cluster) holds a crashed node's port until it restarts (Linux); two nodes started by hand on one port would share it, so leave it off otherwise")
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		if !fs.Changed("id") {
			return usagef("--id is required: this node's number, 0..N-1")
		}
		if *id < 0 || *id >= int(algorithms.NoNode) {
			return usagef("--id must be a node number in [0, %d), got %d", int(algorithms.NoNode), *id)
		}
		ap, err := netip.ParseAddrPort(*listen)
		if err != nil {
			return usagef("--listen: %v", err)
		}
		ps, err := udp.ParsePeers(*peers)
		if err != nil {
			return usagef("--peers: %v", err)
		}
		if len(ps) == 0 {
			return usagef("--peers must list at least one other node")
		}
		cfg.SetSpec(spec)
		cfg.ID = algorithms.NodeID(*id)
		cfg.Listen = ap
		cfg.Peers = ps
		if fs.Changed("restarts") && cfg.StateDir != "" {
			return usagef("give either --restarts or --state-dir, not both")
		}
		cfg.Restarts = *restarts
		if cfg.KeyFile != "" {
			if _, err := udp.ReadKeyFile(cfg.KeyFile); err != nil {
				return badInput(err)
			}
		}
		if err := udp.ValidNet(cfg.Net); err != nil {
			return badInput(err)
		}
		if cfg.Writes < 0 {
			return badInput(fmt.Errorf("--writes must not be negative, got %v", cfg.Writes))
		}
		sctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return udp.RunProcess(sctx, cfg, os.Stdin, c.stdout)
	}
}

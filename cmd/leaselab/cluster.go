package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/udp"
)

func init() {
	register(command{
		name:    "cluster",
		summary: "start N local node processes and run the failover workload against them",
		usage:   "--nodes N --algo NAME [flags]",
		long: `Starts N 'leaselab node' processes on 127.0.0.1 (this same binary), waits
until all run, then: node 0 acquires resource 1 and extends it --extensions
times, --renew-before ahead of expiry; then its process is killed (SIGKILL)
while its lease is alive, and nodes 1..--contenders try to acquire the
resource until one holds it. The other processes keep running. With
--restart, node 0 is then started again: every process counts its starts in
a state directory ('leaselab node --state-dir'), so its second life has
restart counter 1, and a diskless algorithm must keep it silent for M
(FaTLease: v + d_max) before it joins; the output says how long it was
silent, on its own clock.

The nodes share a fresh random key (written to a temporary file, readable
by this user only, removed at the end) and sign every datagram with it
('leaselab node --key-file'); --key=false runs them without.

The lease-invariant checker runs on the driver's clock: each node reports
the time left on its lease; a hold is dated from the moment the driver reads
the report to that moment + the time left + --slack (reports reach the
driver in far less than the slack on one machine), so overlaps are found
conservatively. Output: the failover gap (kill to the next acquisition), how
much of the killed holder's lease was left, and the violations found.
Exit status 1 if no node took over or a violation was found.`,
		setup: setupCluster,
	})
}

func setupCluster(fs *pflag.FlagSet) action {
	spec := runner.DefaultSpec()
	spec.Params.LeaseSpan = 2 * time.Second
	spec.Params.MaxLease = 3 * time.Second
	spec.Params.ResponseTimeout = 200 * time.Millisecond
	spec.Params.Backoff = 50 * time.Millisecond
	spec.RenewBefore = 500 * time.Millisecond
	var (
		nodes      = fs.Int("nodes", 3, "number of node processes (all acceptors and proposers; at least 3, so that a majority is left after the kill)")
		extensions = fs.Int("extensions", 2, "how often node 0 extends before it is killed")
		contenders = fs.Int("contenders", 1, "how many of the surviving nodes try to take over")
		slack      = fs.Duration("slack", 5*time.Millisecond, "added to every inferred hold end (see above)")
		limit      = fs.Duration("limit", 60*time.Second, "give up after this long")
		verbose    = fs.Bool("verbose", false, "log what the driver does on stderr")
		restart    = fs.Bool("restart", false, "after the takeover, start node 0 again and measure its silence before it joins")
		sign       = fs.Bool("key", true, "give the nodes a fresh shared key: they sign every datagram and drop unsigned or foreign ones")
	)
	addNamedFlags(fs, &spec, "algo", "ablate", "renew-before", "seed")
	addGroupFlags(fs, &spec, runner.GroupProtocol)
	format := addFormatFlag(fs, "table", "json")
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v", args)
		}
		if err := udp.FailoverNodesError(*nodes); err != nil {
			return badInput(fmt.Errorf("--nodes: %w", err))
		}
		alg, err := algorithms.Lookup(spec.Algo)
		if err != nil {
			return badInput(err)
		}
		if err := alg.ValidateConfig(spec.Params, algorithms.NewCluster(*nodes, *nodes), spec.Ablate); err != nil {
			return badInput(err)
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cfg := udp.FailoverConfig{
			Nodes:       *nodes,
			Node:        udp.ProcessConfig{Algo: spec.Algo, Params: spec.Params, Ablations: spec.Ablate, Seed: spec.Seed},
			Command:     func(pc udp.ProcessConfig) *exec.Cmd { return exec.Command(exe, nodeArgs(pc)...) },
			Extensions:  *extensions,
			RenewBefore: spec.RenewBefore,
			Contenders:  *contenders,
			Slack:       *slack,
			Limit:       *limit,
			Restart:     *restart,
			Stderr:      c.stderr,
		}
		if *verbose {
			cfg.Log = c.stderr
		}
		if *sign {
			dir, err := os.MkdirTemp("", "leaselab-key-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			cfg.Node.KeyFile = filepath.Join(dir, "cluster.key")
			if err := udp.WriteKeyFile(cfg.Node.KeyFile); err != nil {
				return err
			}
		}
		res, err := udp.Failover(context.Background(), cfg)
		if err != nil {
			return err
		}
		if *format == "json" {
			if err := writeJSON(c.stdout, res); err != nil {
				return err
			}
		} else {
			rows := [][]string{
				{"algo", res.Algo},
				{"nodes", strconv.Itoa(res.Nodes)},
				{"extensions before kill", strconv.Itoa(res.Extensions)},
				{"killed pid", strconv.Itoa(res.KilledPID)},
				{"lease left at kill", fmt.Sprintf("%.1f ms", res.RemainingAtKillMS)},
				{"next owner", strconv.Itoa(res.NextOwner)},
				{"failover gap", fmt.Sprintf("%.1f ms", res.GapMS)},
				{"lease span T / max lease M", fmt.Sprintf("%.0f / %.0f ms", res.LeaseSpanMS, res.MaxLeaseMS)},
				{"survivors alive", strconv.FormatBool(res.SurvivorsAlive)},
				{"violations", strconv.Itoa(res.Violations)},
				{"slack", fmt.Sprintf("%.1f ms", res.SlackMS)},
				{"signed datagrams", strconv.FormatBool(res.Signed)},
			}
			if res.Restarted {
				silent := fmt.Sprintf("%.1f ms", res.QuarantineMS)
				if alg.Durable {
					silent = "0 (recovered from its log)"
				}
				rows = append(rows,
					[]string{"node 0 restart counter", strconv.Itoa(res.RestartCounter)},
					[]string{"node 0 silent after restart", silent})
			}
			if err := writeTable(c.stdout, []string{"metric", "value"}, rows); err != nil {
				return err
			}
		}
		if res.NextOwner < 0 || res.Violations > 0 {
			return exitStatus(1)
		}
		return nil
	}
}

// nodeArgs is the command line of `leaselab node` for pc.
func nodeArgs(pc udp.ProcessConfig) []string {
	var peers []string
	for id, ap := range pc.Peers {
		if id != pc.ID {
			peers = append(peers, fmt.Sprintf("%d=%s", id, ap))
		}
	}
	args := append([]string{"node",
		"--id", strconv.Itoa(int(pc.ID)),
		"--listen", pc.Listen.String(),
		"--peers", strings.Join(peers, ","),
	}, udp.ProcessArgs(pc)...)
	if pc.StateDir != "" {
		args = append(args, "--state-dir", pc.StateDir)
	}
	if pc.KeyFile != "" {
		args = append(args, "--key-file", pc.KeyFile)
	}
	return args
}

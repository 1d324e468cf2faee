package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/udp"
	"leaselab/runner/workload"
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

With --pause D, node 0's process is not killed but stopped (SIGSTOP) for D
and then let go on (SIGCONT), as a garbage-collection pause or a VM freeze
stops a process: its lease runs out while it is stopped, another node
takes over, and when node 0 runs again it does what it was doing. Every
node writes to a protected store (this process) every --writes while it
holds a lease, each write after a check that the lease had that long to
run: a write node 0 checked before its pause goes out after it, under its
old lease's fencing token. With --store plain the store accepts it, a
stale write over the new holder's; with --store fenced it rejects it, the
new holder's token being higher. The output adds the store's counts
(writes, stale_writes, fenced_rejects) and double_belief_ms, the time in
which two nodes believed they held (node 0 until it ran again).

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
		nodes      = fs.Int("nodes", 3, "number of node processes (all acceptors; node 0 and the contenders propose; at least 3, so that a majority is left after the kill)")
		extensions = fs.Int("extensions", 2, "how often node 0 extends before it is killed")
		contenders = fs.Int("contenders", 1, "how many of the surviving nodes try to take over")
		slack      = fs.Duration("slack", 5*time.Millisecond, "added to every inferred hold end (see above)")
		limit      = fs.Duration("limit", 60*time.Second, "give up after this long")
		verbose    = fs.Bool("verbose", false, "log what the driver does on stderr")
		restart    = fs.Bool("restart", false, "after the takeover, start node 0 again and measure its silence before it joins")
		sign       = fs.Bool("key", true, "give the nodes a fresh shared key: they sign every datagram and drop unsigned or foreign ones")
		pause      = fs.Duration("pause", 0, "stop node 0's process (SIGSTOP) for this long instead of killing it, then let it go on (SIGCONT)")
	)
	spec.Writes = 100 * time.Millisecond
	addNamedFlags(fs, &spec, "algo", "ablate", "renew-before", "seed", "writes", "store")
	addGroupFlags(fs, &spec, runner.GroupProtocol)
	format := addFormatFlag(fs, "table", "json")
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		if err := udp.FailoverNodesError(*nodes); err != nil {
			return badInput(fmt.Errorf("--nodes: %w", err))
		}
		// The failover workload on node processes: nodes acceptors, node 0
		// and the contenders proposers, the run bounded by --limit.
		spec.Env, spec.Workload = "udp", "failover"
		spec.Acceptors, spec.Proposers = *nodes, *contenders+1
		spec.Duration = *limit
		spec.Net = runner.NetSpec{} // the real loopback, no emulation
		if err := checkClusterFlags(*nodes, *contenders, *pause, *limit, *restart); err != nil {
			return err
		}
		plan, err := resolveCluster(spec)
		if err != nil {
			return err
		}
		if spec.RenewBefore <= 0 || spec.RenewBefore >= spec.Params.LeaseSpan {
			return badInput(fmt.Errorf("renew-before %v must be in (0, lease span %v)", spec.RenewBefore, spec.Params.LeaseSpan))
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		procs := &udp.Processes{
			Command: func(pc udp.ProcessConfig) *exec.Cmd { return exec.Command(exe, nodeArgs(pc)...) },
			Slack:   *slack,
			Plan:    &workload.FailoverPlan{Extensions: *extensions, Restart: *restart, Linger: spec.Params.LeaseSpan / 2, Pause: *pause},
			Stderr:  c.stderr,
		}
		if *verbose {
			procs.Log = c.stderr
		}
		if *sign {
			dir, err := os.MkdirTemp("", "leaselab-key-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			procs.KeyFile = filepath.Join(dir, "cluster.key")
			if err := udp.WriteKeyFile(procs.KeyFile); err != nil {
				return err
			}
		}
		return runCluster(c, plan, procs, *format)
	}
}

// checkClusterFlags checks the flags that shape the failover.
func checkClusterFlags(nodes, contenders int, pause, limit time.Duration, restart bool) error {
	switch {
	case contenders < 1 || contenders >= nodes:
		return badInput(fmt.Errorf("contenders must be in [1, %d], got %d", nodes-1, contenders))
	case pause < 0:
		return badInput(fmt.Errorf("--pause must not be negative, got %v", pause))
	case pause > 0 && restart:
		return badInput(fmt.Errorf("--pause stops node 0 and lets it go on; --restart restarts a killed node 0: give one of them"))
	case pause > 0 && pause+10*time.Second > limit:
		return badInput(fmt.Errorf("--pause %v leaves too little of --limit %v for the takeover and the resume (want at least 10s more)", pause, limit))
	}
	return nil
}

// resolveCluster resolves the cluster's spec; an algorithm that needs a
// single acceptor is told so in cluster's terms (its own message names
// run's --acceptors, which cluster does not have).
func resolveCluster(spec runner.Spec) (runner.Plan, error) {
	plan, err := runner.Resolve(spec)
	if err != nil {
		one := spec
		one.Acceptors = 1
		if _, err1 := runner.Resolve(one); err1 == nil {
			return plan, badInput(fmt.Errorf("%s needs a single acceptor, and cluster makes each of its --nodes (at least 3) one: try leaselab run --algo %s --env udp --acceptors 1 --workload failover", spec.Algo, spec.Algo))
		}
		return plan, badInput(err)
	}
	return plan, nil
}

// runCluster runs the failover on node processes and prints what it
// measured.
func runCluster(c *ctx, plan runner.Plan, procs *udp.Processes, format string) error {
	spec := plan.Spec
	r, ex, err := udp.RunPlan(plan, runner.Options{}, udp.EnvOptions{Processes: procs})
	if errors.Is(err, runner.ErrBadSpec) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	res := newClusterResult(spec, r, ex, procs)
	res.Meta = c.meta()
	if format == "json" {
		if err := writeJSON(c.stdout, res); err != nil {
			return err
		}
	} else {
		rows := [][]string{
			{"algo", res.Algo},
			{"nodes", strconv.Itoa(res.Nodes)},
			{"extensions before kill", strconv.Itoa(res.Extensions)},
			{"killed pid", strconv.Itoa(res.KilledPID)},
			{"paused pid", strconv.Itoa(res.PausedPID)},
			{"pause", fmt.Sprintf("%.0f ms", res.PauseMS)},
			{"lease left at kill", fmt.Sprintf("%.1f ms", res.RemainingAtKillMS)},
			{"next owner", strconv.Itoa(res.NextOwner)},
			{"failover gap", fmt.Sprintf("%.1f ms", res.GapMS)},
			{"lease span T / max lease M", fmt.Sprintf("%.0f / %.0f ms", res.LeaseSpanMS, res.MaxLeaseMS)},
			{"survivors alive", strconv.FormatBool(res.SurvivorsAlive)},
			{"violations", strconv.Itoa(res.Violations)},
			{"slack", fmt.Sprintf("%.1f ms", res.SlackMS)},
			{"signed datagrams", strconv.FormatBool(res.Signed)},
			{"store", res.Store},
			{"writes", strconv.FormatInt(res.Writes, 10)},
			{"stale writes", strconv.FormatInt(res.StaleWrites, 10)},
			{"fenced rejects", strconv.FormatInt(res.FencedRejects, 10)},
			{"double belief", fmt.Sprintf("%.1f ms", res.DoubleBeliefMS)},
		}
		if res.Restarted {
			silent := fmt.Sprintf("%.1f ms", res.QuarantineMS)
			if plan.Algo.Durable {
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

// clusterResult is what `leaselab cluster` reports (--format json), every
// key always present.
type clusterResult struct {
	Meta *runner.Meta `json:"meta"`
	// Params: the spec the failover ran (udp, failover workload, the
	// protocol parameters, the store); the keys below are its outcome.
	Params      runner.Spec       `json:"params"`
	Nodes       int               `json:"nodes"`
	Algo        string            `json:"algo"`
	Contenders  int               `json:"contenders"`
	FirstOwner  int               `json:"first_owner"`
	Extensions  int               `json:"extensions"`
	KilledPID   int               `json:"killed_pid"`
	NextOwner   int               `json:"next_owner"`
	GapMS       runner.OptionalMS `json:"failover_gap_ms"` // kill to the next owner's acquisition (null if none)
	LeaseSpanMS float64           `json:"lease_span_ms"`
	MaxLeaseMS  float64           `json:"max_lease_ms"`
	// RemainingAtKillMS: how much of the killed holder's last lease was
	// left, by its own report, when it was killed.
	RemainingAtKillMS float64            `json:"remaining_at_kill_ms"`
	Acquisitions      int                `json:"acquisitions"`
	Violations        int                `json:"violations"`
	ViolationList     []runner.Violation `json:"violation_list"`
	SurvivorsAlive    bool               `json:"survivors_alive"`
	SlackMS           float64            `json:"slack_ms"`
	// Signed: the nodes signed and checked their datagrams (--key).
	Signed bool `json:"signed"`
	// With --pause: node 0's process and how long it was stopped.
	PausedPID int     `json:"paused_pid"`
	PauseMS   float64 `json:"pause_ms"`
	// The protected store (runner.Result's meters of the same names).
	Store          string  `json:"store"`
	WritePeriodMS  float64 `json:"write_period_ms"`
	Writes         int64   `json:"writes"`
	StaleWrites    int64   `json:"stale_writes"`
	FencedRejects  int64   `json:"fenced_rejects"`
	DoubleBeliefMS float64 `json:"double_belief_ms"`
	// With --restart: node 0's restart counter in its second life, and
	// how long it stayed silent (udp.ClusterExtra).
	Restarted      bool    `json:"restarted"`
	RestartCounter int     `json:"restart_counter"`
	QuarantineMS   float64 `json:"quarantine_ms"`
}

func newClusterResult(s runner.Spec, r runner.Result, ex udp.Extra, p *udp.Processes) clusterResult {
	c := ex.Cluster
	slack := p.Slack
	if slack == 0 {
		slack = 5 * time.Millisecond
	}
	vl := r.ViolationList
	if vl == nil {
		vl = []runner.Violation{}
	}
	return clusterResult{Params: s, Nodes: s.Acceptors, Algo: s.Algo, Contenders: s.Proposers - 1, Extensions: c.Extensions,
		KilledPID: c.KilledPID, NextOwner: c.NextOwner, GapMS: r.FailoverGapMS,
		LeaseSpanMS: ms(s.Params.LeaseSpan), MaxLeaseMS: ms(s.Params.MaxLease), RemainingAtKillMS: c.RemainingAtKillMS,
		Acquisitions: c.Acquisitions, Violations: r.Violations, ViolationList: vl,
		SurvivorsAlive: c.SurvivorsAlive, SlackMS: ms(slack), Signed: p.KeyFile != "",
		Restarted: c.Restarted, RestartCounter: c.RestartCounter, QuarantineMS: c.QuarantineMS,
		PausedPID: c.PausedPID, PauseMS: c.PauseMS, Store: s.Store, WritePeriodMS: ms(s.Writes),
		Writes: r.Writes, StaleWrites: r.StaleWrites, FencedRejects: r.FencedRejects, DoubleBeliefMS: r.DoubleBeliefMS}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

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
	if pc.ReusePort {
		args = append(args, "--reuse-port")
	}
	return args
}

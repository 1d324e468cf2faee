package main

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/udp"
)

// Every parameter of the table is a flag of run, with the table's help
// and type, and setting it by flag sets what Param.Set sets.
func TestFlagsFromTable(t *testing.T) {
	pflagType := map[string]string{"string": "string", "strings": "stringSlice", "int": "int", "int64": "int64",
		"uint64": "uint64", "float": "float64", "bool": "bool", "duration": "duration"}
	values := map[string]string{"string": "x", "strings": "a,b", "int": "9", "int64": "77", "uint64": "5",
		"float": "0.0625", "bool": "false", "duration": "3.5ms"}
	for _, p := range runner.Params() {
		got := runner.DefaultSpec()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		addSpecFlags(fs, &got)
		f := fs.Lookup(p.Name)
		if f == nil {
			t.Errorf("parameter %s has no flag", p.Name)
			continue
		}
		if f.Usage != p.Usage() || f.Value.Type() != pflagType[p.Type()] {
			t.Errorf("--%s: usage %q type %s, want the table's (%s)", p.Name, f.Usage, f.Value.Type(), p.Type())
		}
		if p.Type() != "strings" && f.DefValue != p.Format(runner.DefaultSpec()) {
			t.Errorf("--%s: default %q, table's %q", p.Name, f.DefValue, p.Format(runner.DefaultSpec()))
		}
		v := values[p.Type()]
		if err := fs.Parse([]string{"--" + p.Name + "=" + v}); err != nil {
			t.Errorf("--%s=%s: %v", p.Name, v, err)
			continue
		}
		want := runner.DefaultSpec()
		if err := p.Set(&want, v); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s=%s set\n%+v\nwant\n%+v", p.Name, v, got, want)
		}
	}
	// An unknown flag is pflag's clear error.
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	s := runner.DefaultSpec()
	addSpecFlags(fs, &s)
	if err := fs.Parse([]string{"--drift-allowance=0.1"}); err == nil || !strings.Contains(err.Error(), "drift-allowance") {
		t.Errorf("unknown flag: %v", err)
	}
}

// A node process reads back, from the arguments nodeArgs writes, the
// configuration it was given.
func TestNodeArgsRoundTrip(t *testing.T) {
	pc := udp.ProcessConfig{
		ID: 1, Listen: netip.MustParseAddrPort("127.0.0.1:7001"),
		Peers: map[algorithms.NodeID]netip.AddrPort{0: netip.MustParseAddrPort("127.0.0.1:7000")},
		Algo:  "fatlease", Acceptors: 3, Proposers: 2, Seed: 99,
		Params:    algorithms.Params{LeaseSpan: 2 * time.Second, MaxLease: 3 * time.Second, DMax: 7 * time.Millisecond, Drift: 0.0025, ResponseTimeout: 300 * time.Millisecond, MaxRounds: 4, Backoff: 20 * time.Millisecond},
		Ablations: algorithms.Ablations{"drift-margin"},
		Net:       runner.NetSpec{RTT: 3 * time.Millisecond, Jitter: time.Millisecond, Loss: 0.125, Dup: 0.25, Reorder: 0.5, Bandwidth: 1 << 20},
		DiskDir:   "/tmp/x", StateDir: "/tmp/s", KeyFile: "/tmp/k", ReusePort: true,
	}
	args := nodeArgs(pc)
	if args[0] != "node" {
		t.Fatalf("args %v", args)
	}
	// The node command's own flag set accepts them all.
	nfs := pflag.NewFlagSet("node", pflag.ContinueOnError)
	setupNode(nfs)
	if err := nfs.Parse(args[1:]); err != nil {
		t.Fatalf("node %v: %v", args[1:], err)
	}
	if f := nfs.Lookup("reuse-port"); f == nil || f.Value.String() != "true" {
		t.Errorf("node %v: --reuse-port not passed on", args[1:])
	}
	// And its parameters come back equal.
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	spec := udp.ProcessConfig{}.Spec()
	addNamedFlags(fs, &spec, udp.ProcessParams...)
	if err := fs.Parse(udp.ProcessArgs(pc)); err != nil {
		t.Fatal(err)
	}
	var got udp.ProcessConfig
	got.SetSpec(spec)
	got.ID, got.Listen, got.Peers, got.StateDir, got.KeyFile, got.ReusePort = pc.ID, pc.Listen, pc.Peers, pc.StateDir, pc.KeyFile, pc.ReusePort
	if !reflect.DeepEqual(got, pc) {
		t.Errorf("args %v read back as\n%+v\nwant\n%+v", args, got, pc)
	}
	for _, n := range udp.ProcessParams {
		if nfs.Lookup(n) == nil {
			t.Errorf("node has no --%s", n)
		}
	}
}

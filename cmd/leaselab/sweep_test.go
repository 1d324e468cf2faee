package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"leaselab/runner"
)

// The must-show line: 2 algorithms × 2 proposer counts, 3 seeds.
func TestSweepGivesACellPerCombination(t *testing.T) {
	code, out, errOut := leaselab("sweep", "--algo", "naive,paxoslease", "--proposers", "2,4", "--seeds", "3", "--duration", "30s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Meta   map[string]any `json:"meta"`
		Params struct {
			Algo     string `json:"algo"`
			Duration int64  `json:"duration_ns"`
		} `json:"params"`
		Cells []struct {
			Values   map[string]string `json:"values"`
			SeedsRun []uint64          `json:"seeds_run"`
			Meters   []struct {
				Meter string   `json:"meter"`
				N     int      `json:"n"`
				Mean  *float64 `json:"mean"`
				Lo    *float64 `json:"ci95_lo"`
			} `json:"meters"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 4 || res.Meta["revision"] == nil || res.Params.Duration != 30e9 {
		t.Fatalf("%d cells, meta %v, duration %d", len(res.Cells), res.Meta, res.Params.Duration)
	}
	seen := map[string]bool{}
	for _, c := range res.Cells {
		seen[c.Values["algo"]+"/"+c.Values["proposers"]] = true
		if len(c.SeedsRun) != 3 || c.Meters[0].N != 3 || c.Meters[0].Mean == nil || c.Meters[0].Lo == nil {
			t.Errorf("cell %v: %+v", c.Values, c)
		}
	}
	if len(seen) != 4 {
		t.Errorf("cells %v", seen)
	}
}

func TestSweepOutputs(t *testing.T) {
	chart := t.TempDir() + "/s.svg"
	code, out, errOut := leaselab("sweep", "--algo", "naive", "--loss", "0,0.05", "--seeds", "2", "--duration", "5s",
		"--meters", "leases_acquired,latency_ms.p99", "--format", "csv", "--chart", chart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "# meta ") ||
		lines[1] != "loss,seeds_run,failed,leases_acquired.mean,leases_acquired.ci95_lo,leases_acquired.ci95_hi,leases_acquired.n,latency_ms.p99.mean,latency_ms.p99.ci95_lo,latency_ms.p99.ci95_hi,latency_ms.p99.n" {
		t.Errorf("csv:\n%s", out)
	}
	code, out, _ = leaselab("sweep", "--algo", "naive", "--ablate", "none", "--ablate", "restart-wait", "--seeds", "2", "--duration", "5s")
	if code != 0 || !strings.Contains(out, "restart-wait") || !strings.Contains(out, "2 cells × 2 seeds") {
		t.Errorf("ablate axis: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "naive,nosuch"}, `cell algo=nosuch: unknown algorithm "nosuch"`},
		{[]string{"--proposers", "2,x"}, `proposers: "x" is not a valid int`},
		{[]string{"--seeds", "0"}, "seeds must be at least 1"},
		{[]string{"--meters", "nosuch"}, `unknown meter "nosuch"`},
		{[]string{"--chart", "x.pdf"}, "give a .png or .svg file"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := leaselab(append([]string{"sweep", "--duration", "1s"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The must-show lines on resource guards and check's schema.
func TestGuardsAndCheckSchema(t *testing.T) {
	if runner.AvailableMemory() == 0 {
		t.Skip("the system does not say how much memory it has")
	}
	start := time.Now()
	code, out, errOut := leaselab("run", "--workload", "batch", "--leases", "100000000")
	if code != 2 || out != "" || !strings.Contains(errOut, "needs about") || strings.Contains(errOut, "fatal") || time.Since(start) > 5*time.Second {
		t.Errorf("a batch of 10^8 leases: exit %d after %v, stderr %q", code, time.Since(start), errOut)
	}
	code, out, errOut = leaselab("check", "--algo", "naive", "--seeds", "3", "--first-seed", "5", "--duration", "10s", "--format", "json")
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	var res struct {
		Meta      map[string]any `json:"meta"`
		FirstSeed *uint64        `json:"first_seed"`
		Params    struct {
			Duration  int64 `json:"duration_ns"`
			Proposers int   `json:"proposers"`
		} `json:"params"`
		First []any `json:"first_violations"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.FirstSeed == nil || *res.FirstSeed != 5 || res.Params.Duration != 10e9 || res.Params.Proposers != 5 || res.Meta == nil || res.First == nil {
		t.Errorf("check JSON: %s", out)
	}
}

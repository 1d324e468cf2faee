package main

import (
	"encoding/json"
	"testing"

	"leaselab/runner"
	"leaselab/runner/udp"
)

// cluster's JSON has its provenance, the spec it ran and every key, []
// and null included, whatever the run did.
func TestClusterJSONKeys(t *testing.T) {
	b, err := json.Marshal(newClusterResult(runner.DefaultSpec(), runner.Result{}, udp.Extra{}, &udp.Processes{}))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"meta", "params", "violation_list", "paused_pid", "pause_ms", "failover_gap_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if l, ok := m["violation_list"].([]any); !ok || len(l) != 0 {
		t.Errorf("violation_list %v, want []", m["violation_list"])
	}
	if p, _ := m["params"].(map[string]any); p["algo"] != "paxoslease" {
		t.Errorf("params %v", m["params"])
	}
}

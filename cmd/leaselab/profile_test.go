package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: --cpuprofile, on any command, writes a profile (pprof's
// gzipped protocol buffer) that names the command's own functions, which
// it does only for locations it sampled; a path that cannot be written is
// an error before the command runs (exit 1, one line).
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	code, stdout, stderr := leaselab("run", "--algo", "naive", "--workload", "batch", "--leases", "100000", "--acceptors", "3", "--proposers", "1", "--format", "json", "--cpuprofile", path)
	if code != 0 || stderr != "" || !strings.Contains(stdout, `"leases_acquired"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a pprof profile: %v", err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("not a pprof profile: %v", err)
	}
	if !bytes.Contains(pb, []byte("leaselab/runner/sim.")) {
		t.Fatalf("the profile (%d bytes) names no function of the simulator: nothing sampled", len(pb))
	}

	code, stdout, stderr = leaselab("algos", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "cpu.pprof"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "--cpuprofile") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("unwritable path: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

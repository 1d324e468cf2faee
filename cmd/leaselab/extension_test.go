package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input of the extension and authentication features: exit 2 and a
// message that says what to change.
func TestBadInputExtensions(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("tooshort\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	node := []string{"node", "--id", "0", "--peers", "1=127.0.0.1:9,2=127.0.0.1:9"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(node, "--key-file", short), "holds 8 bytes, at least 16 needed"},
		{append(node, "--key-file", filepath.Join(dir, "missing")), "key file:"},
		{[]string{"bench", "--env", "sim", "--sign"}, "--sign measures signed datagrams over UDP"},
		{[]string{"check", "--algo", "central"}, "needs exactly 1 acceptor (node 0 is the lease server), got 3: give --acceptors 1"},
		{[]string{"run", "--algo", "central", "--acceptors", "1", "--lease-span", "7s", "--max-lease", "7s"}, "central: lease span 7s must be below max lease M 7s"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := leaselab(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, stderr, stdout, tc.want)
			}
		})
	}
}

// The example algorithm is part of the command: listed with its
// ablations, and its scenario file replays with no violation.
func TestExampleRegistered(t *testing.T) {
	code, stdout, _ := leaselab("algos", "--format", "markdown") // the narrow table leaves out the exposing commands
	if code != 0 || !strings.Contains(stdout, "central") || !strings.Contains(stdout, "--ablate restart-wait") {
		t.Fatalf("algos: exit %d\n%s", code, stdout)
	}
	code, stdout, stderr := leaselab("replay", filepath.Join("..", "..", "algorithms", "example", "testdata", "central-basic.txt"))
	if code != 0 || !strings.Contains(stdout, "verdict: 0 violation(s)") {
		t.Fatalf("replay: exit %d, %s\n%s", code, stderr, stdout)
	}
}

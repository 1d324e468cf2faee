package udp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNextRestartsCountsLives(t *testing.T) {
	dir := t.TempDir()
	for want := uint16(0); want < 3; want++ {
		got, err := NextRestarts(dir, 4)
		if err != nil || got != want {
			t.Fatalf("life %d: got %d, %v", want, got, err)
		}
	}
	// Another node in the same directory keeps its own count.
	if got, err := NextRestarts(dir, 5); err != nil || got != 0 {
		t.Fatalf("node 5: got %d, %v", got, err)
	}
	b, err := os.ReadFile(RestartsPath(dir, 4))
	if err != nil || string(b) != "3\n" {
		t.Fatalf("node 4's file holds %q, %v", b, err)
	}
	// No temporary files are left behind.
	names, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestNextRestartsRefusesBadFiles(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"", "not a restart counter"},
		{"x\n", "not a restart counter"},
		{"-1\n", "not a restart counter"},
		{"70000\n", "not a restart counter"},
		{"65535\n", "used up"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(RestartsPath(dir, 1), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := NextRestarts(dir, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("content %q: err %v, want %q", c.content, err, c.want)
		}
		// A refused file is left as it was.
		if b, _ := os.ReadFile(RestartsPath(dir, 1)); string(b) != c.content {
			t.Errorf("content %q became %q", c.content, b)
		}
	}
	if _, err := NextRestarts(filepath.Join(t.TempDir(), "missing"), 1); err == nil {
		t.Error("a directory that does not exist was accepted")
	}
}

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/runner/replaytest"
)

// TestGolden replays every scenario file in the module (every
// testdata/*.txt) and compares its transcript with the X.out beside it. Here every algorithm is registered, and the algorithm
// packages need not import the runner. After a deliberate change in
// behaviour: go test ./cmd/leaselab/ -run TestGolden -rewrite, and read the
// diff of the .out files.
func TestGolden(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != filepath.Join("..", "..") {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "testdata" {
			dirs = append(dirs, path)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.txt")); len(m) == 0 {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			n += replaytest.Golden(t, dir, func(string) bool { return false })
		})
	}
	if n < 20 {
		t.Errorf("only %d scenario files found", n)
	}
}

// replay --transcript prints the golden transcript, nothing else.
func TestReplayTranscript(t *testing.T) {
	file := filepath.Join("..", "..", "naive", "testdata", "naive-acquire.txt")
	want, err := os.ReadFile(strings.TrimSuffix(file, ".txt") + ".out")
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := leaselab("replay", "--transcript", file)
	if code != 0 || stdout != string(want) {
		t.Errorf("exit %d, stderr %q, diff from the golden file:\n%s", code, stderr, replaytest.Diff(string(want), stdout))
	}
	if code, _, stderr := leaselab("replay", "--transcript", "--format", "json", file); code != 2 || !strings.Contains(stderr, "--transcript") {
		t.Errorf("--transcript with --format json: exit %d, %q", code, stderr)
	}
}

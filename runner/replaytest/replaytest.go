// Package replaytest checks scenario files against golden transcripts:
// every X.txt in a directory is replayed (sim.ReplayWith) and its
// transcript compared, whole, with X.out beside it, in the style of etcd
// raft's datadriven tests. Run the test with -rewrite to write the .out
// files from the current behaviour instead (then read the diff in git).
package replaytest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leaselab/runner/sim"
)

var rewrite = flag.Bool("rewrite", false, "write the golden transcripts (testdata/*.out) instead of comparing with them")

// Golden replays every dir/*.txt for which skip (nil: none) returns false,
// as a subtest, and fails it if the replay stops on an error, an
// expectation fails, the checker finds a violation the file does not
// expect with an "expect violations N" line, or the transcript differs
// from dir/X.out (the message shows a line diff). With -rewrite it writes
// X.out instead. A .out without its .txt fails too, so renaming a scenario
// cannot leave a stale transcript behind. It returns the number of files
// replayed and fails if there are none.
func Golden(t *testing.T, dir string, skip func(name string) bool) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := filepath.Glob(filepath.Join(dir, "*.out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if _, err := os.Stat(strings.TrimSuffix(o, ".out") + ".txt"); err != nil {
			t.Errorf("%s has no scenario file beside it", o)
		}
	}
	n := 0
	for _, f := range files {
		name := filepath.Base(f)
		if skip != nil && skip(name) {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) { golden(t, f) })
	}
	if n == 0 {
		t.Fatalf("no scenario file in %s", dir)
	}
	return n
}

func golden(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tx bytes.Buffer
	res, err := sim.ReplayWith(bytes.NewReader(data), io.Discard, sim.ReplayOptions{Transcript: &tx})
	if err != nil {
		t.Fatalf("replay: %v\ntranscript so far:\n%s", err, tx.String())
	}
	if len(res.Failed) > 0 {
		t.Errorf("failed expectations:\n  %s", strings.Join(res.Failed, "\n  "))
	}
	if len(res.Violations) > 0 && !res.ExpectsViolations {
		t.Errorf("%d violation(s), and the scenario has no 'expect violations N' line", len(res.Violations))
	}
	out := strings.TrimSuffix(file, ".txt") + ".out"
	if *rewrite {
		if err := os.WriteFile(out, tx.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v (run the test with -rewrite to write it)", err)
	}
	if d := Diff(string(want), tx.String()); d != "" {
		t.Errorf("transcript differs from %s (- want, + got; -rewrite accepts the new one):\n%s", out, d)
	}
}

// Diff returns a line diff of want and got ("- " lines only in want, "+ "
// only in got, with up to two lines of context around each change and
// "@@ want line N" before each hunk), or "" if they are equal.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := lines(want), lines(got)
	// lcs[i][j]: length of the longest common subsequence of a[i:], b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i + 1})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], i + 1})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i + 1})
			j++
		}
	}
	// Show every change with up to two lines of context on each side.
	const context = 2
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.c != ' ' {
			for m := max(k-context, 0); m <= min(k+context, len(ops)-1); m++ {
				show[m] = true
			}
		}
	}
	var sb strings.Builder
	for k, o := range ops {
		if !show[k] {
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&sb, "@@ want line %d\n", o.line)
		}
		fmt.Fprintf(&sb, "%c %s\n", o.c, strings.TrimSuffix(o.text, "\n"))
	}
	return sb.String()
}

// diffOp is one line of a diff: kept (' '), only in want ('-') or only in
// got ('+'); line is where in want it is (or, '+', would be).
type diffOp struct {
	c    byte
	text string
	line int
}

// lines splits s after each newline; a last line without one is a line
// too, so "a\nb" and "a\nb\n" differ.
func lines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

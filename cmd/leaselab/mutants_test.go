package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMutants measures what a command (by default the safety battery)
// catches of small changes to an algorithm's code: mutation testing,
// with the mutants a Go mutation tool (gremlins) lists and this test
// applies, one at a time, to a build of leaselab (go build -overlay, so
// the working tree is never touched). It runs only when asked:
//
//	gremlins unleash --dry-run -o /tmp/pl.json ./paxoslease
//	LEASELAB_MUTANTS=/tmp/pl.json LEASELAB_MUTANTS_DIR=paxoslease \
//	  LEASELAB_MUTANTS_N=60 LEASELAB_MUTANTS_SEED=1 \
//	  LEASELAB_MUTANTS_CMD='verify --algo paxoslease --budget 20s --format json' \
//	  LEASELAB_MUTANTS_OUT=/tmp/mutants.md \
//	  go test -run TestMutants -timeout 0 ./cmd/leaselab/
//
// A mutant is killed when the command exits 1 (a violation) or fails
// otherwise (a panic, a runtime error: the mutant did not survive a run),
// lives when it exits 0, and is not viable when it does not build. N
// mutants are drawn from the list with the seed (all when N is 0); the
// unmutated build must exit 0 first, or the measure means nothing.
// LEASELAB_MUTANTS_FROM=K resumes a run cut short: the same sample, from
// its K-th mutant on (1: all).
func TestMutants(t *testing.T) {
	list := os.Getenv("LEASELAB_MUTANTS")
	if list == "" {
		t.Skip("set LEASELAB_MUTANTS to a gremlins dry-run JSON to run")
	}
	dir := os.Getenv("LEASELAB_MUTANTS_DIR")
	args := strings.Fields(os.Getenv("LEASELAB_MUTANTS_CMD"))
	if dir == "" || len(args) == 0 {
		t.Fatal("LEASELAB_MUTANTS_DIR (the package directory, e.g. paxoslease) and LEASELAB_MUTANTS_CMD are needed")
	}
	n, _ := strconv.Atoi(os.Getenv("LEASELAB_MUTANTS_N"))
	seed, _ := strconv.ParseUint(os.Getenv("LEASELAB_MUTANTS_SEED"), 10, 64)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := readMutants(list, filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	ms = sampleMutants(ms, n, seed)
	from := 1
	if v := os.Getenv("LEASELAB_MUTANTS_FROM"); v != "" {
		if from, err = strconv.Atoi(v); err != nil || from < 1 || from > len(ms) {
			t.Fatalf("LEASELAB_MUTANTS_FROM=%s: want 1 to %d, the sample's size", v, len(ms))
		}
	}
	tmp := t.TempDir()

	base := runMutant(t, root, tmp, nil, args)
	if base.verdict != "lived" {
		t.Fatalf("the unmutated build: %s (%s); want exit 0", base.verdict, base.detail)
	}
	var rows []mutantRow
	counts := map[string]int{}
	for i, m := range ms {
		if i+1 < from {
			continue
		}
		r := runMutant(t, root, tmp, &m, args)
		rows = append(rows, r)
		counts[r.verdict]++
		fmt.Fprintf(os.Stderr, "mutant %d/%d %s:%d:%d %s: %s %s (%.1f s)\n", i+1, len(ms), m.file, m.line, m.col, m.kind, r.verdict, r.detail, r.seconds)
	}
	report := mutantReport(args, dir, seed, len(ms), counts, rows)
	if out := os.Getenv("LEASELAB_MUTANTS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("\n" + report)
}

// mutant is one mutation: a token at a position and what it becomes.
type mutant struct {
	file      string // absolute path
	line, col int
	kind      string // gremlins' mutator name
}

type mutantRow struct {
	m              mutant
	change, source string
	verdict        string // killed, lived, not viable
	detail         string
	seconds        float64
}

// readMutants reads a gremlins dry-run report (every mutant, covered by
// the unit tests or not: the battery is a different test) for the files
// of dir, in file and position order.
func readMutants(path, dir string) ([]mutant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Files []struct {
			Name      string `json:"file_name"`
			Mutations []struct {
				Type   string `json:"type"`
				Line   int    `json:"line"`
				Column int    `json:"column"`
			} `json:"mutations"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var ms []mutant
	for _, f := range rep.Files {
		for _, m := range f.Mutations {
			ms = append(ms, mutant{file: filepath.Join(dir, filepath.Base(f.Name)), line: m.Line, col: m.Column, kind: m.Type})
		}
	}
	if len(ms) == 0 {
		return nil, errors.New(path + ": no mutants")
	}
	slices.SortFunc(ms, func(a, b mutant) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		if a.line != b.line {
			return a.line - b.line
		}
		if a.col != b.col {
			return a.col - b.col
		}
		return strings.Compare(a.kind, b.kind)
	})
	return ms, nil
}

// sampleMutants draws n of ms with the seed, keeping their order.
func sampleMutants(ms []mutant, n int, seed uint64) []mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	idx := rand.New(rand.NewPCG(seed, 0x6d7574)).Perm(len(ms))[:n]
	slices.Sort(idx)
	out := make([]mutant, n)
	for i, j := range idx {
		out[i] = ms[j]
	}
	return out
}

// mutations maps a mutator and the token it finds to the token it writes
// (gremlins' operators).
var mutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
	"CONDITIONALS_BOUNDARY": {token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.LEQ: token.GTR, token.GTR: token.LEQ, token.GEQ: token.LSS},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
}

// mutate returns src with m applied, and the change in words.
func mutate(src []byte, m mutant) ([]byte, string, error) {
	fs := token.NewFileSet()
	f := fs.AddFile(m.file, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, "", fmt.Errorf("%s:%d:%d: no token", m.file, m.line, m.col)
		}
		p := fs.Position(pos)
		if p.Line != m.line || p.Column != m.col {
			continue
		}
		to, ok := mutations[m.kind][tok]
		if !ok {
			return nil, "", fmt.Errorf("%s:%d:%d: %s does not apply to %s", m.file, m.line, m.col, m.kind, tok)
		}
		off := p.Offset
		out := slices.Concat(src[:off], []byte(to.String()), src[off+len(tok.String()):])
		return out, tok.String() + " → " + to.String(), nil
	}
}

// runMutant builds leaselab with m applied (none: unmutated) and runs
// args with it.
func runMutant(t *testing.T, root, tmp string, m *mutant, args []string) mutantRow {
	t.Helper()
	var row mutantRow
	bin := filepath.Join(tmp, "leaselab")
	build := []string{"build", "-o", bin}
	if m != nil {
		row.m = *m
		src, err := os.ReadFile(m.file)
		if err != nil {
			t.Fatal(err)
		}
		mut, change, err := mutate(src, *m)
		if err != nil {
			row.verdict, row.detail = "not viable", err.Error()
			return row
		}
		row.change = change
		row.source = strings.TrimSpace(strings.Split(string(src), "\n")[m.line-1])
		mf := filepath.Join(tmp, "mutant.go")
		ov := filepath.Join(tmp, "overlay.json")
		b, _ := json.Marshal(map[string]map[string]string{"Replace": {m.file: mf}})
		if err := os.WriteFile(mf, mut, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ov, b, 0o644); err != nil {
			t.Fatal(err)
		}
		build = append(build, "-overlay", ov)
	}
	cmd := exec.Command("go", append(build, "./cmd/leaselab")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		row.verdict, row.detail = "not viable", firstLine(string(out))
		return row
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	run := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	err := run.Run()
	row.seconds = time.Since(start).Seconds()
	var res struct {
		FoundBy string `json:"found_by"`
	}
	_ = json.Unmarshal(stdout.Bytes(), &res)
	var ee *exec.ExitError
	switch {
	case err == nil:
		row.verdict = "lived"
	case errors.As(err, &ee) && ee.ExitCode() == 1 && res.FoundBy != "":
		row.verdict, row.detail = "killed", "violation, found by "+res.FoundBy
	case errors.As(err, &ee) && ee.ExitCode() == 1 && !strings.Contains(stderr.String(), "panic:"):
		row.verdict, row.detail = "killed", "exit 1: "+whyFailed(stderr.String())
	default:
		row.verdict, row.detail = "killed", fmt.Sprintf("run failed (%v): %s", err, firstLine(lastLines(stderr.String())))
	}
	return row
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// whyFailed is the reason a command that exited 1 without a violation
// gave (verify's last "verify: " line: a liveness failure, a vacuous or
// rejected configuration), cut to 200 characters; else its last line.
func whyFailed(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	why := lines[len(lines)-1]
	for _, l := range lines {
		if strings.HasPrefix(l, "verify: ") {
			why = l
		}
	}
	if r := []rune(why); len(r) > 200 {
		why = string(r[:200]) + "…"
	}
	return why
}

// lastLines keeps a panic's first line and the error at the end of a
// run's stderr, skipping progress lines.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
	}
	return lines[len(lines)-1]
}

func mutantReport(args []string, dir string, seed uint64, n int, counts map[string]int, rows []mutantRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mutants of %s/: %d drawn (seed %d), each a build of leaselab running `leaselab %s`.\n\n", dir, n, seed, strings.Join(args, " "))
	viable := counts["killed"] + counts["lived"]
	score := 0.0
	if viable > 0 {
		score = 100 * float64(counts["killed"]) / float64(viable)
	}
	fmt.Fprintf(&b, "killed %d, lived %d, not viable %d: score %.0f%% of viable mutants killed.\n\n", counts["killed"], counts["lived"], counts["not viable"], score)
	fmt.Fprintf(&b, "| mutant | line | change | verdict | s |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s:%d:%d %s | `%s` | %s | %s %s | %.1f |\n", filepath.Base(r.m.file), r.m.line, r.m.col, r.m.kind,
			strings.ReplaceAll(r.source, "|", "\\|"), r.change, r.verdict, strings.ReplaceAll(r.detail, "|", "\\|"), r.seconds)
	}
	return b.String()
}

// The mutation a mutant names is applied at its token, and one that does
// not fit the token is refused rather than applied elsewhere.
func TestMutate(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\tif a < b {\n\t\ta++\n\t}\n\treturn a-b == -1\n}\n")
	for _, tc := range []struct {
		line, col int
		kind      string
		want      string // the changed line; "" an error
	}{
		{4, 7, "CONDITIONALS_BOUNDARY", "\tif a <= b {"},
		{4, 7, "CONDITIONALS_NEGATION", "\tif a >= b {"},
		{5, 4, "INCREMENT_DECREMENT", "\t\ta--"},
		{7, 10, "ARITHMETIC_BASE", "\treturn a+b == -1"},
		{7, 13, "CONDITIONALS_NEGATION", "\treturn a-b != -1"},
		{7, 16, "INVERT_NEGATIVES", "\treturn a-b == +1"},
		{7, 16, "CONDITIONALS_BOUNDARY", ""},
		{4, 8, "CONDITIONALS_BOUNDARY", ""},
	} {
		out, _, err := mutate(src, mutant{file: "p.go", line: tc.line, col: tc.col, kind: tc.kind})
		if tc.want == "" {
			if err == nil {
				t.Errorf("%d:%d %s: applied, want an error", tc.line, tc.col, tc.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d:%d %s: %v", tc.line, tc.col, tc.kind, err)
			continue
		}
		if got := strings.Split(string(out), "\n")[tc.line-1]; got != tc.want {
			t.Errorf("%d:%d %s: %q, want %q", tc.line, tc.col, tc.kind, got, tc.want)
		}
	}
	ms := []mutant{{line: 1}, {line: 2}, {line: 3}, {line: 4}, {line: 5}}
	a, b := sampleMutants(ms, 3, 7), sampleMutants(ms, 3, 7)
	if len(a) != 3 || !slices.Equal(a, b) || !slices.IsSortedFunc(a, func(x, y mutant) int { return x.line - y.line }) {
		t.Errorf("sample: %v, %v", a, b)
	}
}

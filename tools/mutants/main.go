// Command mutants measures the safety battery's power (issue 20 item 7):
// it applies a sample of the mutants that gremlins lists for one
// algorithm package (gremlins unleash --dry-run -o FILE ./PKG), one at a
// time, to a copy of the module, builds leaselab from it and runs
// `leaselab verify --algo A --budget B` against it. A mutant is killed
// when verify exits 1 (a lease violation), survives when it exits 0, and
// is not viable when the copy does not build or verify fails otherwise.
// It is a development tool, not part of the leaselab binary.
//
//	go run ./tools/mutants -gremlins g.json -pkg paxoslease -algo paxoslease -n 16 -budget 20s > mutants.md
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	file   string
}

// swaps: what each gremlins mutator turns a token into.
var swaps = map[string]map[token.Token]token.Token{
	"CONDITIONALS_BOUNDARY": {token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.LEQ: token.GTR, token.GTR: token.LEQ, token.GEQ: token.LSS},
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
}

// mutate returns src with the token at line:col replaced as typ says.
func mutate(src []byte, line, col int, typ string) ([]byte, string, error) {
	fs := token.NewFileSet()
	f := fs.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return nil, "", fmt.Errorf("no token at %d:%d", line, col)
		}
		p := fs.Position(pos)
		if p.Line != line || p.Column != col {
			continue
		}
		to, ok := swaps[typ][tok]
		if !ok {
			return nil, "", fmt.Errorf("%s: cannot mutate %q at %d:%d", typ, tok.String()+lit, line, col)
		}
		off := f.Offset(pos)
		out := append([]byte{}, src[:off]...)
		out = append(out, to.String()...)
		out = append(out, src[off+len(tok.String()):]...)
		return out, tok.String() + " → " + to.String(), nil
	}
}

func main() {
	gj := flag.String("gremlins", "", "gremlins dry-run JSON (-o FILE)")
	pkg := flag.String("pkg", "paxoslease", "package directory the mutants are in")
	algo := flag.String("algo", "paxoslease", "algorithm verify runs")
	n := flag.Int("n", 16, "mutants to sample (evenly over the runnable ones, in file and line order)")
	budget := flag.Duration("budget", 20*time.Second, "verify --budget")
	from := flag.Int("from", 1, "start at this mutant of the sample (to resume a run)")
	flag.Parse()
	if *gj == "" {
		fmt.Fprintln(os.Stderr, "mutants: -gremlins FILE is required")
		os.Exit(2)
	}
	var g struct {
		Files []struct {
			FileName  string     `json:"file_name"`
			Mutations []mutation `json:"mutations"`
		} `json:"files"`
	}
	b, err := os.ReadFile(*gj)
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	var all []mutation
	for _, f := range g.Files {
		for _, m := range f.Mutations {
			if m.Status == "RUNNABLE" && !strings.HasSuffix(f.FileName, "_test.go") {
				m.file = f.FileName
				all = append(all, m)
			}
		}
	}
	slices.SortFunc(all, func(a, b mutation) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	var sample []mutation
	for i := 0; i < *n && len(all) > 0; i++ {
		sample = append(sample, all[i*len(all) / *n])
	}
	// A copy of the module's tracked files.
	tmp, err := os.MkdirTemp("", "mutants-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	ls, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants: git ls-files:", err)
		os.Exit(1)
	}
	for _, p := range strings.Fields(string(ls)) {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		os.MkdirAll(filepath.Join(tmp, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(tmp, p), src, 0o644)
	}
	bin := filepath.Join(tmp, "leaselab-mutant")
	fmt.Printf("| # | mutant | change | verify | seconds | found by |\n|---|---|---|---|---|---|\n")
	killed, lived, bad := 0, 0, 0
	for i, m := range sample {
		if i+1 < *from {
			continue
		}
		path := filepath.Join(tmp, *pkg, m.file)
		orig, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutants:", err)
			os.Exit(1)
		}
		mut, what, err := mutate(orig, m.Line, m.Column, m.Type)
		status, found, secs := "", "", 0.0
		if err != nil {
			status = "not applied: " + err.Error()
			bad++
		} else {
			os.WriteFile(path, mut, 0o644)
			build := exec.Command("go", "build", "-o", bin, "./cmd/leaselab")
			build.Dir = tmp
			if out, err := build.CombinedOutput(); err != nil {
				status = "not viable (does not build: " + strings.SplitN(string(out), "\n", 2)[0] + ")"
				bad++
			} else {
				t0 := time.Now()
				cmd := exec.Command(bin, "verify", "--algo", *algo, "--budget", budget.String(), "--quiet", "--format", "json")
				var out bytes.Buffer
				cmd.Stdout = &out
				err := cmd.Run()
				secs = time.Since(t0).Seconds()
				var r struct {
					FoundBy string `json:"found_by"`
				}
				json.Unmarshal(out.Bytes(), &r)
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					code = -1
				}
				switch code {
				case 1:
					status, found = "killed", r.FoundBy
					killed++
				case 0:
					status = "survived"
					lived++
				default:
					status = fmt.Sprintf("not viable (verify exit %d)", code)
					bad++
				}
			}
			os.WriteFile(path, orig, 0o644)
		}
		fmt.Printf("| %d | %s:%d:%d %s | `%s` | %s | %.0f | %s |\n", i+1, m.file, m.Line, m.Column, m.Type, what, status, secs, found)
		fmt.Fprintf(os.Stderr, "mutants: %d/%d %s:%d %s: %s\n", i+1, len(sample), m.file, m.Line, m.Type, status)
	}
	fmt.Printf("\n%d sampled of %d runnable mutants: %d killed, %d survived, %d not viable; score %d/%d\n",
		len(sample), len(all), killed, lived, bad, killed, killed+lived)
}

package shard

import (
	"encoding/json"
	"strings"
	"testing"

	"leaselab/runner"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		value string
		env   func(string) string
		want  Spec
		err   string // a part of the error; "" for none
	}{
		{"0/3", env(), Spec{0, 3}, ""},
		{"2/3", env(), Spec{2, 3}, ""},
		{"0/1", env(), Spec{0, 1}, ""},
		{"3/3", env(), Spec{}, "index 3 is not below the count 3"},
		{"-1/3", env(), Spec{}, "the index i must be auto or a whole number from 0 to 2"},
		{"x/3", env(), Spec{}, "the index i must be"},
		{"0/0", env(), Spec{}, "the count n must be a whole number from 1"},
		{"0/y", env(), Spec{}, "the count n must be"},
		{"3", env(), Spec{}, "want i/n"},
		{"", env(), Spec{}, "want i/n"},
		{"auto/4", env(EnvKubernetes, "2"), Spec{2, 4}, ""},
		{"auto/4", env(EnvSlurm, "3"), Spec{3, 4}, ""},
		{"auto/4", env(EnvSlurm, "1", EnvKubernetes, "1"), Spec{1, 4}, ""},
		{"auto/4", env(), Spec{}, "neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pod) nor SLURM_ARRAY_TASK_ID"},
		{"auto/4", env(EnvSlurm, "4"), Spec{}, "SLURM_ARRAY_TASK_ID=4 is not below the count 4 (the job array must be --array=0-3)"},
		{"auto/4", env(EnvKubernetes, "9"), Spec{}, "JOB_COMPLETION_INDEX=9 is not below the count 4 (the Indexed Job's completions must be 4)"},
		{"auto/4", env(EnvKubernetes, "one"), Spec{}, `JOB_COMPLETION_INDEX="one" is not a shard index`},
		{"auto/4", env(EnvSlurm, "1", EnvKubernetes, "2"), Spec{}, "disagree"},
	} {
		got, err := Parse(tc.value, tc.env)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.value, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Parse(%q) error %v; want one containing %q", tc.value, err, tc.err)
		case tc.err != "" && !strings.Contains(err.Error(), "--shard \""+tc.value+"\""):
			t.Errorf("Parse(%q) error %q does not name the value", tc.value, err)
		}
	}
}

// The parts' ranges cover every item once, in order, sizes within one.
func TestRange(t *testing.T) {
	for _, total := range []int{1, 2, 7, 100, 300, 1001} {
		for n := 1; n <= total && n <= 40; n++ {
			next, small, large := 0, total, 0
			for i := range n {
				lo, hi := Spec{i, n}.Range(total)
				if lo != next || hi < lo {
					t.Fatalf("%d items, part %d/%d: [%d, %d), want it to start at %d", total, i, n, lo, hi, next)
				}
				next = hi
				small, large = min(small, hi-lo), max(large, hi-lo)
			}
			if next != total || large-small > 1 || small < 1 {
				t.Fatalf("%d items in %d parts: end %d, sizes %d..%d", total, n, next, small, large)
			}
		}
	}
	if err := (Spec{0, 5}).Fits(3, "seeds"); err == nil || !strings.Contains(err.Error(), "5 parts of 3 seeds") {
		t.Errorf("5 parts of 3 seeds: %v", err)
	}
	if err := (Spec{0, 3}).Fits(3, "seeds"); err != nil {
		t.Errorf("3 parts of 3 seeds: %v", err)
	}
}

func part(t *testing.T, name string, i, n int, spec any, rev string) Input {
	info, err := NewInfo("check", Spec{i, n}, 30, spec)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Name: name, Info: info, Meta: &runner.Meta{Revision: rev, Hostname: name}, WallMS: float64(10 * (i + 1))}
}

func TestOrder(t *testing.T) {
	spec := map[string]any{"seeds": 30, "base": map[string]any{"algo": "naive", "seed": 1}}
	other := map[string]any{"seeds": 30, "base": map[string]any{"algo": "naive", "seed": 2}}
	p := func(name string, i int) Input { return part(t, name, i, 3, spec, "r1") }
	in := []Input{p("c", 2), p("a", 0), p("b", 1)}
	order, warn, err := Order(in)
	if err != nil || len(warn) != 0 || order[0] != 1 || order[1] != 2 || order[2] != 0 {
		t.Fatalf("Order = %v, %v, %v", order, warn, err)
	}
	parts := Parts(in, order)
	if parts[0].Index != 0 || parts[0].Meta.Hostname != "a" || parts[2].From != 20 || parts[2].To != 30 || parts[2].WallMS != 30 {
		t.Errorf("Parts = %+v", parts)
	}
	notPart := Input{Name: "x.json"}
	wrongCount := part(t, "d", 1, 4, spec, "r1")
	for _, tc := range []struct {
		name string
		in   []Input
		err  string
	}{
		{"none", nil, "no results"},
		{"not a part", []Input{p("a", 0), notPart}, `x.json is not a part's result (it has no "shard" key`},
		{"missing", []Input{p("a", 0)}, "1 result is not one whole check run: parts missing: 1/3, 2/3"},
		{"twice", []Input{p("a", 0), p("b", 1), p("c", 2), p("d", 1)}, "parts given more than once: 1/3 (b, d)"},
		{"twice and missing", []Input{p("a", 0), p("b", 0)}, "parts given more than once: 0/3 (a, b); parts missing: 1/3, 2/3"},
		{"count", []Input{p("a", 0), wrongCount}, "a is part 0/3, d part 1/4"},
		{"spec", []Input{p("a", 0), part(t, "b", 1, 3, other, "r1"), p("c", 2)}, "a and b are parts of different runs: their specs differ at base.seed: 1 vs 2"},
		{"revision", []Input{p("a", 0), part(t, "b", 1, 3, spec, "r2"), p("c", 2)}, "a was made by revision r1, b by r2"},
	} {
		if _, _, err := Order(tc.in); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v; want an error containing %q", tc.name, err, tc.err)
		}
	}
	bad := p("b", 1)
	bad.Info.From++
	if _, _, err := Order([]Input{p("a", 0), bad, p("c", 2)}); err == nil || !strings.Contains(err.Error(), "ran items [11, 20), not [10, 20)") {
		t.Errorf("a part with the wrong range: %v", err)
	}
	cmd := p("b", 1)
	cmd.Info.Command = "sweep"
	if _, _, err := Order([]Input{p("a", 0), cmd, p("c", 2)}); err == nil || !strings.Contains(err.Error(), "a is a part of check, b of sweep") {
		t.Errorf("parts of two commands: %v", err)
	}
	for _, rev := range []string{"unknown", "abc+dirty"} {
		q := func(name string, i int) Input { return part(t, name, i, 3, spec, rev) }
		if _, warn, err := Order([]Input{q("a", 0), q("b", 1), q("c", 2)}); err != nil || len(warn) != 1 || !strings.Contains(warn[0], "cannot be checked") {
			t.Errorf("revision %s: warnings %q, %v", rev, warn, err)
		}
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"a":1,"b":{"c":[1,2]}}`, `{"a":1,"b":{"c":[1,3]}}`, "b.c[1]: 2 vs 3"},
		{`{"a":1}`, `{"a":1,"z":true}`, "z: absent vs true"},
		{`{"a":[1]}`, `{"a":[1,2]}`, "a: [1] vs [1,2]"},
		{`1`, `"1"`, `the top: 1 vs "1"`},
		{`{"a":{"b":1}}`, `{"a":[1]}`, `a: {"b":1} vs [1]`},
	} {
		if got := Diff([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("Diff(%s, %s) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	b, _ := json.Marshal(map[string]int{"x": 1})
	if got := Diff(b, b); got != "(their encodings)" {
		t.Errorf("equal documents: %q", got)
	}
}

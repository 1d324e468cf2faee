package main

import (
	"strings"
	"testing"
)

func TestExploreBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--algo", "nosuch"}, `unknown algorithm "nosuch"`},
		{[]string{"explore", "--clocks", "sundial"}, `unknown clock mode "sundial" (valid: exact, drift, skew, extremes)`},
		{[]string{"explore", "--crashes", "-1"}, "budgets must not be negative"},
		{[]string{"explore", "--workers", "0"}, "--workers must be at least 1"},
		{[]string{"explore", "--max-depth", "-2"}, "max depth must not be negative"},
		{[]string{"explore", "--input-kinds", "steal"}, `unknown input kind "steal"`},
		{[]string{"explore", "--acceptors", "0"}, "need at least 1 acceptor"},
		{[]string{"explore", "--resources", "0"}, "resources must be in [1, 16]"},
		{[]string{"explore", "--ablate", "nope"}, `has no ablation "nope"`},
		{[]string{"explore", "--lease-span", "9s", "--max-lease", "7s"}, "max lease"},
		{[]string{"explore", "--format", "csv"}, "format must be one of table, json"},
		{[]string{"explore", "extra"}, "explore takes no arguments"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := leaselab(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

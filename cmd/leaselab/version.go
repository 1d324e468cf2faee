package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

func init() {
	register(command{
		name:    "version",
		summary: "print the build's provenance (the meta every result carries)",
		usage:   "[--format table|json]",
		long: `Prints the provenance that every JSON result, CSV file and report of this
binary carries as "meta": version (the module version, "devel" when built
from a checkout), revision (the VCS revision, "+dirty" when the tree had
local changes; taken from the build's VCS stamp, or, for builds without
one such as 'go run' or GOFLAGS=-buildvcs=false, from the link-time
setting -ldflags "-X leaselab/runner.linkRevision=REV" or else from git in
the leaselab checkout the command runs in; "unknown" otherwise),
revision_from (build, ldflags or git), go_version, goos, goarch,
num_cpu, hostname and started_at (when the command started, UTC).`,
		setup: func(fs *pflag.FlagSet) action {
			format := addFormatFlag(fs, "table", "json")
			return func(c *ctx, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				m := c.meta()
				if *format == "json" {
					return writeJSON(c.stdout, m)
				}
				for _, f := range m.Fields() {
					fmt.Fprintf(c.stdout, "%-13s %s\n", f[0], f[1])
				}
				return nil
			}
		},
	})
}

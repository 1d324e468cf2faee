// Package campaign runs seeded fault campaigns in the simulator (the
// `leaselab check` command): many seeds of one base spec, each with its own
// fault mix drawn from the seed (CheckSpecFor), summed in seed order into a
// CheckResult.
package campaign

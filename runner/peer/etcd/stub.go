//go:build !etcd

package etcd

import (
	"context"

	"leaselab/runner"
)

// Available reports whether this binary can run the etcd peer: false, it
// was built without -tags etcd.
func Available() bool { return false }

// Run returns ErrNotBuilt: this binary was built without -tags etcd.
func Run(ctx context.Context, c Config) (runner.Result, error) {
	if err := c.Validate(); err != nil {
		return runner.Result{}, err
	}
	return runner.Result{}, ErrNotBuilt
}

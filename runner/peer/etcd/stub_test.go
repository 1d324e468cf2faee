//go:build !etcd

package etcd

import (
	"context"
	"errors"
	"testing"
)

func TestNotBuilt(t *testing.T) {
	if Available() {
		t.Fatal("Available() without -tags etcd")
	}
	if _, err := Run(context.Background(), DefaultConfig()); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Run = %v, want ErrNotBuilt", err)
	}
}

//go:build !(linux || darwin || freebsd || dragonfly)

package udp

import (
	"fmt"
	"runtime"
)

// freeBytes cannot check the free space here, and the background writer
// does not start without that check.
func freeBytes(string) (int64, error) {
	return 0, fmt.Errorf("checking free disk space is not implemented on %s", runtime.GOOS)
}

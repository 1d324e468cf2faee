//go:build !wallclock

package udp

// See wallclock_test.go.
const wallclock = false

//go:build wallclock

package udp

// wallclock: with -tags wallclock the tests also assert what depends on
// the machine keeping up with the wall clock (progress counts and time
// windows of real UDP runs), which can fail on a loaded machine; .ci/run
// runs them after the main tests. Without the tag the same runs check
// only what must hold whatever the load (no violation, no lease before
// the old one ran out).
const wallclock = true

package algorithms

import "strings"

// TokenBreaks is a set of conditions under which an algorithm's fencing
// tokens may fail to grow from one holder to the next
// (Algorithm.TokenBreaks). Each is a property of a run, not of a fault
// injector: the runner's fault kinds say which of them they cause.
type TokenBreaks uint8

const (
	// BreaksOnRestart: an acceptor restarts and forgets what it had
	// promised or numbered (diskless acceptors).
	BreaksOnRestart TokenBreaks = 1 << iota
	// BreaksOnClocks: nodes' clocks disagree, within the bounds the
	// algorithm assumes (a token read off the holder's clock).
	BreaksOnClocks
	// BreaksOnLate: the network holds a message for longer than a lease
	// lasts (a stalled link).
	BreaksOnLate
	// BreaksOnLapse: a holder's state at the acceptors lapses instead of
	// being released: its release lost or late, or the holder paused past
	// its lease or crashed.
	BreaksOnLapse
	// BreaksOnDelay: message delays are not small against the gap
	// between one holder's release and the next holder's ask (a slow
	// network), so a round that began earlier can be granted after a
	// round that began later: what a token read off the time a round
	// began cannot survive.
	BreaksOnDelay
)

// tokenBreakNames are the conditions' names, in bit order.
var tokenBreakNames = []string{"restart", "clocks", "late", "lapse", "delay"}

// String names the conditions, comma-separated ("none" for the empty set).
func (b TokenBreaks) String() string {
	var names []string
	for i, n := range tokenBreakNames {
		if b&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

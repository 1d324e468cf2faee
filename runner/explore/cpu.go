package explore

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used so far,
// or 0 where the system does not say.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

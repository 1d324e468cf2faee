//go:build unix

package udp

import (
	"os"
	"syscall"
)

// stopProcess and continueProcess pause and resume a node process
// (SIGSTOP, SIGCONT): `leaselab cluster --pause`.
func stopProcess(p *os.Process) error     { return p.Signal(syscall.SIGSTOP) }
func continueProcess(p *os.Process) error { return p.Signal(syscall.SIGCONT) }

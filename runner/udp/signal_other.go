//go:build !unix

package udp

import (
	"errors"
	"os"
)

var errNoStop = errors.New("pausing a process needs SIGSTOP (unix only)")

func stopProcess(*os.Process) error     { return errNoStop }
func continueProcess(*os.Process) error { return errNoStop }

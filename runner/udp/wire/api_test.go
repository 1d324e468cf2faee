package wire

import (
	"testing"

	"leaselab/runner"
)

// The datagram bounds a Spec accepts are declared in package runner (the
// API must not import the codec); they must describe this layout.
func TestLayoutMatchesSpecBounds(t *testing.T) {
	if HeaderSize != runner.DatagramHeader {
		t.Errorf("header is %d bytes, runner.DatagramHeader says %d", HeaderSize, runner.DatagramHeader)
	}
	if HeaderSize+MsgSize != runner.MinDatagram {
		t.Errorf("header and one message take %d bytes, runner.MinDatagram says %d", HeaderSize+MsgSize, runner.MinDatagram)
	}
	if MaxDatagram != runner.MaxDatagram {
		t.Errorf("MaxDatagram is %d, runner.MaxDatagram says %d", MaxDatagram, runner.MaxDatagram)
	}
}

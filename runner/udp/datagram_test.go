package udp

import (
	"strings"
	"testing"
	"time"

	"leaselab/runner"
)

// Spec.Net.Datagram reaches the nodes: at runner.MinDatagram every
// message travels alone, at the default messages to a peer share
// datagrams under a batch; and options that contradict the spec are an
// error, not a silent choice.
func TestSpecDatagramSize(t *testing.T) {
	for _, c := range []struct {
		name     string
		datagram int
		eo       int
		err      string
	}{
		{name: "default", datagram: 0},
		{name: "one message", datagram: runner.MinDatagram},
		{name: "options agree", datagram: runner.MinDatagram, eo: runner.MinDatagram},
		{name: "options contradict", datagram: runner.MinDatagram, eo: 1400, err: "datagram size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := udpSpec("naive", "batch")
			s.Proposers = 1
			s.Leases = 2000
			s.Duration = 15 * time.Second
			s.Net.Datagram = c.datagram
			r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Window: 256, MaxDatagram: c.eo})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want an error about %q, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := ex.Meters
			t.Logf("acquired %d, %d messages in %d datagrams (%d send errors)", r.LeasesAcquired, m.MsgsSent, m.DatagramsSent, m.SendErrors)
			if r.LeasesAcquired == 0 || m.DatagramsSent == 0 {
				t.Fatalf("nothing happened: acquired %d, datagrams %d", r.LeasesAcquired, m.DatagramsSent)
			}
			if r.Params.Net.Datagram != c.datagram {
				t.Errorf("result's spec has datagram %d, want %d", r.Params.Net.Datagram, c.datagram)
			}
			// Every datagram carried exactly one message. (Messages and
			// datagrams need not match one for one: what a node had not
			// written yet when the run ended is counted as a message only.)
			if c.datagram == runner.MinDatagram && m.BytesSent != m.DatagramsSent*int64(runner.MinDatagram) {
				t.Errorf("one message per datagram: %d bytes in %d datagrams", m.BytesSent, m.DatagramsSent)
			}
			if c.datagram == 0 && m.DatagramsSent >= m.MsgsSent {
				t.Errorf("default size: %d datagrams for %d messages, none shared", m.DatagramsSent, m.MsgsSent)
			}
		})
	}
}

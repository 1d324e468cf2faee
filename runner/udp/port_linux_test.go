//go:build linux

package udp

import (
	"net"
	"net/netip"
	"testing"
)

// A crashed node's port stays out of other sockets' reach until the node
// restarts on it.
func TestCrashedNodePortIsHeld(t *testing.T) {
	c, err := listenFresh(netip.MustParseAddr("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	addr := c.LocalAddr().(*net.UDPAddr).AddrPort()
	c.Close() // the crash
	h := holdPort(addr)
	if h == nil {
		t.Fatal("the crashed node's port could not be held")
	}
	defer h.Close()
	if o, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(addr)); err == nil {
		o.Close()
		t.Fatalf("another socket bound %v while it was held", addr)
	}
	n, err := listenNode(addr) // the restart
	if err != nil {
		t.Fatalf("the restarted node cannot bind its port: %v", err)
	}
	n.Close()
}

// Nodes never share a port: the kernel may hand a port-0 bind that asks
// for SO_REUSEPORT a port another such socket has, which is why
// listenFresh sets the option only after its bind.
func TestFreshPortsAreDistinct(t *testing.T) {
	seen := map[uint16]bool{}
	for range 500 {
		c, err := listenFresh(netip.MustParseAddr("127.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p := c.LocalAddr().(*net.UDPAddr).AddrPort().Port()
		if seen[p] {
			t.Fatalf("two nodes were given port %d", p)
		}
		seen[p] = true
	}
}

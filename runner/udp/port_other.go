//go:build !linux

package udp

import (
	"net"
	"net/netip"
)

// listenFresh binds a node's first socket on a port the kernel picks.
// Outside Linux a crashed node's port is not held (holdPort), and a
// restart binds it again as it finds it (listenNode).
func listenFresh(addr netip.Addr) (*net.UDPConn, error) {
	return net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
}

func listenNode(addr netip.AddrPort) (*net.UDPConn, error) {
	return net.ListenUDP("udp", net.UDPAddrFromAddrPort(addr))
}

func holdPort(netip.AddrPort) *net.UDPConn { return nil }

// canHoldPorts: holdPort does not work here.
const canHoldPorts = false

//go:build linux

package udp

import (
	"context"
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenFresh binds a node's first socket on a port the kernel picks,
// then lets later sockets of this program join that port with
// SO_REUSEPORT (listenNode), so that a placeholder can hold the port of a
// crashed node (holdPort) until the node restarts and binds it again.
// Without that, the crash frees the port and any socket anywhere on the
// machine that binds port 0 may be given it (a parallel test, another
// run), and the restart fails. The option is set after the bind, not
// before: the kernel may give a socket that asks for port 0 with
// SO_REUSEPORT set a port that another such socket of the same user
// already has (measured: 5,692 of 20,000 binds), and two nodes would share
// one. A socket that binds without the option, as this one and every
// other program's do, never gets a port in use.
func listenFresh(addr netip.Addr) (*net.UDPConn, error) {
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		return nil, err
	}
	if rc, err := c.SyscallConn(); err == nil {
		// Best effort: without the option the port is not held after a
		// crash, as on other systems.
		_ = rc.Control(func(fd uintptr) {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		})
	}
	return c, nil
}

// canHoldPorts: holdPort works here.
const canHoldPorts = true

// listenNode binds addr, a port a node of this run had (listenFresh),
// with SO_REUSEPORT: beside a placeholder on it, or the socket of a
// killed incarnation not closed yet. The kernel lets a socket bind a port
// in use only if every socket on it set the option and all belong to one
// user, so no other program's socket gets in.
func listenNode(addr netip.AddrPort) (*net.UDPConn, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	pc, err := lc.ListenPacket(context.Background(), "udp", addr.String())
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}

// holdPort binds a placeholder on a crashed node's port (see
// listenFresh). It reads nothing: what peers send the crashed node is
// dropped once its small buffer is full, as the crashed node drops it.
// nil if the port cannot be held; the restart then binds the port as it
// finds it.
func holdPort(addr netip.AddrPort) *net.UDPConn {
	c, err := listenNode(addr)
	if err != nil {
		return nil
	}
	_ = c.SetReadBuffer(1) // the kernel's minimum: keep nothing
	return c
}

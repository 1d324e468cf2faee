package udp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/ipv4"
)

// The machine's own limits, measured with the same sockets and the same
// calls the environment uses, so that lease numbers can be read as ratios
// of what UDP on this machine can do at all.

func listenLoopback() (*net.UDPConn, error) {
	return net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0)))
}

// RawRTT ping-pongs a 64-byte datagram between two loopback sockets (each
// served by its own goroutine, as the nodes are) reps times after a short
// warm-up and returns every round trip, sorted.
func RawRTT(reps int) ([]time.Duration, error) {
	if reps < 1 {
		return nil, fmt.Errorf("udp: raw rtt needs at least 1 repetition, got %d", reps)
	}
	a, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	defer a.Close()
	b, err := listenLoopback()
	if err != nil {
		return nil, err
	}
	bAddr := b.LocalAddr().(*net.UDPAddr).AddrPort()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // echo
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			k, from, err := b.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if _, err := b.WriteToUDPAddrPort(buf[:k], from); err != nil {
				return
			}
		}
	}()
	defer func() { b.Close(); wg.Wait() }()
	msg := make([]byte, 64)
	buf := make([]byte, 2048)
	const warmup = 200
	out := make([]time.Duration, 0, reps)
	for i := 0; i < warmup+reps; i++ {
		// A lost datagram (loopback drops only under overload) would hang
		// the ping-pong; the deadline turns it into an error instead.
		if err := a.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if _, err := a.WriteToUDPAddrPort(msg, bAddr); err != nil {
			return nil, err
		}
		if _, _, err := a.ReadFromUDPAddrPort(buf); err != nil {
			return nil, fmt.Errorf("udp: raw rtt: %w", err)
		}
		if i >= warmup {
			out = append(out, time.Since(t0))
		}
	}
	slices.Sort(out)
	return out, nil
}

// RawRate is the result of RawDatagrams.
type RawRate struct {
	Size        int     // datagram payload bytes
	SentPerSec  float64 // datagrams the sender wrote per second
	RecvPerSec  float64 // datagrams the receiver read per second
	LossPercent float64 // datagrams written but not read (socket buffer overflow)
}

// RawDatagrams has one goroutine write datagrams of size bytes to another
// that reads them, as fast as each can, for about d, and reports the
// rates: one datagram a system call each way.
func RawDatagrams(size int, d time.Duration) (RawRate, error) {
	return rawDatagrams(size, d, 1)
}

// RawBatch is how many datagrams RawDatagramsBatched moves in one system
// call each way.
const RawBatch = 64

// RawDatagramsBatched is RawDatagrams with RawBatch datagrams a system
// call each way (sendmmsg and recvmmsg on Linux, through x/net's
// ipv4.PacketConn, as the nodes send and read; one a call elsewhere): the
// machine's datagram rate once syscalls are batched.
func RawDatagramsBatched(size int, d time.Duration) (RawRate, error) {
	return rawDatagrams(size, d, RawBatch)
}

func rawDatagrams(size int, d time.Duration, batch int) (RawRate, error) {
	if size < 1 || size > 65507 {
		return RawRate{}, fmt.Errorf("udp: raw datagram size %d out of range [1, 65507]", size)
	}
	if d <= 0 {
		return RawRate{}, errors.New("udp: raw rate needs a positive duration")
	}
	a, err := listenLoopback()
	if err != nil {
		return RawRate{}, err
	}
	defer a.Close()
	b, err := listenLoopback()
	if err != nil {
		return RawRate{}, err
	}
	_ = b.SetReadBuffer(4 << 20)
	bAddr := b.LocalAddr().(*net.UDPAddr).AddrPort()
	var recv atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		readDatagrams(b, batch, &recv)
	}()
	msg := make([]byte, size)
	var sent int64
	write := datagramWriter(a, bAddr, msg, batch)
	t0 := time.Now()
	for time.Since(t0) < d {
		for k := 0; k < 64; k += batch {
			sent += int64(write())
		}
	}
	el := time.Since(t0)
	// Let the receiver take what is still queued, then stop it.
	time.Sleep(20 * time.Millisecond)
	got := recv.Load()
	b.Close()
	wg.Wait()
	r := RawRate{Size: size, SentPerSec: float64(sent) / el.Seconds(), RecvPerSec: float64(got) / el.Seconds()}
	if sent > 0 {
		r.LossPercent = 100 * float64(sent-got) / float64(sent)
	}
	return r, nil
}

// readDatagrams counts in recv the datagrams b reads, batch a system call
// (one a call: ReadFromUDPAddrPort, as the unbatched environment reads),
// until b is closed. It is rawDatagrams' receiver, apart so that the
// measurement reads on its own.
func readDatagrams(b *net.UDPConn, batch int, recv *atomic.Int64) {
	if batch == 1 {
		buf := make([]byte, 65536)
		for {
			if _, _, err := b.ReadFromUDPAddrPort(buf); err != nil {
				return
			}
			recv.Add(1)
		}
	}
	pc := ipv4.NewPacketConn(b)
	ms := make([]ipv4.Message, batch)
	for i := range ms {
		ms[i].Buffers = [][]byte{make([]byte, 65536)}
	}
	for {
		k, err := pc.ReadBatch(ms, 0)
		if err != nil {
			return
		}
		recv.Add(int64(k))
	}
}

// datagramWriter returns rawDatagrams' send step: one system call on a
// that sends batch copies of msg to the address to (one a call:
// WriteToUDPAddrPort), returning how many went out. It is built before the timed loop
// so that the loop measures the writes alone.
func datagramWriter(a *net.UDPConn, to netip.AddrPort, msg []byte, batch int) func() int {
	if batch == 1 {
		return func() int {
			if _, err := a.WriteToUDPAddrPort(msg, to); err == nil {
				return 1
			}
			return 0
		}
	}
	pc := ipv4.NewPacketConn(a)
	addr := net.UDPAddrFromAddrPort(to)
	ms := make([]ipv4.Message, batch)
	for i := range ms {
		ms[i] = ipv4.Message{Buffers: [][]byte{msg}, Addr: addr}
	}
	return func() int {
		k, err := pc.WriteBatch(ms, 0)
		if err != nil {
			return 0
		}
		return k
	}
}

// Package wire is the UDP codec of algorithms.Message.
//
// A datagram is a fixed 8-byte header followed by Count messages of
// MsgSize (64) bytes each, every integer little endian:
//
//	header:  magic 2 ("LL" = 0x4C4C) | version 1 | reserved 1 (0) | sender 2 | count 2
//	message: kind 1 | flags 1 | from 2 | to 2 | owner 2 |
//	         resource 8 | ballot 8 | accepted 8 | promised 8 |
//	         instance 8 | span 8 | expiry 8
//
// The layout is fixed so that encoding is a handful of stores and decoding
// a handful of loads with no allocation, and so that the simulator can count
// bytes with MsgSize (runner.WireSize) and agree with the real network. Several
// messages share a datagram because one datagram per message caps a node
// near the kernel's per-syscall rate (DESIGN.md in the repository's root,
// "UDP").
//
// Decoding never trusts its input: a datagram whose length does not match
// its count, whose magic, version or reserved byte is wrong, that is larger
// than MaxDatagram, or that carries a message of an unknown kind or from a
// node other than the sender is rejected with an error, never a panic.
// A kind is known when it is registered (algorithms.RegisterKinds): the
// built-in kinds always are, an algorithm's own kinds when its package is
// part of the binary. Encoding refuses the same kinds decoding rejects.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"leaselab/algorithms"
)

const (
	// Magic opens every datagram ("LL").
	Magic uint16 = 0x4C4C
	// Version of the layout; a decoder rejects any other.
	Version uint8 = 1
	// HeaderSize is the size of the datagram header.
	HeaderSize = 8
	// MsgSize is the size of one encoded message (the layout above).
	MsgSize = 64
	// MaxDatagram is the largest UDP payload over IPv4 (65535 - 20 - 8).
	MaxDatagram = 65507
	// MaxMessages is how many messages fit in the largest datagram.
	MaxMessages = (MaxDatagram - HeaderSize) / MsgSize
)

// Header is the decoded datagram header.
type Header struct {
	Sender algorithms.NodeID
	Count  int
}

// Errors of Decode. They are wrapped with detail; test with errors.Is.
var (
	ErrShort    = errors.New("wire: datagram shorter than its header")
	ErrMagic    = errors.New("wire: bad magic")
	ErrVersion  = errors.New("wire: unsupported version")
	ErrReserved = errors.New("wire: reserved header byte not zero")
	ErrLength   = errors.New("wire: length does not match message count")
	ErrTooLarge = errors.New("wire: datagram too large")
	ErrEmpty    = errors.New("wire: datagram carries no message")
	ErrKind     = errors.New("wire: message kind not registered by any algorithm of this binary")
	ErrSender   = errors.New("wire: message not from the datagram's sender")
	ErrFull     = errors.New("wire: batch full")
)

// AppendHeader appends a header for count messages from sender.
func AppendHeader(b []byte, sender algorithms.NodeID, count int) []byte {
	return append(b,
		byte(Magic&0xFF), byte(Magic>>8),
		Version, 0,
		byte(sender), byte(sender>>8),
		byte(count), byte(count>>8))
}

// SetCount patches the message count of the header at the start of b, for
// builders that append messages before they know how many there will be.
func SetCount(b []byte, count int) {
	binary.LittleEndian.PutUint16(b[6:8], uint16(count))
}

// AppendMessage appends the 64-byte encoding of m.
func AppendMessage(b []byte, m *algorithms.Message) []byte {
	n := len(b)
	if cap(b)-n < MsgSize {
		nb := make([]byte, n, 2*cap(b)+MsgSize)
		copy(nb, b)
		b = nb
	}
	b = b[:n+MsgSize]
	PutMessage(b[n:], m)
	return b
}

// PutMessage writes the encoding of m into p, which must be at least
// MsgSize bytes long.
func PutMessage(p []byte, m *algorithms.Message) {
	_ = p[MsgSize-1] // one bounds check for all stores below
	p[0] = byte(m.Kind)
	p[1] = m.Flags
	le := binary.LittleEndian
	le.PutUint16(p[2:], uint16(m.From))
	le.PutUint16(p[4:], uint16(m.To))
	le.PutUint16(p[6:], uint16(m.Owner))
	le.PutUint64(p[8:], uint64(m.Resource))
	le.PutUint64(p[16:], uint64(m.Ballot))
	le.PutUint64(p[24:], uint64(m.Accepted))
	le.PutUint64(p[32:], uint64(m.Promised))
	le.PutUint64(p[40:], m.Instance)
	le.PutUint64(p[48:], uint64(m.Span))
	le.PutUint64(p[56:], uint64(m.Expiry))
}

// GetMessage decodes one message from p (at least MsgSize bytes) into m.
// It checks the kind; the caller checks the sender.
func GetMessage(p []byte, m *algorithms.Message) error {
	_ = p[MsgSize-1]
	k := algorithms.Kind(p[0])
	if !k.Valid() {
		return fmt.Errorf("%w: %d", ErrKind, p[0])
	}
	le := binary.LittleEndian
	*m = algorithms.Message{
		Kind:     k,
		Flags:    p[1],
		From:     algorithms.NodeID(le.Uint16(p[2:])),
		To:       algorithms.NodeID(le.Uint16(p[4:])),
		Owner:    algorithms.NodeID(le.Uint16(p[6:])),
		Resource: algorithms.ResourceID(le.Uint64(p[8:])),
		Ballot:   algorithms.Ballot(le.Uint64(p[16:])),
		Accepted: algorithms.Ballot(le.Uint64(p[24:])),
		Promised: algorithms.Ballot(le.Uint64(p[32:])),
		Instance: le.Uint64(p[40:]),
		Span:     int64(le.Uint64(p[48:])),
		Expiry:   algorithms.Local(le.Uint64(p[56:])),
	}
	return nil
}

// AppendDatagram appends one datagram holding msgs, all from sender. It
// returns an error, and b unchanged, if msgs is empty, holds more than
// MaxMessages, or holds a message of an invalid kind or another sender:
// the encoder refuses what the decoder would reject.
func AppendDatagram(b []byte, sender algorithms.NodeID, msgs []algorithms.Message) ([]byte, error) {
	switch {
	case len(msgs) == 0:
		return b, ErrEmpty
	case len(msgs) > MaxMessages:
		return b, fmt.Errorf("%w: %d messages, at most %d", ErrTooLarge, len(msgs), MaxMessages)
	}
	for i := range msgs {
		if !msgs[i].Kind.Valid() {
			return b, fmt.Errorf("%w: message %d has kind %d", ErrKind, i, msgs[i].Kind)
		}
		if msgs[i].From != sender {
			return b, fmt.Errorf("%w: message %d from %v, datagram from %v", ErrSender, i, msgs[i].From, sender)
		}
	}
	n := len(b)
	need := HeaderSize + len(msgs)*MsgSize
	if cap(b)-n < need {
		nb := make([]byte, n, n+need)
		copy(nb, b)
		b = nb
	}
	b = AppendHeader(b, sender, len(msgs))
	b = b[:n+need]
	p := b[n+HeaderSize:]
	for i := range msgs {
		PutMessage(p[i*MsgSize:], &msgs[i])
	}
	return b, nil
}

// SenderOf reads the sender field of a datagram's header without checking
// anything else; p must be at least HeaderSize bytes long.
func SenderOf(p []byte) algorithms.NodeID {
	return algorithms.NodeID(binary.LittleEndian.Uint16(p[4:]))
}

// ParseHeader checks a datagram's header and length and returns the header.
// After it succeeds, message i is at p[HeaderSize+i*MsgSize:].
func ParseHeader(p []byte) (Header, error) {
	if len(p) > MaxDatagram {
		return Header{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(p), MaxDatagram)
	}
	if len(p) < HeaderSize {
		return Header{}, fmt.Errorf("%w: %d bytes", ErrShort, len(p))
	}
	le := binary.LittleEndian
	if m := le.Uint16(p[0:]); m != Magic {
		return Header{}, fmt.Errorf("%w: %#04x", ErrMagic, m)
	}
	if p[2] != Version {
		return Header{}, fmt.Errorf("%w: %d (want %d)", ErrVersion, p[2], Version)
	}
	if p[3] != 0 {
		return Header{}, fmt.Errorf("%w: %#02x", ErrReserved, p[3])
	}
	h := Header{Sender: algorithms.NodeID(le.Uint16(p[4:])), Count: int(le.Uint16(p[6:]))}
	if h.Count == 0 {
		return Header{}, ErrEmpty
	}
	if want := HeaderSize + h.Count*MsgSize; len(p) != want {
		if len(p) == want+TagSize {
			return Header{}, fmt.Errorf("%w (%d messages and a %d-byte tag)", ErrSigned, h.Count, TagSize)
		}
		return Header{}, fmt.Errorf("%w: %d bytes for %d messages (want %d)", ErrLength, len(p), h.Count, want)
	}
	return h, nil
}

// Decode checks the datagram p and appends its messages to dst. On error
// it returns dst unchanged (no message of a bad datagram is delivered: a
// datagram is accepted or rejected whole). Decode allocates only when dst
// must grow; reuse dst[:0] across calls.
func Decode(p []byte, dst []algorithms.Message) (Header, []algorithms.Message, error) {
	h, err := ParseHeader(p)
	if err != nil {
		return h, dst, err
	}
	n := len(dst)
	if cap(dst)-n < h.Count {
		nd := make([]algorithms.Message, n, n+h.Count)
		copy(nd, dst)
		dst = nd
	}
	out := dst[:n+h.Count]
	body := p[HeaderSize:]
	for i := 0; i < h.Count; i++ {
		m := &out[n+i]
		if err := GetMessage(body[i*MsgSize:], m); err != nil {
			return Header{}, dst[:n], fmt.Errorf("message %d: %w", i, err)
		}
		if m.From != h.Sender {
			return Header{}, dst[:n], fmt.Errorf("%w: message %d from %v, datagram from %v", ErrSender, i, m.From, h.Sender)
		}
	}
	return h, out, nil
}

// Batch builds one datagram incrementally: Add messages until Full, then
// Bytes, then Reset. It keeps its buffer across resets, so steady-state
// building allocates nothing.
type Batch struct {
	buf    []byte
	sender algorithms.NodeID
	count  int
	limit  int // max messages per datagram
}

// NewBatch returns a builder for datagrams of at most maxBytes bytes
// (HeaderSize+MsgSize <= maxBytes <= MaxDatagram) from sender.
func NewBatch(sender algorithms.NodeID, maxBytes int) (*Batch, error) {
	return newBatch(sender, maxBytes, 0)
}

// NewSignedBatch is NewBatch for a node that signs its datagrams: a
// datagram and its tag together stay within maxBytes.
func NewSignedBatch(sender algorithms.NodeID, maxBytes int) (*Batch, error) {
	return newBatch(sender, maxBytes, TagSize)
}

func newBatch(sender algorithms.NodeID, maxBytes, tag int) (*Batch, error) {
	if maxBytes < HeaderSize+MsgSize+tag || maxBytes > MaxDatagram {
		return nil, fmt.Errorf("wire: datagram size %d out of range [%d, %d]", maxBytes, HeaderSize+MsgSize+tag, MaxDatagram)
	}
	b := &Batch{sender: sender, limit: (maxBytes - HeaderSize - tag) / MsgSize}
	// Room for a tag too, so that Key.Sign appends in place.
	b.buf = make([]byte, 0, HeaderSize+b.limit*MsgSize+TagSize)
	b.Reset()
	return b, nil
}

// Reset empties the batch.
func (b *Batch) Reset() {
	b.buf = AppendHeader(b.buf[:0], b.sender, 0)
	b.count = 0
}

// Add appends m. It adds nothing and returns ErrFull when the batch is
// full, ErrKind or ErrSender when m is not a valid message of the sender
// (sentinels, unwrapped, so the hot path does not allocate).
func (b *Batch) Add(m *algorithms.Message) error {
	switch {
	case b.count >= b.limit:
		return ErrFull
	case !m.Kind.Valid():
		return ErrKind
	case m.From != b.sender:
		return ErrSender
	}
	n := len(b.buf)
	b.buf = b.buf[:n+MsgSize]
	PutMessage(b.buf[n:], m)
	b.count++
	return nil
}

// Len is the number of messages in the batch.
func (b *Batch) Len() int { return b.count }

// Full reports whether another message would not fit.
func (b *Batch) Full() bool { return b.count >= b.limit }

// Limit is the most messages one datagram of this batch holds.
func (b *Batch) Limit() int { return b.limit }

// Bytes returns the datagram (valid until the next Add or Reset), or nil
// when the batch is empty.
func (b *Batch) Bytes() []byte {
	if b.count == 0 {
		return nil
	}
	SetCount(b.buf, b.count)
	return b.buf
}

package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"leaselab/algorithms"
)

// sample returns messages that set every field to a distinct, non-trivial
// value, including extremes, so a swapped or truncated field shows.
func sample(sender algorithms.NodeID) []algorithms.Message {
	return []algorithms.Message{
		{Kind: algorithms.Prepare, Flags: 0x81, From: sender, To: 2, Owner: algorithms.NoNode,
			Resource: 0x0102030405060708, Ballot: algorithms.MakeBallot(7, 3, sender)},
		{Kind: algorithms.Promise, From: sender, To: 0, Owner: 1, Resource: math.MaxUint64,
			Ballot: 11, Accepted: 12, Promised: 13, Instance: 14, Span: -15, Expiry: math.MinInt64},
		{Kind: algorithms.Invalidate, Flags: 0xFF, From: sender, To: 0xFFFE, Owner: 0x1234,
			Resource: 1, Ballot: math.MaxUint64, Accepted: 1, Promised: math.MaxUint64 - 1,
			Instance: math.MaxUint64, Span: math.MaxInt64, Expiry: math.MaxInt64},
	}
}

func TestLayoutMatchesContract(t *testing.T) {
	// The byte offsets documented at the top of wire.go, checked field by
	// field so a change to either side breaks this test.
	m := algorithms.Message{Kind: algorithms.Propose, Flags: 2, From: 0x0304, To: 0x0506, Owner: 0x0708,
		Resource: 9, Ballot: 10, Accepted: 11, Promised: 12, Instance: 13, Span: 14, Expiry: 15}
	p := AppendMessage(nil, &m)
	if len(p) != MsgSize {
		t.Fatalf("encoded size %d, MsgSize says %d", len(p), MsgSize)
	}
	le := binary.LittleEndian
	checks := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"kind", uint64(p[0]), uint64(algorithms.Propose)},
		{"flags", uint64(p[1]), 2},
		{"from", uint64(le.Uint16(p[2:])), 0x0304},
		{"to", uint64(le.Uint16(p[4:])), 0x0506},
		{"owner", uint64(le.Uint16(p[6:])), 0x0708},
		{"resource", le.Uint64(p[8:]), 9},
		{"ballot", le.Uint64(p[16:]), 10},
		{"accepted", le.Uint64(p[24:]), 11},
		{"promised", le.Uint64(p[32:]), 12},
		{"instance", le.Uint64(p[40:]), 13},
		{"span", le.Uint64(p[48:]), 14},
		{"expiry", le.Uint64(p[56:]), 15},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 3, 100, MaxMessages} {
		var msgs []algorithms.Message
		for len(msgs) < n {
			msgs = append(msgs, sample(5)...)
		}
		msgs = msgs[:n]
		dg, err := AppendDatagram(nil, 5, msgs)
		if err != nil {
			t.Fatalf("n=%d: encode: %v", n, err)
		}
		if len(dg) != HeaderSize+n*MsgSize || len(dg) > MaxDatagram {
			t.Fatalf("n=%d: datagram of %d bytes", n, len(dg))
		}
		h, got, err := Decode(dg, nil)
		if err != nil {
			t.Fatalf("n=%d: decode: %v", n, err)
		}
		if h.Sender != 5 || h.Count != n || len(got) != n {
			t.Fatalf("n=%d: header %+v, %d messages", n, h, len(got))
		}
		for i := range msgs {
			if got[i] != msgs[i] {
				t.Fatalf("n=%d: message %d: got %v, want %v", n, i, got[i], msgs[i])
			}
		}
	}
}

func TestDecodeAppends(t *testing.T) {
	dg, err := AppendDatagram(nil, 1, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	pre := algorithms.Message{Kind: algorithms.Grant, From: 9}
	_, got, err := Decode(dg, []algorithms.Message{pre})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0] != pre || got[1] != sample(1)[0] {
		t.Fatalf("Decode did not append after existing messages: %v", got)
	}
}

func TestAppendDatagramAppends(t *testing.T) {
	prefix := []byte("xyz")
	dg, err := AppendDatagram(prefix, 1, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(dg, []byte("xyz")) {
		t.Fatal("prefix lost")
	}
	if _, _, err := Decode(dg[3:], nil); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeErrors(t *testing.T) {
	good, err := AppendDatagram(nil, 1, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(p []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	huge := make([]byte, MaxDatagram+1)
	copy(huge, good)
	tooMany := AppendHeader(nil, 1, MaxMessages+1)
	tooMany = append(tooMany, make([]byte, (MaxMessages+1)*MsgSize)...)
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"nil", nil, ErrShort},
		{"short header", good[:HeaderSize-1], ErrShort},
		{"header only", mutate(func(p []byte) []byte { SetCount(p, 0); return p[:HeaderSize] }), ErrEmpty},
		{"bad magic", mutate(func(p []byte) []byte { p[0] = 'X'; return p }), ErrMagic},
		{"bad version", mutate(func(p []byte) []byte { p[2] = Version + 1; return p }), ErrVersion},
		{"version zero", mutate(func(p []byte) []byte { p[2] = 0; return p }), ErrVersion},
		{"reserved", mutate(func(p []byte) []byte { p[3] = 1; return p }), ErrReserved},
		{"truncated message", good[:len(good)-1], ErrLength},
		{"missing message", good[:len(good)-MsgSize], ErrLength},
		{"trailing byte", append(append([]byte(nil), good...), 0), ErrLength},
		{"count too high", mutate(func(p []byte) []byte { SetCount(p, 4); return p }), ErrLength},
		{"count too low", mutate(func(p []byte) []byte { SetCount(p, 2); return p }), ErrLength},
		{"oversized", huge, ErrTooLarge},
		{"count beyond max", tooMany, ErrTooLarge},
		{"kind invalid", mutate(func(p []byte) []byte { p[HeaderSize] = byte(algorithms.KindInvalid); return p }), ErrKind},
		{"kind unknown", mutate(func(p []byte) []byte { p[HeaderSize+MsgSize] = 200; return p }), ErrKind},
		{"kind in last", mutate(func(p []byte) []byte { p[HeaderSize+2*MsgSize] = 0xFF; return p }), ErrKind},
		{"foreign sender", mutate(func(p []byte) []byte { p[HeaderSize+MsgSize+2] = 2; return p }), ErrSender},
		{"header sender", mutate(func(p []byte) []byte { p[4] = 7; return p }), ErrSender},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := []algorithms.Message{{Kind: algorithms.Grant}}
			_, got, err := Decode(c.in, dst)
			if !errors.Is(err, c.want) {
				t.Fatalf("got error %v, want %v", err, c.want)
			}
			if len(got) != 1 || got[0] != dst[0] {
				t.Fatalf("a rejected datagram changed dst: %v", got)
			}
		})
	}
}

func TestAppendDatagramErrors(t *testing.T) {
	bad := sample(1)
	bad[1].Kind = 0
	foreign := sample(1)
	foreign[2].From = 3
	cases := []struct {
		name string
		msgs []algorithms.Message
		want error
	}{
		{"empty", nil, ErrEmpty},
		{"too many", make([]algorithms.Message, MaxMessages+1), ErrTooLarge},
		{"invalid kind", bad, ErrKind},
		{"other sender", foreign, ErrSender},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := AppendDatagram([]byte("ab"), 1, c.msgs)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if string(out) != "ab" {
				t.Fatalf("buffer changed on error: %q", out)
			}
		})
	}
}

func TestBatch(t *testing.T) {
	if _, err := NewBatch(1, HeaderSize+MsgSize-1); err == nil {
		t.Fatal("NewBatch accepted a size that holds no message")
	}
	if _, err := NewBatch(1, MaxDatagram+1); err == nil {
		t.Fatal("NewBatch accepted a size beyond MaxDatagram")
	}
	b, err := NewBatch(1, 1400)
	if err != nil {
		t.Fatal(err)
	}
	if b.Limit() != (1400-HeaderSize)/MsgSize || b.Bytes() != nil {
		t.Fatalf("limit %d, empty bytes %v", b.Limit(), b.Bytes())
	}
	m := sample(1)[0]
	for i := 0; i < b.Limit(); i++ {
		m.Resource = algorithms.ResourceID(i)
		if err := b.Add(&m); err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
	}
	if !b.Full() || !errors.Is(b.Add(&m), ErrFull) {
		t.Fatal("batch over its limit")
	}
	if len(b.Bytes()) > 1400 {
		t.Fatalf("datagram of %d bytes > 1400", len(b.Bytes()))
	}
	_, got, err := Decode(b.Bytes(), nil)
	if err != nil || len(got) != b.Limit() || got[b.Limit()-1].Resource != algorithms.ResourceID(b.Limit()-1) {
		t.Fatalf("decode of batch: %v, %d messages", err, len(got))
	}
	b.Reset()
	if b.Len() != 0 || b.Bytes() != nil {
		t.Fatal("Reset left messages")
	}
	bad := m
	bad.Kind = 99
	if !errors.Is(b.Add(&bad), ErrKind) {
		t.Fatal("batch took an invalid kind")
	}
	bad = m
	bad.From = 2
	if !errors.Is(b.Add(&bad), ErrSender) {
		t.Fatal("batch took another node's message")
	}
	if b.Len() != 0 {
		t.Fatal("rejected message counted")
	}
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	b, _ := NewBatch(1, MaxDatagram)
	msgs := sample(1)
	dst := make([]algorithms.Message, 0, MaxMessages)
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset()
		for i := range msgs {
			_ = b.Add(&msgs[i])
		}
		_, _, err := Decode(b.Bytes(), dst[:0])
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per encode+decode, want 0", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := AppendDatagram(nil, 1, sample(1))
	one, _ := AppendDatagram(nil, 0, sample(0)[:1])
	f.Add(good)
	f.Add(one)
	f.Add(good[:HeaderSize])
	f.Add(good[:len(good)-3])
	f.Add([]byte{})
	f.Add([]byte("LL\x01\x00\x01\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, p []byte) {
		h, msgs, err := Decode(p, nil)
		if err != nil {
			if len(msgs) != 0 {
				t.Fatalf("error %v but %d messages returned", err, len(msgs))
			}
			return
		}
		if h.Count != len(msgs) || len(p) != HeaderSize+h.Count*MsgSize {
			t.Fatalf("accepted inconsistent datagram: header %+v, %d messages, %d bytes", h, len(msgs), len(p))
		}
		// Whatever decodes re-encodes to the same bytes: the layout has
		// no slack that could hide data.
		again, err := AppendDatagram(nil, h.Sender, msgs)
		if err != nil {
			t.Fatalf("re-encode of a decoded datagram: %v", err)
		}
		if !bytes.Equal(again, p) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, p)
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	bt, _ := NewBatch(1, MaxDatagram)
	m := sample(1)[0]
	b.ReportAllocs()
	b.SetBytes(MsgSize)
	for i := 0; b.Loop(); i++ {
		if bt.Full() {
			bt.Reset()
		}
		m.Resource = algorithms.ResourceID(i)
		_ = bt.Add(&m)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkDecode(b *testing.B) {
	msgs := make([]algorithms.Message, 0, 1000)
	for len(msgs) < 1000 {
		msgs = append(msgs, sample(1)...)
	}
	dg, err := AppendDatagram(nil, 1, msgs[:1000])
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]algorithms.Message, 0, 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(dg)))
	for b.Loop() {
		_, _, err := Decode(dg, dst[:0])
		if err != nil {
			b.Fatal(err)
		}
	}
	// messages/s is what the environment cares about.
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "msgs/s")
}

// wireTestKind is registered by this test package only: it stands for an
// algorithm's own kind. Kind 251 stays unregistered.
var wireTestKind = algorithms.RegisterKinds("wire-test", 250, "wire-test-ping")[0]

// The codec knows the kinds registered in the binary and nothing else: a
// registered extension kind travels both ways, an unregistered one is
// refused by the encoder and the decoder with ErrKind.
func TestRegisteredKinds(t *testing.T) {
	m := sample(3)[0]
	m.Kind = wireTestKind
	dg, err := AppendDatagram(nil, 3, []algorithms.Message{m})
	if err != nil {
		t.Fatalf("registered kind refused by the encoder: %v", err)
	}
	_, got, err := Decode(dg, nil)
	if err != nil || len(got) != 1 || got[0] != m {
		t.Fatalf("registered kind: got %v, %v", got, err)
	}
	b, _ := NewBatch(3, 1400)
	if err := b.Add(&m); err != nil {
		t.Fatalf("batch refused a registered kind: %v", err)
	}

	unknown := m
	unknown.Kind = 251
	if _, err := AppendDatagram(nil, 3, []algorithms.Message{unknown}); !errors.Is(err, ErrKind) {
		t.Fatalf("encoder: unregistered kind gave %v, want ErrKind", err)
	}
	if err := b.Add(&unknown); !errors.Is(err, ErrKind) {
		t.Fatalf("batch: unregistered kind gave %v, want ErrKind", err)
	}
	dg[HeaderSize] = 251 // the same datagram with the kind byte changed
	_, got, err = Decode(dg, nil)
	if !errors.Is(err, ErrKind) || len(got) != 0 {
		t.Fatalf("decoder: unregistered kind gave %v (%d messages), want ErrKind", err, len(got))
	}
	if want := "kind not registered"; !bytes.Contains([]byte(err.Error()), []byte(want)) || !bytes.Contains([]byte(err.Error()), []byte("251")) {
		t.Fatalf("error %q should say the kind (251) is not registered", err)
	}
}

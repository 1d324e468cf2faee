package wire

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestSignVerify(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	k, err := NewKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := AppendDatagram(nil, 5, sample(5))
	if err != nil {
		t.Fatal(err)
	}
	signed := k.Sign(append([]byte(nil), plain...))
	if len(signed) != len(plain)+TagSize || !bytes.Equal(signed[:len(plain)], plain) {
		t.Fatalf("signed datagram of %d bytes does not extend the plain one (%d)", len(signed), len(plain))
	}
	if SenderOf(signed) != 5 {
		t.Fatalf("SenderOf = %v, want n5", SenderOf(signed))
	}
	body, err := k.Verify(signed)
	if err != nil || !bytes.Equal(body, plain) {
		t.Fatalf("verify: %v", err)
	}
	if _, got, err := Decode(body, nil); err != nil || len(got) != 3 {
		t.Fatalf("decode after verify: %d messages, %v", len(got), err)
	}

	other, _ := NewKey([]byte("another key, also long enough"))
	flip := func(i int) []byte {
		p := append([]byte(nil), signed...)
		p[i] ^= 1
		return p
	}
	bad := []struct {
		name string
		k    *Key
		p    []byte
	}{
		{"other key", other, signed},
		{"sender changed", k, flip(4)},
		{"message From changed", k, flip(HeaderSize + 2)},
		{"ballot changed", k, flip(HeaderSize + MsgSize + 16)},
		{"tag changed", k, flip(len(signed) - 1)},
		{"no tag", k, plain},
		{"short", k, signed[:HeaderSize+TagSize-1]},
	}
	for _, b := range bad {
		if _, err := b.k.Verify(b.p); !errors.Is(err, ErrAuth) {
			t.Errorf("%s: got %v, want ErrAuth", b.name, err)
		}
	}
	// A node without a key says why it cannot read a signed datagram.
	if _, _, err := Decode(signed, nil); !errors.Is(err, ErrSigned) {
		t.Errorf("plain decode of a signed datagram: %v, want ErrSigned", err)
	}
	if _, err := NewKey(secret[:MinKeySize-1]); err == nil {
		t.Error("a key shorter than MinKeySize was accepted")
	}
}

// A signed batch leaves room for the tag within the datagram size, and
// signing its bytes does not allocate.
func TestSignedBatch(t *testing.T) {
	for _, size := range []int{HeaderSize + MsgSize + TagSize, 1400, 16 << 10, MaxDatagram} {
		b, err := NewSignedBatch(1, size)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		m := sample(1)[0]
		for !b.Full() {
			if err := b.Add(&m); err != nil {
				t.Fatal(err)
			}
		}
		k, _ := NewKey(bytes.Repeat([]byte{7}, 32))
		var p []byte
		if n := testing.AllocsPerRun(10, func() { p = k.Sign(b.Bytes()) }); n != 0 {
			t.Errorf("size %d: Sign allocated %.0f times", size, n)
		}
		if len(p) > size {
			t.Errorf("size %d: signed datagram of %d bytes", size, len(p))
		}
	}
	if _, err := NewSignedBatch(1, HeaderSize+MsgSize+TagSize-1); err == nil {
		t.Error("a signed batch too small for one message and a tag was accepted")
	}
}

// BenchmarkSign and BenchmarkVerify: the CPU cost of authentication per
// datagram, for one message, a 1400-byte datagram and a 16 KiB loopback
// datagram (go test -bench Sign ./runner/udp/wire/).
func BenchmarkSign(b *testing.B)   { benchAuth(b, false) }
func BenchmarkVerify(b *testing.B) { benchAuth(b, true) }

func benchAuth(b *testing.B, verify bool) {
	for _, size := range []int{HeaderSize + MsgSize + TagSize, 1400, 16 << 10} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			bt, _ := NewSignedBatch(1, size)
			m := sample(1)[0]
			for !bt.Full() {
				bt.Add(&m)
			}
			k, _ := NewKey(bytes.Repeat([]byte{7}, 32))
			signed := k.Sign(append([]byte(nil), bt.Bytes()...))
			b.SetBytes(int64(len(signed)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if verify {
					if _, err := k.Verify(signed); err != nil {
						b.Fatal(err)
					}
				} else {
					k.Sign(bt.Bytes())
				}
			}
		})
	}
}

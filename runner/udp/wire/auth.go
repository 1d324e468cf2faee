package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
)

// Authenticated datagrams. A node that shares a key with its peers
// appends to every datagram an HMAC-SHA256 tag of everything before it:
// the header (which names the sender) and every message (each names its
// sender again in From). A signed datagram is therefore the plain
// datagram followed by TagSize bytes; the header is unchanged, and since
// TagSize is not a multiple of MsgSize a signed datagram never has the
// length of a plain one:
//
//	header 8 | count x message 64 | tag 32 (HMAC-SHA256(key, header | messages))
//
// The tag proves that a holder of the key wrote the datagram; it does not
// prove that it is new. A captured datagram can be sent again (replayed);
// see the README ("Authenticated nodes") for what that allows.

// TagSize is the size of the HMAC-SHA256 tag of a signed datagram.
const TagSize = sha256.Size

// MinKeySize is the shortest key NewKey accepts.
const MinKeySize = 16

// Errors of Key.Verify and Decode about signatures.
var (
	// ErrAuth: the datagram's tag is missing or does not match.
	ErrAuth = errors.New("wire: datagram fails authentication")
	// ErrSigned: a plain decoder got a datagram that carries a tag.
	ErrSigned = errors.New("wire: signed datagram, but this node has no key")
)

// Key signs and verifies datagrams. It keeps one HMAC state and is not
// safe for concurrent use: give each goroutine its own (NewKey again).
type Key struct {
	mac hash.Hash
	sum [TagSize]byte
}

// NewKey returns a Key for the shared secret (at least MinKeySize bytes).
func NewKey(secret []byte) (*Key, error) {
	if len(secret) < MinKeySize {
		return nil, fmt.Errorf("wire: key of %d bytes, at least %d needed", len(secret), MinKeySize)
	}
	return &Key{mac: hmac.New(sha256.New, secret)}, nil
}

func (k *Key) tag(p []byte) []byte {
	k.mac.Reset()
	k.mac.Write(p)
	return k.mac.Sum(k.sum[:0])
}

// Sign appends the tag of the datagram p to p and returns the extended
// slice. It allocates only when p has no room for TagSize more bytes.
func (k *Key) Sign(p []byte) []byte {
	return append(p, k.tag(p)...)
}

// Verify checks the tag at the end of the signed datagram p in constant
// time and returns the plain datagram before it (for Decode), or ErrAuth.
func (k *Key) Verify(p []byte) ([]byte, error) {
	if len(p) < HeaderSize+TagSize {
		return nil, fmt.Errorf("%w: %d bytes, too short to carry a tag", ErrAuth, len(p))
	}
	body, tag := p[:len(p)-TagSize], p[len(p)-TagSize:]
	if !hmac.Equal(k.tag(body), tag) {
		return nil, fmt.Errorf("%w: tag does not match (another key, or altered on the way)", ErrAuth)
	}
	return body, nil
}

package runner

import (
	"encoding/json"
	"strings"
	"testing"

	_ "leaselab/naive" // Validate looks the algorithm up
)

func TestSpecDatagramValidate(t *testing.T) {
	for _, tc := range []struct {
		bytes int
		ok    bool
	}{
		{0, true}, // the environment's default
		{MinDatagram, true},
		{MinDatagram + 1, true},
		{1400, true},
		{MaxDatagram, true},
		{MinDatagram - 1, false},
		{1, false},
		{-1, false},
		{MaxDatagram + 1, false},
	} {
		s := DefaultSpec()
		s.Algo = "naive"
		s.Net.Datagram = tc.bytes
		err := s.Validate()
		if tc.ok && err != nil {
			t.Errorf("datagram %d: unexpected error %v", tc.bytes, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "datagram size")) {
			t.Errorf("datagram %d: want a datagram size error, got %v", tc.bytes, err)
		}
	}
}

// The field is additive: a spec that leaves it at the default marshals as
// before, and one that sets it round-trips under datagram_bytes.
func TestSpecDatagramJSON(t *testing.T) {
	b, err := json.Marshal(DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "datagram_bytes") {
		t.Errorf("default spec marshals datagram_bytes: %s", b)
	}
	s := DefaultSpec()
	s.Net.Datagram = MinDatagram
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"datagram_bytes":72`) {
		t.Errorf("want datagram_bytes 72 in %s", b)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Net.Datagram != MinDatagram {
		t.Errorf("round trip gave %d", back.Net.Datagram)
	}
}

package runner

import (
	"encoding/json"
	"sort"
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

// Every key of the spec is always present, so the schema of a result's
// params is the same for every run: the default spec and one that sets
// the datagram size have the same keys, and the size round-trips under
// datagram_bytes.
func TestSpecDatagramJSON(t *testing.T) {
	b, err := json.Marshal(DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"datagram_bytes":0`) {
		t.Errorf("default spec lacks datagram_bytes 0: %s", b)
	}
	s := DefaultSpec()
	s.Net.Datagram = MinDatagram
	s.Resources, s.Giveup, s.Extend = 2, 0.5, 0.5
	s.Net.Stale, s.Net.Late = 1, 0.1
	s.Clocks.Free, s.Clocks.Edges = true, true
	s.Disk.Dir = "/tmp/x"
	set, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if a, z := jsonKeys(t, b), jsonKeys(t, set); a != z {
		t.Errorf("keys differ:\ndefault %s\nset     %s", a, z)
	}
	b = set
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

// jsonKeys lists the keys of a JSON object and of the objects in it,
// dotted and sorted.
func jsonKeys(t *testing.T, b []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", m)
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

package runner

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestMeta(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	m := NewMeta(start)
	if m.Version == "" || m.Revision == "" || m.GoVersion == "" || m.GOOS == "" || m.GOARCH == "" || m.NumCPU < 1 {
		t.Fatalf("incomplete meta %+v", m)
	}
	if m.StartedAt != "2026-01-02T02:04:05Z" {
		t.Errorf("started_at %q, want UTC RFC 3339", m.StartedAt)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "revision", "go_version", "goos", "goarch", "num_cpu", "hostname", "started_at"} {
		if !strings.Contains(string(b), `"`+k+`":`) {
			t.Errorf("json lacks %s: %s", k, b)
		}
	}
	m.Hostname = "two words"
	line := m.CommentLine()
	if !strings.HasPrefix(line, "# meta version=") || strings.Contains(line, "\n") || !strings.Contains(line, `hostname="two words"`) {
		t.Errorf("comment line %q", line)
	}
}

func TestOptionalMSJSON(t *testing.T) {
	for _, c := range []struct {
		v    OptionalMS
		want string
	}{{None, "null"}, {-3, "null"}, {0, "0"}, {12.5, "12.5"}} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%v marshals to %s (%v), want %s", float64(c.v), b, err, c.want)
		}
	}
	var back struct {
		X OptionalMS `json:"x"`
	}
	if err := json.Unmarshal([]byte(`{"x":null}`), &back); err != nil || back.X.Valid() {
		t.Errorf("null unmarshals to %v (%v)", back.X, err)
	}
}

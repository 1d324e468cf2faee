package plots

import (
	"fmt"
	"testing"
)

// Every series with a fixed look differs from every other in colour or
// marker, so two of them are never confused, even in charts they do not
// share; and the one-message-per-datagram series of fig5 do not take
// their algorithm's colour (they are drawn next to it).
func TestKnownStylesDistinct(t *testing.T) {
	type look struct {
		color string
		shape string
	}
	seen := map[look]string{}
	for name, s := range known {
		r, g, b, _ := s.Color.RGBA()
		l := look{fmt.Sprintf("%02x%02x%02x", r>>8, g>>8, b>>8), fmt.Sprintf("%T", s.Shape)}
		if other, dup := seen[l]; dup {
			t.Errorf("%s and %s have the same colour and marker", name, other)
		}
		seen[l] = name
	}
	for _, algo := range []string{"fatlease", "classicpaxos"} {
		if v, b := StyleFor(algo+" (1 msg/datagram)"), StyleFor(algo); v.Color == b.Color {
			t.Errorf("%s (1 msg/datagram) has %s's colour", algo, algo)
		}
	}
}

//go:build realrun

package exp

import (
	"os"
	"strings"
	"testing"
	"time"

	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
)

func TestRealQuick(t *testing.T) {
	fakeAlgos()
	names := strings.Split(os.Getenv("ONLY"), ",")
	if os.Getenv("ONLY") == "" {
		names = nil
	}
	es, err := Select(names)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		start := time.Now()
		_, err := Reproduce([]Experiment{e}, Config{Options: Options{Quick: os.Getenv("FULL") == ""}, Out: os.Getenv("OUT"), Workers: 2})
		t.Logf("%s: %v (%v)", e.Name, time.Since(start).Round(time.Millisecond), err)
	}
}

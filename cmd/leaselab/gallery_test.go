package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The charts committed in plots/gallery must be exactly what the command
// the README shows beside them draws: the simulator is deterministic, so
// a chart that differs is stale (regenerate it with the command below and
// commit it) or a determinism bug.
func TestGalleryIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("draws four experiments")
	}
	out := t.TempDir()
	args := []string{"reproduce", "--quick", "--only", "deadlock,timeline,fig8,ablations", "--out", out, "--quiet"}
	var stderr bytes.Buffer
	if code := run(args, io.Discard, &stderr); code != 0 {
		t.Fatalf("leaselab %v: exit %d: %s", args, code, stderr.String())
	}
	gallery := filepath.Join("..", "..", "plots", "gallery")
	for _, name := range []string{"deadlock", "timeline", "fig8", "ablations"} {
		want, err := os.ReadFile(filepath.Join(gallery, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("plots/gallery/%s.png is stale: regenerate with `go run ./cmd/leaselab reproduce --quick --only deadlock,timeline,fig8,ablations --out /tmp/g` and copy the PNGs", name)
		}
	}
}

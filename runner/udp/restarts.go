package udp

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"leaselab/algorithms"
	"leaselab/runner/udp/wal"
)

// A node's restart counter goes into its ballots (PaxosLease) and tells a
// diskless node that it forgot state and must stay silent for M. The
// simulator keeps it for the nodes; a node process keeps it in a small
// file of its state directory, so an operator need not count restarts by
// hand (`leaselab node --state-dir`).

// RestartsPath is the file in dir that holds how often node id started.
func RestartsPath(dir string, id algorithms.NodeID) string {
	return filepath.Join(dir, fmt.Sprintf("node%d.restarts", id))
}

// NextRestarts returns the restart counter for a new life of node id: how
// often it started before, read from dir (0 if it never did), after it has
// recorded one more start on stable storage. The record comes first: a
// life that crashed before recording never ran, so its counter may be used
// again, while a life that ran is always counted. A file that cannot be
// read as a counter is an error, never a reset to 0: that would hand out
// ballots an earlier life may have used.
func NextRestarts(dir string, id algorithms.NodeID) (uint16, error) {
	path := RestartsPath(dir, id)
	var n uint64
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return 0, err
	default:
		if n, err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 16); err != nil {
			return 0, fmt.Errorf("%s: not a restart counter (%q); remove the file only if node %d's earlier lives are all over and their ballots forgotten", path, strings.TrimSpace(string(b)), id)
		}
	}
	if n >= math.MaxUint16 {
		return 0, fmt.Errorf("%s: node %d started %d times; the 16-bit restart counter of its ballots is used up", path, id, n)
	}
	if err := writeFileSynced(dir, path, []byte(strconv.FormatUint(n+1, 10)+"\n")); err != nil {
		return 0, fmt.Errorf("record the start of node %d: %w", id, err)
	}
	return uint16(n), nil
}

// writeFileSynced replaces path by data so that a crash leaves either the
// old or the new content: a temporary file, synced, renamed over path, and
// the directory synced so the rename itself is durable.
func writeFileSynced(dir, path string, data []byte) error {
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return wal.SyncDir(dir)
}

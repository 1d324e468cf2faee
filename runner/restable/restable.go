// Package restable maps resource ids to small dense indices, for the
// per-resource tables of the checker, the recorder and the simulator.
package restable

import "leaselab/algorithms"

// Table maps resource ids to small indices. Workloads number their
// resources 0..N-1, so ids below denseMax live in a plain slice (one load,
// no hashing, which matters at a million resources, where a map lookup per
// message would dominate the simulator's cost); any other id falls back to
// a map.
type Table struct {
	dense  []int32 // index+1; 0 means absent
	sparse map[algorithms.ResourceID]int32
}

const denseMax = 1 << 24

func (t *Table) Get(id algorithms.ResourceID) (int32, bool) {
	if id < algorithms.ResourceID(len(t.dense)) {
		v := t.dense[id]
		return v - 1, v != 0
	}
	if id < denseMax || t.sparse == nil {
		return 0, false
	}
	v, ok := t.sparse[id]
	return v, ok
}

func (t *Table) Put(id algorithms.ResourceID, idx int32) {
	if id < denseMax {
		if id >= algorithms.ResourceID(len(t.dense)) {
			n := 2 * len(t.dense)
			if n < 1024 {
				n = 1024
			}
			for algorithms.ResourceID(n) <= id {
				n *= 2
			}
			if n > denseMax {
				n = denseMax
			}
			grown := make([]int32, n)
			copy(grown, t.dense)
			t.dense = grown
		}
		t.dense[id] = idx + 1
		return
	}
	if t.sparse == nil {
		t.sparse = make(map[algorithms.ResourceID]int32)
	}
	t.sparse[id] = idx
}

// Key returns the id that maps to idx, by a search of the whole table:
// for a report at the end of a run, never on a hot path.
func (t *Table) Key(idx int32) (algorithms.ResourceID, bool) {
	for id, v := range t.dense {
		if v == idx+1 {
			return algorithms.ResourceID(id), true
		}
	}
	var best algorithms.ResourceID
	found := false
	for id, v := range t.sparse { // the least id, whatever the map's order
		if v == idx && (!found || id < best) {
			best, found = id, true
		}
	}
	return best, found
}

func (t *Table) Del(id algorithms.ResourceID) {
	if id < algorithms.ResourceID(len(t.dense)) {
		t.dense[id] = 0
		return
	}
	if t.sparse != nil {
		delete(t.sparse, id)
	}
}

// Reset empties the table and keeps its memory.
func (t *Table) Reset() {
	clear(t.dense)
	clear(t.sparse)
}

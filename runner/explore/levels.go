package explore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// The breadth-first frontier lives on disk, one file per level. Entry i of
// level k is state i of that level as 8 bytes: the position of its parent
// in level k-1 and the index of the move that led from the parent to it
// (for level 0, noParent and the clock assignment). A state is never
// stored: it is rebuilt by executing its moves again from its nearest
// ancestor a worker still holds (cursor). States are admitted in the
// order of their parents, so every level is sorted by parent position,
// and by induction the states of a level are in the lexicographic order
// of their paths: a worker that rebuilds a run of consecutive states walks
// each ancestor level forwards, and rebuilds each ancestor once.
//
// Why not keep the states: a state is live algorithm objects (Clone and
// AppendState are all the Explorable contract offers; nothing decodes an
// encoding back into a node), about 1 KB each, and a frontier can hold a
// third of all states. Why not store each state's whole path: a state at
// depth d would cost d executions to rebuild instead of about one.

const (
	entrySize = 8
	noParent  = ^uint32(0)
)

type entry struct {
	parent uint32 // position in the previous level, noParent for a root
	move   uint32 // move index in the parent (the root's clock assignment)
}

// levels is the directory of level files.
type levels struct {
	dir   string
	files []*os.File
	sizes []int64 // entries per level
	w     *bufio.Writer
}

func levelPath(dir string, k int) string {
	return filepath.Join(dir, fmt.Sprintf("level-%05d.bin", k))
}

// openLevels opens the files of levels 0..len(sizes)-1 in dir, cutting
// each to its recorded size (a checkpoint), or starts none.
func openLevels(dir string, sizes []int64) (*levels, error) {
	lv := &levels{dir: dir}
	for k, n := range sizes {
		f, err := os.OpenFile(levelPath(dir, k), os.O_RDWR, 0)
		if err != nil {
			lv.close()
			return nil, err
		}
		if err := f.Truncate(n * entrySize); err != nil {
			f.Close()
			lv.close()
			return nil, err
		}
		lv.files = append(lv.files, f)
		lv.sizes = append(lv.sizes, n)
	}
	return lv, nil
}

// startLevel begins (or, after a checkpoint, continues) level k, the last
// one, for appending.
func (lv *levels) startLevel(k int) error {
	if k < len(lv.files) {
		f := lv.files[k]
		if _, err := f.Seek(lv.sizes[k]*entrySize, 0); err != nil {
			return err
		}
		lv.w = bufio.NewWriterSize(f, 1<<16)
		return nil
	}
	f, err := os.OpenFile(levelPath(lv.dir, k), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	lv.files = append(lv.files, f)
	lv.sizes = append(lv.sizes, 0)
	lv.w = bufio.NewWriterSize(f, 1<<16)
	return nil
}

// add appends e to the last level.
func (lv *levels) add(e entry) error {
	var b [entrySize]byte
	binary.LittleEndian.PutUint32(b[:4], e.parent)
	binary.LittleEndian.PutUint32(b[4:], e.move)
	lv.sizes[len(lv.sizes)-1]++
	_, err := lv.w.Write(b[:])
	return err
}

// flush writes what add buffered.
func (lv *levels) flush() error {
	if lv.w == nil {
		return nil
	}
	return lv.w.Flush()
}

// sync flushes and makes every level durable (a checkpoint).
func (lv *levels) sync() error {
	if err := lv.flush(); err != nil {
		return err
	}
	for _, f := range lv.files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// read returns entry pos of level k.
func (lv *levels) read(k int, pos int64) (entry, error) {
	var b [entrySize]byte
	if _, err := lv.files[k].ReadAt(b[:], pos*entrySize); err != nil {
		return entry{}, fmt.Errorf("explore: level %d entry %d: %w", k, pos, err)
	}
	return entry{parent: binary.LittleEndian.Uint32(b[:4]), move: binary.LittleEndian.Uint32(b[4:])}, nil
}

// path returns the moves from a root to entry pos of level k: the root's
// clock assignment and the move indices in order.
func (lv *levels) path(k int, pos int64) (root int, moves []int32, err error) {
	moves = make([]int32, k)
	for ; k > 0; k-- {
		e, err := lv.read(k, pos)
		if err != nil {
			return 0, nil, err
		}
		moves[k-1] = int32(e.move)
		pos = int64(e.parent)
	}
	e, err := lv.read(0, pos)
	if err != nil {
		return 0, nil, err
	}
	return int(e.move), moves, nil
}

func (lv *levels) close() {
	for _, f := range lv.files {
		f.Close()
	}
	lv.files = nil
}

// blockEntries is how many entries a cursor reads from a level at a time.
const blockEntries = 2048

// levelBlock is a cursor's copy of a run of one level's entries.
type levelBlock struct {
	start int64 // position of buf's first entry; -1: none
	n     int
	buf   []byte
}

// cursor rebuilds states of the frontier for one worker, keeping the
// ancestors of the last state it rebuilt (one world per level) and a
// block of entries per level.
type cursor struct {
	lv     *levels
	c      *config
	anc    []ancestor
	blocks []levelBlock
	ms     []move
}

type ancestor struct {
	pos int64 // -1: none
	w   *world
}

func newCursor(lv *levels, c *config) *cursor { return &cursor{lv: lv, c: c} }

// entry returns entry pos of level k through the cursor's block.
func (cu *cursor) entry(k int, pos int64) (entry, error) {
	for len(cu.blocks) <= k {
		cu.blocks = append(cu.blocks, levelBlock{start: -1})
	}
	b := &cu.blocks[k]
	if b.start < 0 || pos < b.start || pos >= b.start+int64(b.n) {
		n := min(int64(blockEntries), cu.lv.sizes[k]-pos)
		if n <= 0 {
			return entry{}, fmt.Errorf("explore: level %d has no entry %d", k, pos)
		}
		if cap(b.buf) < blockEntries*entrySize {
			b.buf = make([]byte, blockEntries*entrySize)
		}
		if _, err := cu.lv.files[k].ReadAt(b.buf[:n*entrySize], pos*entrySize); err != nil {
			return entry{}, fmt.Errorf("explore: level %d entries from %d: %w", k, pos, err)
		}
		b.start, b.n = pos, int(n)
	}
	o := (pos - b.start) * entrySize
	return entry{parent: binary.LittleEndian.Uint32(b.buf[o:]), move: binary.LittleEndian.Uint32(b.buf[o+4:])}, nil
}

// state returns state pos of level k, rebuilt with x from the nearest
// ancestor the cursor holds. The world stays the cursor's: valid until
// the next call.
func (cu *cursor) state(x *exec, k int, pos int64) (*world, error) {
	for len(cu.anc) <= k {
		cu.anc = append(cu.anc, ancestor{pos: -1})
	}
	if a := &cu.anc[k]; a.pos == pos && a.w != nil {
		return a.w, nil
	}
	e, err := cu.entry(k, pos)
	if err != nil {
		return nil, err
	}
	// Whatever the cursor held at deeper levels descends from the old
	// state at k, not from this one.
	for j := k; j < len(cu.anc); j++ {
		cu.anc[j].pos = -1
	}
	var w *world
	if k == 0 {
		if w, err = cu.c.root(x, int(e.move)); err != nil {
			return nil, err
		}
	} else {
		p, err := cu.state(x, k-1, int64(e.parent))
		if err != nil {
			return nil, err
		}
		cu.ms = cu.c.moves(p, cu.ms[:0])
		if int(e.move) >= len(cu.ms) {
			return nil, fmt.Errorf("explore: internal error: level %d entry %d names move %d of %d", k, pos, e.move, len(cu.ms))
		}
		w = cu.anc[k].w
		if w == nil {
			w = &world{}
		}
		w.copyFrom(p)
		x.w = w
		x.apply(p, cu.ms[e.move])
		if x.err != nil {
			return nil, x.err
		}
		x.fillNodeHashes() // its children reuse them
	}
	cu.anc[k] = ancestor{pos: pos, w: w}
	return w, nil
}

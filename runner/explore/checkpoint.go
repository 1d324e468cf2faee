package explore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A checkpoint directory holds a breadth-first search between two chunks
// of work: the level files (which it runs in all along), the visited set
// (visited-N.bin) and meta.json, written last (by rename), which names
// the visited file and says where to go on. A search that finishes
// (exhausted, violation) marks meta.json done and removes the rest.

// checkpointMeta is meta.json.
type checkpointMeta struct {
	Version     int      `json:"version"`
	Key         string   `json:"key"` // the configuration that defines the space
	Done        bool     `json:"done"`
	Stopped     string   `json:"stopped"`
	Depth       int      `json:"depth"`
	NextChunk   int64    `json:"next_chunk"`
	Sizes       []int64  `json:"sizes"`
	Visited     string   `json:"visited"`
	States      int64    `json:"states"`
	Transitions int64    `json:"transitions"`
	Constrained int64    `json:"constrained"`
	Held        int64    `json:"held_states"`
	Holders     uint64   `json:"holders_mask"`
	Bad         []badRef `json:"bad"`
	// Belief: double-belief states so far (pauses); BeliefAt the first,
	// in level BeliefLv+1.
	Belief   int64   `json:"belief,omitempty"`
	BeliefAt *badRef `json:"belief_at,omitempty"`
	BeliefLv int     `json:"belief_level,omitempty"`
	// Rest, Stuck: states at rest and stuck so far (Liveness); StuckAt
	// the first stuck, in level StuckLv+1.
	Rest    int64   `json:"rest_states,omitempty"`
	Stuck   int64   `json:"stuck_states,omitempty"`
	StuckAt *badRef `json:"stuck_at,omitempty"`
	StuckLv int     `json:"stuck_level,omitempty"`
	// Probed: states probed so far; ProbeAt the first a probe left a
	// request pending in, plus one (0: none), in level ProbeLv.
	Probed  int64 `json:"probed_states,omitempty"`
	ProbeAt int64 `json:"probe_at,omitempty"`
	ProbeLv int   `json:"probe_level,omitempty"`
	// Late: late answers so far (Liveness); LateAt the first, in level
	// LateLv+1; HolderAsks the transitions judged for one.
	Late       int64   `json:"late_answers,omitempty"`
	HolderAsks int64   `json:"holder_asks,omitempty"`
	LateAt     *badRef `json:"late_at,omitempty"`
	LateLv     int     `json:"late_level,omitempty"`
	WallNS     int64   `json:"wall_ns"`
	CPUNS      int64   `json:"cpu_ns"`
	Saved      int     `json:"saved"` // how many times saved (names the visited file)
}

const checkpointVersion = 1

// spaceKey is what defines the search space: a checkpoint resumes only a
// search with the same. The caps (states, depth, memory), the workers and
// the progress callback may change between runs.
func (c *config) spaceKey() string {
	k := struct {
		Algo                                        string
		Ablate                                      []string
		Acceptors, Proposers, Resources             int
		Params                                      any
		Seed                                        uint64
		Fsync                                       time.Duration
		Inputs, Crashes, Drops, Dups, Slews, Pauses int
		InputKinds                                  []int
		Clocks                                      string
		Drift                                       float64
		Levels                                      int
		TimeStep, Horizon                           time.Duration
		MaxPending                                  int
		From                                        string
		// omitempty: a search without it keeps the key it had before
		// the field existed, so its checkpoints still resume.
		Liveness bool `json:",omitempty"`
		Tokens   bool `json:",omitempty"`
		Sync     bool `json:",omitempty"`
	}{c.Algo, c.Ablate, c.Acceptors, c.Proposers, c.Resources, c.Params, c.Seed, c.FsyncLatency,
		c.Inputs, c.Crashes, c.Drops, c.Dups, c.Slews, c.Pauses, nil, c.Clocks, c.ClockDrift, c.ClockLevels,
		c.TimeStep, c.Horizon, c.MaxPending, c.From, c.Liveness, c.Tokens, c.Sync}
	for _, in := range c.inputs {
		k.InputKinds = append(k.InputKinds, int(in))
	}
	b, _ := json.Marshal(k)
	return string(b)
}

func (r *bfsRun) metaPath() string { return filepath.Join(r.dir, "meta.json") }

// resume loads the search saved in r.dir, if there is one (false: none).
func (r *bfsRun) resume() (bool, error) {
	b, err := os.ReadFile(r.metaPath())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	var m checkpointMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return false, badf("checkpoint %s: meta.json: %v", r.dir, err)
	}
	switch {
	case m.Version != checkpointVersion:
		return false, badf("checkpoint %s was written by another version (%d, want %d)", r.dir, m.Version, checkpointVersion)
	case m.Key != r.c.spaceKey():
		return false, badf("checkpoint %s holds a search of another configuration (its space: %s)", r.dir, m.Key)
	case m.Done:
		return false, badf("checkpoint %s holds a finished search (stopped: %s); remove it to search again", r.dir, m.Stopped)
	case len(m.Sizes) < m.Depth+1:
		return false, badf("checkpoint %s: %d levels recorded, depth %d", r.dir, len(m.Sizes), m.Depth)
	}
	lv, err := openLevels(r.dir, m.Sizes)
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	f, err := os.Open(filepath.Join(r.dir, m.Visited))
	if err != nil {
		lv.close()
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	if err := r.seen.readFrom(bufio.NewReaderSize(f, 1<<20)); err != nil {
		lv.close()
		return false, fmt.Errorf("checkpoint %s: %w", r.dir, err)
	}
	if r.seen.count != m.States {
		lv.close()
		return false, fmt.Errorf("checkpoint %s: the visited set holds %d states, meta.json says %d", r.dir, r.seen.count, m.States)
	}
	r.lv, r.depth, r.nextChunk, r.bad = lv, m.Depth, m.NextChunk, m.Bad
	r.saved = m.Saved
	r.belief, r.beliefAt, r.beliefLv = m.Belief, m.BeliefAt, m.BeliefLv
	r.st.rest, r.st.stuck, r.stuckAt, r.stuckLv = m.Rest, m.Stuck, m.StuckAt, m.StuckLv
	r.st.probed, r.probeAt, r.probeLv = m.Probed, m.ProbeAt-1, m.ProbeLv
	r.st.late, r.lateAt, r.lateLv, r.st.heldAsks = m.Late, m.LateAt, m.LateLv, m.HolderAsks
	r.st.states, r.st.transitions, r.st.constrained, r.st.held, r.st.holders, r.st.depth = m.States, m.Transitions, m.Constrained, m.Held, m.Holders, m.Depth
	r.st.prevWall, r.st.prevCPU = time.Duration(m.WallNS), time.Duration(m.CPUNS)
	r.mem.tune()
	return true, nil
}

// save writes the search to r.dir: where to go on from, or (finished)
// that it is done.
func (r *bfsRun) save(stopped string) error {
	m := checkpointMeta{Version: checkpointVersion, Key: r.c.spaceKey(), Stopped: stopped,
		Depth: r.depth, NextChunk: r.nextChunk, Sizes: r.lv.sizes,
		States: r.st.states, Transitions: r.st.transitions, Constrained: r.st.constrained, Held: r.st.held, Holders: r.st.holders, Bad: r.bad,
		Belief: r.belief, BeliefAt: r.beliefAt, BeliefLv: r.beliefLv,
		Rest: r.st.rest, Stuck: r.st.stuck, StuckAt: r.stuckAt, StuckLv: r.stuckLv,
		Probed: r.st.probed, ProbeAt: r.probeAt + 1, ProbeLv: r.probeLv,
		Late: r.st.late, LateAt: r.lateAt, LateLv: r.lateLv, HolderAsks: r.st.heldAsks,
		WallNS: int64(time.Since(r.st.start) + r.st.prevWall), CPUNS: int64(cpuTime() - r.st.cpu0 + r.st.prevCPU),
		Saved: r.saved + 1}
	old, _ := filepath.Glob(filepath.Join(r.dir, "visited-*.bin"))
	if stopped == StopExhausted || stopped == StopViolation || stopped == StopTokens {
		m.Done = true
		m.Sizes = nil
		if err := writeMeta(r.metaPath(), &m); err != nil {
			return err
		}
		for _, p := range old {
			os.Remove(p)
		}
		for k := range r.lv.files {
			os.Remove(levelPath(r.dir, k))
		}
		return nil
	}
	if err := r.lv.sync(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	m.Visited = fmt.Sprintf("visited-%d.bin", m.Saved)
	if err := writeFileSync(filepath.Join(r.dir, m.Visited), func(w *bufio.Writer) error { return r.seen.writeTo(w) }); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := writeMeta(r.metaPath(), &m); err != nil {
		return err
	}
	for _, p := range old {
		if filepath.Base(p) != m.Visited {
			os.Remove(p)
		}
	}
	return nil
}

func writeMeta(path string, m *checkpointMeta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := writeFileSync(tmp, func(w *bufio.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// writeFileSync creates path, lets fill write it and makes it durable.
func writeFileSync(path string, fill func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

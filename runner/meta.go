package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Meta is the provenance of a result: which build made it, on what
// machine, when. Every JSON result, CSV (as a "# meta" comment line or a
// meta.json beside it) and report carries one, so two results can be
// compared honestly.
type Meta struct {
	// Version: the main module's version, "devel" when built from a
	// checkout (go build, go run: no module version).
	Version string `json:"version"`
	// Revision: the VCS revision, with "+dirty" when the tree had local
	// changes; "unknown" when neither the build nor the working
	// directory's git checkout says.
	Revision string `json:"revision"`
	// RevisionFrom: "build" (stamped by go build), "ldflags" (set at link
	// time, linkRevision: a container build without the .git directory)
	// or "git" (asked of the leaselab checkout the command ran in, for
	// builds without VCS stamping: go run, go test,
	// GOFLAGS=-buildvcs=false); "" when Revision is "unknown".
	RevisionFrom string `json:"revision_from"`
	GoVersion    string `json:"go_version"`
	GOOS         string `json:"goos"`
	GOARCH       string `json:"goarch"`
	NumCPU       int    `json:"num_cpu"`
	Hostname     string `json:"hostname"`
	// StartedAt: when the command started, UTC, RFC 3339.
	StartedAt string `json:"started_at"`
}

// NewMeta returns the provenance of this process for a command that started
// at start. The build's facts are read once per process.
func NewMeta(start time.Time) Meta {
	m := buildMeta()
	m.StartedAt = start.UTC().Format(time.RFC3339)
	return m
}

// linkRevision is the revision of a build that has no VCS stamp but was
// told its revision at link time:
//
//	go build -ldflags "-X leaselab/runner.linkRevision=$(git rev-parse HEAD)"
//
// (cmd/leaselab/deploy/Dockerfile does, since its context has no .git):
// merging the parts of a sharded run compares revisions, and "unknown"
// cannot tell two builds apart.
var linkRevision string

var (
	buildOnce sync.Once
	buildM    Meta
)

func buildMeta() Meta {
	buildOnce.Do(func() {
		buildM = Meta{Version: "devel", Revision: "unknown", GoVersion: runtime.Version(),
			GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU()}
		if h, err := os.Hostname(); err == nil {
			buildM.Hostname = h
		}
		bi, ok := debug.ReadBuildInfo()
		if ok {
			if v := bi.Main.Version; v != "" && v != "(devel)" {
				buildM.Version = v
			}
			var rev string
			dirty := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if rev != "" {
				if dirty {
					rev += "+dirty"
				}
				buildM.Revision, buildM.RevisionFrom = rev, "build"
				return
			}
		}
		if linkRevision != "" {
			buildM.Revision, buildM.RevisionFrom = linkRevision, "ldflags"
			return
		}
		if rev := gitRevision(); rev != "" {
			buildM.Revision, buildM.RevisionFrom = rev, "git"
		}
	})
	return buildM
}

// gitRevision asks git for the revision of the checkout the process runs
// in, only if that checkout is leaselab's (its go.mod declares module
// leaselab): a binary run from some other repository must not claim that
// repository's commit. Empty when git or the checkout is missing.
func gitRevision() string {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return ""
	}
	root := strings.TrimSpace(string(top))
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(mod), []byte("module leaselab")) {
		return ""
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	out := strings.TrimSpace(string(rev))
	st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(bytes.TrimSpace(st)) > 0 {
		out += "+dirty"
	}
	return out
}

// Fields lists the provenance as key=value pairs in a fixed order.
func (m Meta) Fields() [][2]string {
	f := [][2]string{
		{"version", m.Version},
		{"revision", m.Revision},
	}
	if m.RevisionFrom != "" {
		f = append(f, [2]string{"revision_from", m.RevisionFrom})
	}
	return append(f,
		[2]string{"go_version", m.GoVersion},
		[2]string{"goos", m.GOOS},
		[2]string{"goarch", m.GOARCH},
		[2]string{"num_cpu", strconv.Itoa(m.NumCPU)},
		[2]string{"hostname", m.Hostname},
		[2]string{"started_at", m.StartedAt},
	)
}

// CommentLine is the provenance as one CSV comment line, without a
// newline: "# meta version=devel revision=... started_at=...". Values
// with spaces are quoted. Read such a CSV with a reader that skips lines
// starting with '#' (Go: csv.Reader.Comment = '#'; pandas: comment='#').
func (m Meta) CommentLine() string {
	var b strings.Builder
	b.WriteString("# meta")
	for _, kv := range m.Fields() {
		v := kv[1]
		if v == "" || strings.ContainsAny(v, " \t\"=") {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + kv[0] + "=" + v)
	}
	return b.String()
}

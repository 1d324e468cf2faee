package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// k8sObject is what the test reads of the manifest's objects.
type k8sObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		CompletionMode string `json:"completionMode"`
		Completions    int    `json:"completions"`
		Parallelism    int    `json:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `json:"restartPolicy"`
				Containers    []struct {
					Name    string   `json:"name"`
					Image   string   `json:"image"`
					Command []string `json:"command"`
					Env     []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"env"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// env is the container's environment as a map.
func (o k8sObject) env() map[string]string {
	m := map[string]string{}
	for _, e := range o.Spec.Template.Spec.Containers[0].Env {
		m[e.Name] = e.Value
	}
	return m
}

// script is the container's `sh -c` script.
func (o k8sObject) script(t *testing.T) string {
	t.Helper()
	c := o.Spec.Template.Spec.Containers[0].Command
	if len(c) != 3 || c[0] != "/bin/sh" || c[1] != "-c" {
		t.Fatalf("%s: command %q is not /bin/sh -c SCRIPT", o.Metadata.Name, c)
	}
	return c[2]
}

// readManifest parses deploy/k8s-indexed-job.yaml by object name.
func readManifest(t *testing.T) map[string]k8sObject {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("deploy", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]k8sObject{}
	for doc := range strings.SplitSeq(string(b), "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("k8s-indexed-job.yaml: %v", err)
		}
		var o k8sObject
		if err := json.Unmarshal(js, &o); err != nil {
			t.Fatalf("k8s-indexed-job.yaml: %v", err)
		}
		out[o.Metadata.Name] = o
	}
	return out
}

// asLeaselab is a directory holding `leaselab`, a link to this test
// binary, and the environment that makes it run as the command (TestMain).
func asLeaselab(t *testing.T) (bin string, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin = t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "leaselab")); err != nil {
		t.Fatal(err)
	}
	return bin, append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), asMainEnv+"=1")
}

// runShell runs name ARGS with environment env, returning the exit
// status (-1: it could not run, or ran past a minute) and the output.
func runShell(env []string, name string, args ...string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.WaitDelay = time.Second // a killed script's children may hold the output open
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), string(out)
	}
	return -1, fmt.Sprintf("%s%v", out, err)
}

// deployRuns are what the script tests run instead of the manifests' 300
// seeds: a campaign and a battery, each quick and violating in every
// part, so a part's exit status 1 is taken for done, every part writes a
// counterexample, and the merge exits 1.
var deployRuns = []struct{ command, args string }{
	{"check", "--algo paxoslease --ablate restart-wait --faults crash --crash-rate 10 --downtime 100ms --duration 30s --seeds 12"},
	{"verify", "--algo central --ablate grant-once --only E1,E2,E3,E4,E7,E14 --budget 1m --workers 1"},
}

// runPartsConcurrently starts every part as its own process, at once.
func runPartsConcurrently(t *testing.T, n int, run func(i int) (int, string)) {
	t.Helper()
	var wg sync.WaitGroup
	codes, outs := make([]int, n), make([]string, n)
	for i := range n {
		wg.Go(func() { codes[i], outs[i] = run(i) })
	}
	wg.Wait()
	for i := range n {
		if codes[i] != 0 {
			t.Fatalf("part %d: exit %d:\n%s", i, codes[i], outs[i])
		}
	}
}

// runDependent are the keys of a result that differ between two runs of
// one campaign or battery: meta, wall times, the parts' metas and the
// counterexamples (their paths; the unsharded run shrinks none); a
// battery's configurations differ in their seconds (timeless compares the
// rest) and its findings in their counterexamples.
func runDependent(command string) []string {
	keys := []string{"meta", "wall_ms", "shards", "counterexample", "counterexamples"}
	if command == "verify" {
		keys = append(keys, "seconds", "configurations", "findings")
	}
	return keys
}

// sameAsUnsharded checks the merged result in path against the unsharded
// run of command with args, but for its runDependent keys.
func sameAsUnsharded(t *testing.T, path, command, args string) {
	t.Helper()
	merged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, whole, _ := leaselab(append(append([]string{command}, strings.Fields(args)...), "--format", "json", "--quiet")...)
	m, _ := members(t, merged)
	w, _ := members(t, []byte(whole))
	if d := sameMembers(without(m, runDependent(command)...), without(w, runDependent(command)...)); d != "" {
		t.Errorf("%s and the unsharded %s differ: %s", path, command, d)
	}
	if command == "verify" && !reflect.DeepEqual(timeless(t, merged), timeless(t, []byte(whole))) {
		t.Errorf("%s and the unsharded battery differ in their configurations:\n%s\nvs\n%s", path, merged, whole)
	}
}

// The Kubernetes manifest: an Indexed Job whose completions, parallelism
// and parts agree with the merge Job, and whose container scripts, run
// here as 3 concurrent part processes (JOB_COMPLETION_INDEX 0..2) and the
// merge, for a campaign and a battery, give the in-process merge of the
// same parts and the unsharded run.
func TestDeployKubernetes(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	objs := readManifest(t)
	job, merge := objs["leaselab-parts"], objs["leaselab-merge"]
	if objs["leaselab-results"].Kind != "PersistentVolumeClaim" || job.Kind != "Job" || merge.Kind != "Job" {
		t.Fatalf("manifest objects %v", objs)
	}
	je, me := job.env(), merge.env()
	if job.Spec.CompletionMode != "Indexed" || fmt.Sprint(job.Spec.Completions) != je["SHARDS"] || je["SHARDS"] != me["SHARDS"] ||
		je["RUN"] != me["RUN"] || job.Spec.Parallelism > job.Spec.Completions || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("parts Job: completionMode %q, completions %d, parallelism %d, restartPolicy %q, env %v; merge env %v",
			job.Spec.CompletionMode, job.Spec.Completions, job.Spec.Parallelism, job.Spec.Template.Spec.RestartPolicy, je, me)
	}
	if je["COMMAND"] != "check" || !strings.Contains(je["ARGS"], "--seeds 300") || !strings.Contains(job.script(t), `leaselab "$COMMAND" $ARGS --shard "auto/$SHARDS"`) {
		t.Errorf("the Job does not run the issue's campaign split by --shard auto/$SHARDS: %s %q", je["COMMAND"], je["ARGS"])
	}
	_, env := asLeaselab(t)
	n := job.Spec.Completions
	for _, r := range deployRuns {
		t.Run(r.command, func(t *testing.T) {
			results := t.TempDir()
			env := append(slices.Clip(env), "SHARDS="+je["SHARDS"], "RUN="+je["RUN"], "RESULTS="+results, "COMMAND="+r.command, "ARGS="+r.args, "POLL_SECONDS=1")
			runPartsConcurrently(t, n, func(i int) (int, string) {
				return runShell(append(slices.Clip(env), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)), sh, "-c", job.script(t))
			})
			dir := filepath.Join(results, je["RUN"])
			code, out := runShell(env, sh, "-c", merge.script(t))
			if code != 1 || !strings.Contains(out, "violations") {
				t.Fatalf("merge script: exit %d (want 1: the run violates):\n%s", code, out)
			}
			var parts []string
			for i := range n {
				parts = append(parts, filepath.Join(dir, fmt.Sprintf("part-%d.json", i)))
			}
			_, inProcess, _ := leaselab(append([]string{"merge", "--format", "json"}, parts...)...)
			merged, err := os.ReadFile(filepath.Join(dir, "merged.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(afterMeta(t, merged), afterMeta(t, []byte(inProcess))) {
				t.Errorf("merged.json differs from the in-process merge:\n%s\nvs\n%s", merged, inProcess)
			}
			sameAsUnsharded(t, filepath.Join(dir, "merged.json"), r.command, r.args)
			for i := range n {
				if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("counterexample-%d.txt", i))); err != nil {
					t.Errorf("part %d wrote no counterexample: %v", i, err)
				}
			}
		})
	}
}

// The Slurm script: its array matches its part count, and 3 concurrent
// tasks (SLURM_ARRAY_TASK_ID 0..2) and its merge give the unsharded run,
// for a campaign and a battery; a task of an array of another size is
// refused.
func TestDeploySlurm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join("deploy", "slurm-array.sh")
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	array := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)`).FindSubmatch(b)
	shards := regexp.MustCompile(`(?m)^SHARDS=\$\{SHARDS:-(\d+)\}`).FindSubmatch(b)
	if array == nil || shards == nil || fmt.Sprint(atoi(t, string(array[1]))+1) != string(shards[1]) {
		t.Fatalf("%s: #SBATCH --array=0-N and SHARDS default do not agree (%q, %q)", script, array, shards)
	}
	n := atoi(t, string(shards[1]))
	_, env := asLeaselab(t)
	for _, r := range deployRuns {
		t.Run(r.command, func(t *testing.T) {
			results := t.TempDir()
			env := append(slices.Clip(env), "RESULTS="+results, "RUN=slurm", "COMMAND="+r.command, "ARGS="+r.args, fmt.Sprintf("SLURM_ARRAY_TASK_COUNT=%d", n))
			runPartsConcurrently(t, n, func(i int) (int, string) {
				return runShell(append(slices.Clip(env), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i)), bash, script)
			})
			code, out := runShell(env, bash, script, "merge")
			if code != 1 || !strings.Contains(out, "merged: ") {
				t.Fatalf("slurm-array.sh merge: exit %d (want 1: the run violates):\n%s", code, out)
			}
			sameAsUnsharded(t, filepath.Join(results, "slurm", "merged.json"), r.command, r.args)
		})
	}
	env = append(env, "RESULTS="+t.TempDir(), "ARGS="+deployRuns[0].args)
	bad := append(slices.Clip(env), fmt.Sprintf("SLURM_ARRAY_TASK_COUNT=%d", n+1), "SLURM_ARRAY_TASK_ID=0")
	if code, out := runShell(bad, bash, script); code != 2 || !strings.Contains(out, "submit with --array=0-") {
		t.Errorf("a task of an array of %d for %d parts: exit %d:\n%s", n+1, n, code, out)
	}
	if code, out := runShell(env, bash, script); code != 2 || !strings.Contains(out, "not a job array task") {
		t.Errorf("run outside an array: exit %d:\n%s", code, out)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// No container engine runs where the tests do, so the image cannot be
// built here; this runs the Dockerfile's build command itself (its RUN
// go build line, with REVISION set and the output in a temporary
// directory) from the repository's top directory, as the build stage
// does from /src, and checks what the image relies on: a static binary
// (no ELF interpreter: Alpine has no glibc) that stamps the given
// revision into every result's meta.
func TestDockerfileBuildCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary with the Dockerfile's flags")
	}
	df, err := os.ReadFile("deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// The RUN instruction that builds, its continuation lines joined.
	text := strings.ReplaceAll(string(df), "\\\n", " ")
	var build string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "RUN ") && strings.Contains(l, "go build") {
			build = strings.TrimPrefix(l, "RUN ")
		}
	}
	if build == "" || !strings.Contains(build, "-o /out/leaselab") || !strings.Contains(build, "CGO_ENABLED=0") {
		t.Fatalf("no static build line writing /out/leaselab in the Dockerfile: %q", build)
	}
	out := filepath.Join(t.TempDir(), "leaselab")
	build = strings.ReplaceAll(build, "/out/leaselab", out)
	cmd := exec.Command("sh", "-c", build)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "REVISION=0123456789abcdef")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the binary is dynamically linked: it would not run on Alpine")
		}
	}
	b, err := exec.Command(out, "version", "--format", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Revision     string `json:"revision"`
		RevisionFrom string `json:"revision_from"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Revision != "0123456789abcdef" || m.RevisionFrom != "ldflags" {
		t.Fatalf("revision %q from %q, want the build argument from ldflags", m.Revision, m.RevisionFrom)
	}
	if !strings.Contains(text, `ENTRYPOINT ["leaselab"]`) || !strings.Contains(text, "COPY --from=build /out/leaselab /usr/local/bin/leaselab") {
		t.Error("the final stage must copy /out/leaselab onto the PATH and run it as the entrypoint")
	}
}

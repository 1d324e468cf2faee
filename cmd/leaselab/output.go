package main

// Output helpers shared by the subcommands.
//
//	writeRows(w, format, header, rows, v)  table / csv from rows, json from v
//	writeTable(w, header, rows)            a tablewriter table
//	writeMarkdownTable(w, header, rows)    the same in Markdown (reports)
//	writeCSV(w, header, rows)              RFC 4180 CSV
//	writeJSON(w, v)                        indented JSON, one object
//	writeResult(w, format, res)            a runner.Result in any format
//	flatten(v)                             a struct as ordered (key, value) pairs,
//	                                       keys from the JSON tags ("latency_ms.p50")
//	newProgress(c, quiet, label)           progress on stderr, only on a terminal
//	createOutput(path)                     a file for --holds / --trace style flags

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/pflag"

	"leaselab/runner"
)

// writeRows writes rows as a table or CSV, or v as JSON, by format.
func writeRows(w io.Writer, format string, header []string, rows [][]string, v any) error {
	switch format {
	case "json":
		return writeJSON(w, v)
	case "csv":
		return writeCSV(w, header, rows)
	case "table", "":
		return writeTable(w, header, rows)
	}
	return fmt.Errorf("unknown format %q", format)
}

func newTable(w io.Writer, opts ...tablewriter.Option) *tablewriter.Table {
	opts = append([]tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off), // keep the names users type (e.g. --ablate values)
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithRowMaxWidth(72),
	}, opts...)
	return tablewriter.NewTable(w, opts...)
}

// writeTable writes a bordered text table.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	return writeTableWidth(w, header, rows, 72)
}

// writeTableWidth writes a bordered text table whose cells wrap at width
// characters.
func writeTableWidth(w io.Writer, header []string, rows [][]string, width int) error {
	t := newTable(w, tablewriter.WithRowMaxWidth(width))
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// writeMarkdownTable writes a GitHub Markdown table (for report.md files).
func writeMarkdownTable(w io.Writer, header []string, rows [][]string) error {
	t := newTable(w, tablewriter.WithRenderer(renderer.NewMarkdown()), tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// writeCSV writes a header line and the rows.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// writeMetaComment writes the provenance as the "# meta ..." line that
// starts every CSV a command prints (nothing if m is nil). CSV readers
// skip it when told that '#' starts a comment (Go: csv.Reader.Comment =
// '#'; pandas: comment='#').
func writeMetaComment(w io.Writer, m *runner.Meta) error {
	if m == nil {
		return nil
	}
	_, err := fmt.Fprintln(w, m.CommentLine())
	return err
}

// writeJSON writes v as one indented JSON object and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// field is one flattened value.
type field struct {
	key   string
	value any
}

// flatten lists the exported fields of a struct in declaration order, keyed
// by their JSON names, nested structs as "outer.inner". Maps become one
// field ("k:v k:v", keys sorted); slices become one field (values joined by
// spaces). Fields tagged json:"-" are left out. It is how a result becomes
// CSV columns and table rows without a second list of names to keep in
// step with result.go.
func flatten(v any) []field {
	var out []field
	flattenValue("", reflect.ValueOf(v), &out)
	return out
}

func flattenValue(prefix string, v reflect.Value, out *[]field) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			*out = append(*out, field{prefix, ""})
			return
		}
		v = v.Elem()
	}
	// Durations are numbers of nanoseconds in JSON; keep them so.
	if v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(time.Time{}) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag := f.Tag.Get("json"); tag != "" {
				n, _, _ := strings.Cut(tag, ",")
				if n == "-" {
					continue
				}
				if n != "" {
					name = n
				}
			}
			key := name
			if prefix != "" {
				key = prefix + "." + name
			}
			flattenValue(key, v.Field(i), out)
		}
		return
	}
	switch v.Kind() {
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Interface()) < fmt.Sprint(keys[j].Interface()) })
		if len(keys) > 0 && keys[0].CanInt() {
			sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%v:%v", k.Interface(), v.MapIndex(k).Interface())
		}
		*out = append(*out, field{prefix, strings.Join(parts, " ")})
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			e := v.Index(i)
			if e.Kind() == reflect.Struct {
				b, _ := json.Marshal(e.Interface())
				parts[i] = string(b)
			} else {
				parts[i] = fmt.Sprint(e.Interface())
			}
		}
		*out = append(*out, field{prefix, strings.Join(parts, " ")})
	default:
		*out = append(*out, field{prefix, v.Interface()})
	}
}

// formatValue prints a flattened value: floats compactly (short in tables,
// exact in CSV), everything else with fmt.
func formatValue(v any, exact bool) string {
	switch x := v.(type) {
	case runner.OptionalMS:
		if !x.Valid() {
			if exact {
				return "" // CSV: an empty cell
			}
			return "-"
		}
		return formatValue(float64(x), exact)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		if exact {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case time.Duration:
		if exact {
			return strconv.FormatInt(int64(x), 10)
		}
		return x.String()
	}
	return fmt.Sprint(v)
}

// resultFields flattens a result; params (the spec) are left out of
// tables, which show meters, and kept in CSV, which must be re-runnable.
func resultFields(res runner.Result, withParams bool) []field {
	all := flatten(res)
	if withParams {
		out := all[:0]
		for _, f := range all {
			if f.key != "meta" && !strings.HasPrefix(f.key, "meta.") {
				out = append(out, f) // the meta is the CSV's comment line
			}
		}
		return out
	}
	out := all[:0]
	for _, f := range all {
		if !strings.HasPrefix(f.key, "params.") && f.key != "violation_list" && f.key != "meta" && !strings.HasPrefix(f.key, "meta.") {
			out = append(out, f)
		}
	}
	return out
}

// writeResult writes one run's result: json is runner.Result as marshalled
// (its keys are the public interface of result.go), csv a header and one
// row of every flattened field, table metric/value rows and, when there
// are violations, a second table listing them.
func writeResult(w io.Writer, format string, res runner.Result) error {
	switch format {
	case "json":
		return writeJSON(w, res)
	case "csv":
		if err := writeMetaComment(w, res.Meta); err != nil {
			return err
		}
		fs := resultFields(res, true)
		header := make([]string, len(fs))
		row := make([]string, len(fs))
		for i, f := range fs {
			header[i], row[i] = f.key, formatValue(f.value, true)
		}
		return writeCSV(w, header, [][]string{row})
	}
	fs := resultFields(res, false)
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.key, formatValue(f.value, false)}
	}
	if err := writeTable(w, []string{"metric", "value"}, rows); err != nil {
		return err
	}
	if len(res.ViolationList) > 0 {
		return writeViolations(w, res.ViolationList)
	}
	return nil
}

// writeViolations lists lease-invariant violations as a table.
func writeViolations(w io.Writer, vs []runner.Violation) error {
	rows := make([][]string, len(vs))
	for i, v := range vs {
		rows[i] = []string{
			strconv.FormatUint(v.Seed, 10),
			strconv.FormatUint(uint64(v.Resource), 10),
			v.Owners[0].String() + " " + v.Owners[1].String(),
			v.Ballots[0].String() + " " + v.Ballots[1].String(),
			time.Duration(v.StartNS).String(),
			time.Duration(v.OverlapNS).String(),
		}
	}
	fmt.Fprintln(w, "\nviolations of the lease invariant:")
	return writeTable(w, []string{"seed", "resource", "owners", "ballots", "start (true time)", "overlap"}, rows)
}

// isTerminal reports whether w is a character device (a terminal), without
// golang.org/x/term.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// newProgress returns a callback for runner.Options.Progress that draws
// "label [#####     ]  42%" on stderr, and a function that clears the line
// when the work is done. Both are no-ops (the callback nil) with quiet or
// when stderr is not a terminal, so piped output and logs stay clean.
func newProgress(c *ctx, quiet bool, label string) (func(done float64), func()) {
	if quiet || !isTerminal(c.stderr) {
		return nil, func() {}
	}
	const width = 30
	last := -1
	shown := false
	update := func(done float64) {
		if math.IsNaN(done) {
			return
		}
		done = math.Max(0, math.Min(1, done))
		pct := int(done * 100)
		if pct == last {
			return // redraw only when the figure changes
		}
		last = pct
		n := int(done * width)
		fmt.Fprintf(c.stderr, "\r%s [%s%s] %3d%%", label, strings.Repeat("#", n), strings.Repeat(" ", width-n), pct)
		shown = true
	}
	finish := func() {
		if shown {
			fmt.Fprintf(c.stderr, "\r%s\r", strings.Repeat(" ", len(label)+width+8))
		}
	}
	return update, finish
}

// createOutput creates the file behind a --holds / --trace style flag
// before the run starts, so a bad path fails fast, as bad input.
// outFiles are the buffered output files of one command (--trace,
// --holds, ...): open each, hand the writers to the runner, then flush and
// close them all (finish), or just close them on an early return (abort).
type outFiles struct {
	files []*os.File
	bufs  []*bufio.Writer
}

// open creates path for --flag and points *dst at a buffered writer to it
// (traces are large: no syscall per line). An empty path does nothing.
func (o *outFiles) open(flag, path string, dst *io.Writer) error {
	if path == "" {
		return nil
	}
	f, err := createOutput(flag, path)
	if err != nil {
		return err
	}
	b := bufio.NewWriterSize(f, 1<<16)
	o.files = append(o.files, f)
	o.bufs = append(o.bufs, b)
	*dst = b
	return nil
}

// openRun finishes spec from the flags (networkDefaults), validates it,
// and opens the run's trace and holds files into opt (an empty path:
// none); the holds CSV starts with the provenance line.
func (o *outFiles) openRun(c *ctx, fs *pflag.FlagSet, spec *runner.Spec, trace, holds string, opt *runner.Options) error {
	networkDefaults(fs, spec)
	if err := validateSpec(*spec); err != nil {
		return err
	}
	if err := o.open("trace", trace, &opt.Trace); err != nil {
		return err
	}
	if err := o.open("holds", holds, &opt.Holds); err != nil {
		return err
	}
	if opt.Holds != nil {
		return writeMetaComment(opt.Holds, c.meta())
	}
	return nil
}

// finish flushes and closes every file, reporting the first error.
func (o *outFiles) finish() error {
	var first error
	for i, b := range o.bufs {
		if err := b.Flush(); err != nil && first == nil {
			first = err
		}
		if err := o.files[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	o.files, o.bufs = nil, nil
	return first
}

// abort closes whatever finish did not.
func (o *outFiles) abort() {
	for _, f := range o.files {
		f.Close()
	}
}

func createOutput(flag, path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("--%s: %v", flag, err)
	}
	return f, nil
}

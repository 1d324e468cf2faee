package host

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"leaselab/algorithms"
)

// TestDisk plays Outputs, syncs and crashes on a Disk and checks what
// each sync takes and which messages leave when, for group commit and
// one sync per Output, ordered and not.
func TestDisk(t *testing.T) {
	// Script: "wN" writes an Output with record N and message N; "nN"
	// the same with NoSync; "pN" an Output with message N and no records;
	// "s" starts a sync (printing its records); "d" completes it
	// (printing the messages released); "c" crashes. Messages that may
	// leave at once are printed as "+N".
	cases := []struct {
		name                string
		each, ordered, keep bool
		script, want        string
	}{
		{"group commit", false, false, false, "w1 s w2 w3 p4 d s d", "[1] +4 <1> [2 3] <2 3>"},
		{"each", true, false, false, "w1 w2 s d s d s", "[1] <1> [2] <2>"},
		{"nosync leaves at once", false, false, false, "w1 s n2 w3 d s d", "[1] +2 <1> [2 3] <3>"},
		{"ordered holds later messages", false, true, false, "w1 s n2 p3 d p4", "[1] <1 2 3> +4"},
		{"ordered, nosync alone", false, true, false, "n1 p2 s d", "+1 +2 [1] <>"},
		{"crash loses the unsynced", false, false, true, "w1 s d w2 s c w3 s d", "[1] <1> [2] [3] <3>"},
		{"each takes nosync on its own", true, false, false, "n1 w2 s d s d", "+1 [1] <> [2] <2>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Disk{Each: c.each, Ordered: c.ordered, Keep: c.keep}
			var got []string
			for _, op := range strings.Fields(c.script) {
				var n int
				fmt.Sscanf(op[1:], "%d", &n)
				rec := []algorithms.Record{{Resource: algorithms.ResourceID(n)}}
				msg := []algorithms.Message{{Resource: algorithms.ResourceID(n)}}
				switch op[0] {
				case 'w', 'n':
					got = append(got, ids("+", d.Write(rec, msg, op[0] == 'n'))...)
				case 'p':
					got = append(got, ids("+", d.Pass(msg))...)
				case 's':
					if recs, ok := d.Start(); ok {
						got = append(got, "["+strings.Join(recIDs(recs), " ")+"]")
					}
				case 'd':
					got = append(got, "<"+strings.Join(ids("", d.Done()), " ")+">")
				case 'c':
					d.Crash()
				}
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Fatalf("got  %s\nwant %s", s, c.want)
			}
			if c.keep && !slices.Equal(recIDs(d.Recovered()), []string{"1", "3"}) {
				t.Fatalf("recovered %v, want records 1 and 3 (2 was lost in the crash)", recIDs(d.Recovered()))
			}
		})
	}
}

func ids(pre string, msgs []algorithms.Message) []string {
	var s []string
	for _, m := range msgs {
		s = append(s, fmt.Sprintf("%s%d", pre, m.Resource))
	}
	return s
}

func recIDs(recs []algorithms.Record) []string {
	var s []string
	for _, r := range recs {
		s = append(s, fmt.Sprint(r.Resource))
	}
	return s
}

// TestDiskCompacts: the kept log keeps the latest record per (resource,
// instance) once it has grown past the threshold, oldest first.
func TestDiskCompacts(t *testing.T) {
	d := Disk{Keep: true}
	for i := range 5000 {
		d.Write([]algorithms.Record{{Resource: algorithms.ResourceID(i % 10), Instance: 1, Expiry: algorithms.Local(i)}}, nil, false)
		d.Start()
		d.Done()
	}
	got := d.Durable()
	if len(got) >= 4096 {
		t.Fatalf("%d records kept, want the log compacted", len(got))
	}
	last := map[algorithms.ResourceID]algorithms.Local{}
	for _, r := range got {
		last[r.Resource] = r.Expiry
	}
	for r, e := range last {
		if want := algorithms.Local(4990 + int(r)); e != want {
			t.Fatalf("resource %d: latest expiry %d, want %d", r, e, want)
		}
	}
}

// TestDiskState: what State reports mid-sync, and that the messages it
// counts ForSync are the ones Done releases.
func TestDiskState(t *testing.T) {
	d := Disk{}
	w := func(n int) {
		d.Write([]algorithms.Record{{Resource: algorithms.ResourceID(n)}}, []algorithms.Message{{Resource: algorithms.ResourceID(n)}}, false)
	}
	w(1)
	d.Start()
	w(2)
	st := d.State()
	if !st.Busy || len(st.Syncing) != 1 || len(st.Queued) != 1 || len(st.Held) != 2 || st.ForSync != 1 {
		t.Fatalf("state %+v, want busy, 1 syncing, 1 queued, 2 held of which 1 for the sync", st)
	}
	if rel := d.Done(); len(rel) != st.ForSync || rel[0].Resource != 1 {
		t.Fatalf("Done released %v, want the %d message State counted", rel, st.ForSync)
	}
	if st := d.State(); st.Busy || st.ForSync != 0 || len(st.Held) != 1 {
		t.Fatalf("after the sync: %+v", st)
	}
}

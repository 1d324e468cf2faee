package replaytest

import "testing"

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc\n", "a\nx\nc\n", "@@ want line 1\n  a\n- b\n+ x\n  c\n"},
		{"a\n", "a\nb\n", "@@ want line 1\n  a\n+ b\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\n5\n6\n7\n", "@@ want line 6\n  6\n  7\n- 8\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n2\n3\n4\n5\n6\n7\n", "@@ want line 1\n+ 0\n  1\n  2\n@@ want line 6\n  6\n  7\n- 8\n"},
	} {
		if d := Diff(tc.want, tc.got); d != tc.diff {
			t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tc.want, tc.got, d, tc.diff)
		}
	}
}

package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestReadPatch(t *testing.T) {
	for _, c := range []struct {
		name  string
		patch string
		want  cairn.FilePatch
		ok    bool
	}{
		{"add", "*** Begin Patch\n*** Add File: a/b.go\n+package b\n+\n+var x = 1\n*** End Patch\n",
			cairn.FilePatch{Path: "a/b.go", Added: true, Content: "package b\n\nvar x = 1\n"}, true},
		{"update one hunk", "*** Begin Patch\n*** Update File: m.go\n@@ func f\n keep\n-old\n+new\n*** End Patch",
			cairn.FilePatch{Path: "m.go", Old: "keep\nold", New: "keep\nnew"}, true},
		{"two hunks", "*** Begin Patch\n*** Update File: m.go\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch", cairn.FilePatch{}, false},
		{"two files", "*** Begin Patch\n*** Add File: a\n+x\n*** Add File: b\n+y\n*** End Patch", cairn.FilePatch{}, false},
		{"delete", "*** Begin Patch\n*** Delete File: a\n*** End Patch", cairn.FilePatch{}, false},
		{"only additions in an update", "*** Begin Patch\n*** Update File: a\n@@\n+x\n*** End Patch", cairn.FilePatch{}, false},
		{"add with a bare line", "*** Begin Patch\n*** Add File: a\nx\n*** End Patch", cairn.FilePatch{}, false},
		{"not a patch", "diff --git a/x b/x", cairn.FilePatch{}, false},
	} {
		got, ok := cairn.ReadPatch(c.patch)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: ReadPatch = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b-c_d.go": "/a/b-c_d.go",
		"":            "''",
		"a b":         "'a b'",
		"it's":        `'it'\''s'`,
	} {
		if got := cairn.ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

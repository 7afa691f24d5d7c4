package cli

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine: a release's stamped version and commit win; without
// them, what Go recorded (go install …@v1.2.3, a checkout's revision).
func TestVersionLine(t *testing.T) {
	installed := &debug.BuildInfo{Main: debug.Module{Path: "cairn", Version: "v0.4.0"}}
	checkout := &debug.BuildInfo{Main: debug.Module{Path: "cairn", Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name, version, commit string
		info                  *debug.BuildInfo
		lean                  bool
		want                  string
	}{
		{"stamped", "1.2.3", "abc1234", checkout, true, "cairn 1.2.3 (commit abc1234, lean build, "},
		{"stamped with v", "v1.2.3", "abc1234", nil, false, "cairn 1.2.3 (commit abc1234, full build, "},
		{"go install", "", "", installed, true, "cairn 0.4.0 (commit unknown, lean build, "},
		{"checkout", "", "", checkout, false, "cairn (devel) (commit 0123456789abcdef-dirty, full build, "},
		{"nothing", "", "", nil, false, "cairn (devel) (commit unknown, full build, "},
	} {
		if got := versionLine(c.version, c.commit, c.info, c.lean); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want it to begin %q", c.name, got, c.want)
		}
	}
}

// TestVersionFlag: --version prints the one line and succeeds, even where
// the lean build would hand everything else to cairn-full.
func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		var out, errs bytes.Buffer
		m := NewMain(strings.NewReader(""), &out, &errs)
		m.Getenv = func(k string) string {
			if k == "CAIRN_STORE" {
				return "postgres://u@h/db"
			}
			return ""
		}
		if err := m.Run(context.Background(), []string{arg}); err != nil {
			t.Fatalf("%s: %v (%s)", arg, err, errs.String())
		}
		if got := out.String(); !strings.HasPrefix(got, "cairn ") || !strings.Contains(got, "(commit ") || strings.Count(got, "\n") != 1 {
			t.Errorf("%s printed %q", arg, got)
		}
	}
}

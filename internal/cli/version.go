package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit are stamped into a release build's main package
// (-ldflags "-X main.version=1.2.3 -X main.commit=abc123", .goreleaser.yaml)
// and handed to [Run]; a build without them says what the Go toolchain
// recorded.
var version, commit string

// versionLine is what `cairn --version` prints: the version and commit
// stamped from the release's tag, else those Go recorded (the module
// version `go install …@v1.2.3` builds, the VCS revision of a build in a
// checkout, "-dirty" when it had changes), the build (lean or full) and
// the toolchain and platform.
func versionLine(version, commit string, info *debug.BuildInfo, lean bool) string {
	if info != nil {
		if version == "" && info.Main.Version != "" {
			version = info.Main.Version
		}
		if commit == "" {
			commit = vcsRevision(info.Settings)
		}
	}
	version = strings.TrimPrefix(version, "v")
	if version == "" {
		version = "(devel)"
	}
	if commit == "" {
		commit = "unknown"
	}
	build := "full"
	if lean {
		build = "lean"
	}
	return fmt.Sprintf("cairn %s (commit %s, %s build, %s %s/%s)", version, commit, build, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// vcsRevision is the commit Go stamped into a build made in a checkout,
// marked "-dirty" if the work tree had changes.
func vcsRevision(settings []debug.BuildSetting) string {
	var rev string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// printVersion writes the version line to stdout.
func (m *Main) printVersion() {
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(m.Stdout, versionLine(version, commit, info, lean))
}

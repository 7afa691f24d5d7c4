// Package pi reads pi's sessions (the coding agent of
// @mariozechner/pi-coding-agent): JSONL files under
// $PI_CODING_AGENT_DIR (default ~/.pi/agent) sessions/--<cwd>--/, named
// <time>_<uuid>.jsonl, whose first line is the header ({"type":"session",
// "version", "id", "cwd", "parentSession" for a fork}) and every other line
// an entry of a tree (id/parentId) that pi only appends to. Three format
// versions: 1 (before 0.31) lists entries without ids, 2 gives them ids,
// 3 (from 0.35) renames the hookMessage role to custom. pi migrates an
// older file to 3 when it opens it, rewriting the file whole. Lines are
// kept verbatim.
package pi

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
)

// Format is pi's session format. It implements [cairn.Transcript] and
// [cairn.AppendOnly].
type Format struct{}

var (
	_ cairn.Transcript = Format{}
	_ cairn.AppendOnly = Format{}
)

var nameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9T:.Z-]+_([0-9a-f-]{36})\.jsonl$`)
})

// IsSession reports whether a file is a pi session: its first line is a
// header, {"type":"session", …} with an id and a cwd (Claude Code, Codex,
// Gemini CLI and opencode have no such line).
func IsSession(_ string, head [][]byte) bool {
	for _, raw := range head {
		e, typ, _ := parseLine(raw)
		if e == nil && typ == "" {
			if len(strings.TrimSpace(string(raw))) == 0 {
				continue
			}
			return false
		}
		return typ == typeSession && e.ID != "" && e.Cwd != "" && e.Message == nil
	}
	return false
}

// Identify implements [cairn.Transcript]. A session is named by its
// header's id (format 1 files of 0.27 are named by another uuid than
// their header's); its project is the header's cwd; Version is the format
// version, "1" when the header gives none. A fork (--fork, /fork, /clone)
// names the file it came from in parentSession: its Parent is that file's
// session, by the file's name.
func (Format) Identify(path string, head [][]byte) (*cairn.Session, error) {
	for _, raw := range head {
		e, typ, _ := parseLine(raw)
		if e == nil || typ != typeSession {
			continue
		}
		if e.ID == "" {
			break
		}
		v := max(e.Version, 1)
		s := &cairn.Session{ID: e.ID, Agent: cairn.AgentPi, Lineage: cairn.LineageImport, Path: path,
			Project: e.Cwd, Version: strconv.Itoa(v), StartedAt: parseTime(e.Timestamp)}
		if m := nameRE().FindStringSubmatch(filepath.Base(e.ParentSession)); m != nil {
			s.Parent = m[1]
		}
		return s, nil
	}
	return nil, cairn.Errorf(cairn.EINVALID, "%s: not a pi session: no session header in its first lines", path)
}

// NewBuilder implements [cairn.Transcript].
func (Format) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return newBuilder(s, fromSeq)
}

// AppendOnly implements [cairn.AppendOnly]: pi appends to a file of the
// current format (3) and writes one whole only when it is empty or has no
// header; a file of format 1 or 2 is rewritten whole, migrated, the next
// time pi opens it, so it is not append-only.
func (Format) AppendOnly(s *cairn.Session, _ string) bool {
	v, _ := strconv.Atoi(s.Version)
	return v >= 3
}

// Home returns pi's folder: $PI_CODING_AGENT_DIR if getenv gives one (a
// leading ~ its home), else .pi/agent under home.
func Home(getenv func(string) string, home string) string {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return tilde(d, home)
	}
	return filepath.Join(home, ".pi", "agent")
}

// SessionsDirs returns the folders pi writes sessions to: sessions/ under
// its folder (a folder for each working directory in it), and
// $PI_CODING_AGENT_SESSION_DIR when set, the folder sessions go to in
// place of a working directory's.
func SessionsDirs(getenv func(string) string, home string) []string {
	dirs := []string{filepath.Join(Home(getenv, home), "sessions")}
	if d := getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		dirs = append(dirs, tilde(d, home))
	}
	return dirs
}

func tilde(d, home string) string {
	if d == "~" {
		return home
	}
	if strings.HasPrefix(d, "~/") {
		return filepath.Join(home, d[2:])
	}
	return d
}

// ProjectDir returns the folder under sessions/ that pi keeps a working
// directory's sessions in: --<cwd without its leading separator,
// separators and colons as dashes>--.
func ProjectDir(sessionsDir, cwd string) string {
	if strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, `\`) {
		cwd = cwd[1:]
	}
	return filepath.Join(sessionsDir, "--"+strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd)+"--")
}

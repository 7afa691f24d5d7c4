// Package gemini reads and writes Gemini CLI sessions: the files under
// $GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/ (GEMINI_CLI_HOME defaults to
// the user's home; <project> is the short name the client's projects.json
// gives the project's folder, the SHA-256 of its path before 0.3x).
//
// Two eras: from 0.4x, session-<time>-<id8>.jsonl, one record a line,
// appended (metadata first, then messages, a message written again with
// its id when it changes, {"$set": …} updates, {"$rewindTo": id}); before,
// session-<time>-<id8>.json, one JSON document rewritten whole at every
// message. Lines are kept verbatim; a document's rewrite is a new
// generation of lines (see [Format.Document]). A sub-agent's session is
// chats/<parent id>/<id>.jsonl.
package gemini

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/readrule"
)

// Format is the Gemini CLI session format. It implements
// [cairn.Transcript] and [cairn.Documents].
type Format struct{}

var (
	_ cairn.Transcript = Format{}
	_ cairn.Documents  = Format{}
	_ cairn.AppendOnly = Format{}
)

var sessionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^session-.*-[0-9a-f]{8}\.jsonl?$`)
})

// IsSession reports whether a file is a Gemini CLI session: its name
// (session-…-<id8>.json[l] in a chats folder) or its first line (the
// metadata record, or a document's opening brace followed by sessionId)
// says so.
func IsSession(path string, head [][]byte) bool {
	if sessionRE().MatchString(filepath.Base(path)) && filepath.Base(filepath.Dir(path)) == "chats" {
		return true
	}
	for i, raw := range head {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 {
			continue
		}
		if string(t) == "{" && i+1 < len(head) {
			return bytes.HasPrefix(bytes.TrimSpace(head[i+1]), []byte(`"sessionId":`))
		}
		r, typ, _ := parseLine(raw)
		return r != nil && typ == typeMetadata
	}
	return false
}

// maxProjectRoot bounds the .project_root read: a folder's path.
const maxProjectRoot = 64 << 10

// Identify implements [cairn.Transcript]. A session is named by its
// metadata's sessionId; its project is the folder the client recorded in
// <project>/.project_root beside the chats folder, when there is one, read
// under cairn's rule of what may be read ([readrule.ReadFile]): a regular
// file of at most 64 KiB inside the project's folder, reached by no link
// from the client's folder ([clientFolder]) down; anything else leaves the
// project unnamed.
func (Format) Identify(path string, head [][]byte) (*cairn.Session, error) {
	s := &cairn.Session{Agent: cairn.AgentGemini, Lineage: cairn.LineageImport, Path: path}
	kind := ""
	if len(head) > 0 && string(bytes.TrimSpace(head[0])) == "{" {
		for _, raw := range head[1:] {
			var kv map[string]string
			if json.Unmarshal([]byte("{"+strings.TrimSuffix(strings.TrimSpace(string(raw)), ",")+"}"), &kv) != nil {
				if strings.Contains(string(raw), `"messages"`) {
					break
				}
				continue
			}
			if v, ok := kv["sessionId"]; ok {
				s.ID = v
			}
			if v, ok := kv["kind"]; ok {
				kind = v
			}
		}
	} else {
		for _, raw := range head {
			if r, typ, _ := parseLine(raw); r != nil && typ == typeMetadata {
				s.ID, kind = r.SessionID, r.Kind
				break
			}
		}
	}
	if s.ID == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "%s: not a Gemini CLI session: no sessionId in its first lines", path)
	}
	chats := filepath.Dir(path)
	if kind == "subagent" || filepath.Base(chats) != "chats" && filepath.Base(filepath.Dir(chats)) == "chats" {
		s.Lineage, s.Parent, s.AgentID = cairn.LineageSubagent, filepath.Base(chats), s.ID
		chats = filepath.Dir(chats)
	}
	project := filepath.Dir(chats)
	if root, err := readrule.ReadFile(filepath.Join(project, ".project_root"), []string{clientFolder(project)}, maxProjectRoot); err == nil {
		s.Project = strings.TrimSpace(string(root))
	}
	return s, nil
}

// clientFolder is the folder the read of a project's files is confined
// to: the client's own (~/.gemini, the one holding tmp/) when the project
// lies in the client's layout, so that tmp/ swapped for a link out while
// it is read is refused, not followed; else the folder holding the
// project.
func clientFolder(project string) string {
	projects := filepath.Dir(project)
	if filepath.Base(projects) == "tmp" {
		return filepath.Dir(projects)
	}
	return projects
}

// NewBuilder implements [cairn.Transcript].
func (Format) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return newBuilder(s, fromSeq)
}

// Document implements [cairn.Documents]: a session-*.json file of the
// older releases is one JSON document, rewritten whole.
func (Format) Document(path string) bool {
	return strings.HasSuffix(path, ".json") && sessionRE().MatchString(filepath.Base(path))
}

// AppendOnly implements [cairn.AppendOnly]: from 0.4x the client appends
// records to a session's JSONL and writes it whole only to recover one it
// could not read, keeping that one beside it; a file found shorter lost
// records, which the store keeps.
func (Format) AppendOnly(_ *cairn.Session, path string) bool { return !(Format{}).Document(path) }

// Complete implements [cairn.Documents]: JSON.stringify(record, null, 2)
// ends the document with a "}" at the start of its own line, and no
// newline.
func (Format) Complete(last []byte) bool { return string(last) == "}" }

// Home returns the client's folder: $GEMINI_CLI_HOME/.gemini if getenv
// gives one, else .gemini under home.
func Home(getenv func(string) string, home string) string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	return filepath.Join(home, ".gemini")
}

// TmpDir returns the folder of every project's sessions under a Gemini
// home: tmp/<project>/chats/.
func TmpDir(geminiHome string) string { return filepath.Join(geminiHome, "tmp") }

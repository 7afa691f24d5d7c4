package gemini

import (
	"strings"
	"testing"
	"time"
)

// TestFileName pins that an exported session's file is named apart from
// the stub 0.61 writes when it resumes it (session-<now>-<first eight of
// the id>): its cleanup deletes every file whose name ends as a stub's.
func TestFileName(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 52, 30, 0, time.UTC)
	for _, c := range []struct {
		id, doc, want string
	}{
		{"cf9aff2c-6bb1-4a8a-9a84-09f6310e2a0d", "", "session-2026-11-28T05-52-310e2a0d.jsonl"},
		{"cf9aff2c-6bb1-4a8a-9a84-09f6310e2a0d", "json", "session-2026-11-28T05-52-310e2a0d.json"},
		{"0e2a0d11-6bb1-4a8a-9a84-09f60e2a0d11", "", "session-2026-11-28T05-52-9a8409f6.jsonl"},
	} {
		x := &Exporter{SessionID: c.id, Document: c.doc != ""}
		got := x.FileName(at)
		if got != c.want {
			t.Errorf("FileName(%s) = %s, want %s", c.id, got, c.want)
		}
		if strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(got, ".jsonl"), ".json"), "-"+c.id[:8]) {
			t.Errorf("%s ends with the id's first eight, as the client's stub does", got)
		}
		if !sessionRE().MatchString(got) {
			t.Errorf("%s is not read as a session file's name", got)
		}
	}
}

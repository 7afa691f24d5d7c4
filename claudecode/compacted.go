package claudecode

import (
	"bytes"
	"io"
	"os"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/go-json-experiment/json/jsontext"
)

// headBytes is how much of a transcript's start [AfterCompaction] reads
// for the session's first reply.
const headBytes = 1 << 20

// AfterCompaction estimates the tokens of the client's next request when
// the transcript in f ends in a compaction no reply followed (Tokens 0
// from [LastOccupancy]): the client's own overhead (system prompt, tools),
// read as the session's first reply's usage less what the transcript
// records was sent with it ([cairn.DefaultRequestOverhead] when its first
// 1 MB holds no reply), plus what follows the last compact_boundary, which
// the client sends: the summary, the messages, and the attachments it
// records there (files read or written that it attaches again, hook
// context, its listings), at cairn's estimate ([cairn.EstimateTokens]).
// ok is false when the last 4 MB hold no boundary, or a reply follows it.
func AfterCompaction(f *os.File) (tokens int64, ok bool, err error) {
	info, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	tail := occupancyTails[len(occupancyTails)-1]
	start := max(0, info.Size()-tail)
	buf := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return 0, false, err
	}
	lines := bytes.Split(buf, []byte("\n"))
	if start > 0 {
		lines = lines[1:]
	}
	from := -1
	for i := len(lines) - 1; i >= 0 && from < 0; i-- {
		if bytes.Contains(lines[i], []byte(`"compact_boundary"`)) {
			if e, _ := parseLine(lines[i]); e != nil && e.Type == "system" && e.Subtype == "compact_boundary" {
				from = i
			}
		}
	}
	if from < 0 {
		return 0, false, nil
	}
	for _, raw := range lines[from+1:] {
		n, reply := sentTokens(raw)
		if reply > 0 {
			return 0, false, nil
		}
		tokens += n
	}
	overhead, err := firstOverhead(f, info.Size())
	if err != nil {
		return 0, false, err
	}
	return overhead + tokens, true, nil
}

// firstOverhead is what the session's first reply reports beyond what the
// transcript records was sent before it: the client's system prompt and
// tools, within [cairn.MaxRequestOverhead].
func firstOverhead(f *os.File, size int64) (int64, error) {
	buf := make([]byte, min(size, headBytes))
	if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
		return 0, err
	}
	var sent int64
	for _, raw := range bytes.Split(buf, []byte("\n")) {
		n, reply := sentTokens(raw)
		if reply > 0 {
			return min(max(reply-sent, 0), cairn.MaxRequestOverhead), nil
		}
		sent += n
	}
	return cairn.DefaultRequestOverhead, nil
}

// sentTokens is the estimated tokens a line of the main conversation adds
// to a request (a message's text, an attachment's strings), or, for a
// reply with usage, the context that reply reports.
func sentTokens(raw []byte) (tokens, reply int64) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return 0, 0
	}
	var l struct {
		entry
		Attachment jsontext.Value `json:"attachment"`
	}
	if !unmarshalLine(raw, &l) || l.IsSidechain {
		return 0, 0
	}
	switch l.Type {
	case "assistant":
		if m := l.Message; m != nil && m.Usage != nil && m.Model != "<synthetic>" {
			u := cairn.Usage{Input: m.Usage.InputTokens, CacheRead: m.Usage.CacheReadInputTokens, CacheCreation: m.Usage.CacheCreationInputTokens}
			return 0, u.Context()
		}
		fallthrough
	case "user":
		if l.Message == nil {
			return 0, 0
		}
		var b strings.Builder
		writeMessageText(&b, l.Message)
		return cairn.EstimateTokens(b.String()) + cairn.BlockOverheadTokens, 0
	case "attachment":
		var a struct {
			Type string `json:"type"`
		}
		if len(l.Attachment) == 0 || !unmarshal(l.Attachment, &a) || unsentAttachment(a.Type) {
			return 0, 0
		}
		var b strings.Builder
		writeStrings(&b, jsontext.NewDecoder(bytes.NewReader(l.Attachment)))
		return cairn.EstimateTokens(b.String()) + cairn.BlockOverheadTokens, 0
	}
	return 0, 0
}

// unsentAttachment reports the attachments the client records without
// sending them: a hook's raw output (its context is an attachment of its
// own) and a copy of the system prompt (the overhead).
func unsentAttachment(t string) bool {
	switch t {
	case "hook_success", "prompt_snapshot":
		return true
	}
	return false
}

// writeStrings writes the string values of the JSON dec reads, object
// keys left out, one a line.
func writeStrings(b *strings.Builder, dec *jsontext.Decoder) {
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return
		}
		if tok.Kind() != '"' {
			continue
		}
		if kind, n := dec.StackIndex(dec.StackDepth()); kind != '{' || n%2 == 0 {
			b.WriteString(tok.String())
			b.WriteByte('\n')
		}
	}
}

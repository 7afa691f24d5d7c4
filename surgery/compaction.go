package surgery

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/cairn-dev/cairn"
)

// BeforeCompaction says what an operation keeps of a round's content that
// lies before the client's last compaction boundary, which the client no
// longer sends.
const (
	// BeforeSummary carries the client's own summary (the default); the
	// steps it stands for are in the index like any other, in runs where
	// the budget is short.
	BeforeSummary = "summary"
	// BeforeIndex carries the client's summary and a line per step it
	// stands for, whatever the index's share.
	BeforeIndex = "index"
	// BeforeFull brings the content back as stored.
	BeforeFull = "full"
)

// ParseBeforeCompaction checks a --before-compaction value; "" is summary.
func ParseBeforeCompaction(s string) (string, error) {
	switch s {
	case "", BeforeSummary:
		return BeforeSummary, nil
	case BeforeIndex, BeforeFull:
		return s, nil
	}
	return "", cairn.Errorf(cairn.EINVALID, "--before-compaction must be full, index or summary, got %q.", s)
}

// compactionText is what the client writes on a compact_boundary line.
const compactionText = "Conversation compacted"

// isBoundary reports whether b is the block of a compact_boundary line: a
// compaction block, or the meta text a store inscribed before compaction
// blocks existed holds for it.
func isBoundary(b *cairn.Block) bool {
	return b.Kind == cairn.CompactionBlock || (b.Role == "system" && b.Kind == cairn.MetaText && b.Content == compactionText)
}

// compactionsIn returns the compactions whose boundaries are among a
// round's blocks, each read from its line: trigger, pre-compaction tokens
// and the summary line that follows.
func (st Store) compactionsIn(ctx context.Context, r *cairn.Round, blocks []*cairn.Block) ([]*cairn.Compaction, error) {
	var out []*cairn.Compaction
	for _, b := range blocks {
		if !isBoundary(b) {
			continue
		}
		lines, err := st.Lines.FindLines(ctx, r.SessionID, b.LineNo, min(b.LineNo+8, r.LastLine))
		if err != nil {
			return nil, err
		}
		if len(lines) == 0 {
			continue
		}
		c := &cairn.Compaction{SessionID: r.SessionID, RoundSeq: r.Seq, Line: b.LineNo, At: b.Timestamp}
		if !bytes.Contains(lines[0].Raw, []byte(`"compact_boundary"`)) {
			// A 1.0.x compaction has no boundary line: its summary line is
			// the compaction (the reader gives it its compaction block).
			if s, ok := compactSummary(lines[0].Raw); ok {
				c.Summary = s
				out = append(out, c)
			}
			continue
		}
		var head struct {
			Meta struct {
				Trigger   string `json:"trigger"`
				PreTokens int64  `json:"preTokens"`
			} `json:"compactMetadata"`
		}
		if json.Unmarshal(lines[0].Raw, &head) == nil {
			c.Trigger, c.PreTokens = head.Meta.Trigger, head.Meta.PreTokens
		}
		for _, l := range lines[1:] {
			if s, ok := compactSummary(l.Raw); ok {
				c.Summary = s
				break
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// compactSummary returns the text of an isCompactSummary line.
func compactSummary(raw []byte) (string, bool) {
	if !bytes.Contains(raw, []byte(`"isCompactSummary"`)) {
		return "", false
	}
	var l struct {
		IsCompactSummary bool `json:"isCompactSummary"`
		Message          struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &l) != nil || !l.IsCompactSummary {
		return "", false
	}
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		return s, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return "", false
	}
	for _, b := range blocks {
		if b.Type == "text" {
			s += b.Text
		}
	}
	return s, true
}

// Compactions returns the client's compactions of a session, in order: what
// `cairn rounds` shows. Returns ENOTFOUND if the session does not exist.
func Compactions(ctx context.Context, st Store, session string) ([]*cairn.Compaction, error) {
	s, err := st.Sessions.FindSessionByID(ctx, session)
	if err != nil {
		return nil, err
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, WithBlocks: true})
	if err != nil {
		return nil, err
	}
	var out []*cairn.Compaction
	for _, r := range rounds {
		cs, err := st.compactionsIn(ctx, r, r.Blocks)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// respectCompaction keeps, of each session's rounds, only what follows its
// last compaction: rounds before it become index lines, the round across it
// keeps its prompt and the steps after the boundary, and the client's summary
// stands for what came before.
func respectCompaction(m *cairn.Materialization, full []*plan, before string) {
	last := map[string]*cairn.Compaction{}
	for _, c := range m.Compactions {
		if l := last[c.SessionID]; l == nil || c.Line > l.Line {
			last[c.SessionID] = c
		}
	}
	carried := map[string]bool{}
	for _, pl := range full {
		r := pl.p.Round
		c := last[r.SessionID]
		if c == nil || !pl.loaded || pl.level >= levelIndex || r.LastLine < c.Line {
			if c != nil && r.LastLine < c.Line && !pl.last {
				pl.level = levelIndex
			}
			continue
		}
		if r.FirstLine < c.Line && pl.opKeep == nil { // the lines the operation itself chose stay as chosen
			k := 0
			for k < len(pl.steps) && pl.steps[k].FirstLine <= c.Line {
				k++
			}
			if k == len(pl.steps) && !pl.last {
				pl.level = levelIndex
				continue
			}
			if k == len(pl.steps) && k > 0 {
				k-- // the latest round keeps its last step, whatever it holds
			}
			pl.pre = append([]cairn.IndexEntry(nil), pl.lines[:k]...)
			pl.preSteps, pl.preIdx = append([]*cairn.Step(nil), pl.steps[:k]...), append([]int64(nil), pl.idx[:k]...)
			if c.RoundSeq == r.Seq && k > 0 {
				c.StepsBefore = pl.steps[k-1].Seq
			}
			pl.full, pl.partial, pl.idx, pl.lines, pl.steps = pl.full[k:], pl.partial[k:], pl.idx[k:], pl.lines[k:], pl.steps[k:]
		}
		if !carried[r.SessionID] {
			carried[r.SessionID] = true
			pl.comp = c
			pl.extra += cairn.EstimateTokens(c.Summary) + 60
		}
	}
}

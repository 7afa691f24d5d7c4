package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"cairn"
)

// Occupancy is how full the client's context window is: the tokens the
// last request of the main conversation carried in (input, cache read
// and cache creation: what the client holds), against the model's window.
type Occupancy struct {
	Tokens int64  `json:"tokens"`
	Window int64  `json:"window"`
	Model  string `json:"model,omitempty"`
}

// Percent returns the share of the window in use, 0 to 100 (more if the
// window was guessed too small).
func (o *Occupancy) Percent() int {
	if o.Window <= 0 {
		return 0
	}
	return int(o.Tokens * 100 / o.Window)
}

// Context windows. Claude models hold 200,000 tokens; some hold 1,000,000
// (the client names them with a "[1m]" suffix, which the transcript does
// not record), so a session past 200,000 must be on one of those.
const (
	DefaultContextWindow = 200_000
	LargeContextWindow   = 1_000_000
)

// ContextWindow returns the window of model for a request of tokens:
// configured when not 0, else [DefaultContextWindow], or
// [LargeContextWindow] when the model says "1m" or tokens do not fit.
func ContextWindow(model string, tokens, configured int64) int64 {
	switch {
	case configured > 0:
		return configured
	case strings.Contains(strings.ToLower(model), "[1m]"), tokens > DefaultContextWindow:
		return LargeContextWindow
	}
	return DefaultContextWindow
}

// occupancyTails are how much of a transcript's end LastOccupancy reads,
// in turn, to find the last assistant message: its usage is near the end,
// unless the last turn produced huge tool results.
var occupancyTails = []int64{256 << 10, 4 << 20}

// LastOccupancy returns how full the context of the session written in f
// was at its last assistant reply (window as [ContextWindow] says,
// with configured); Tokens is 0 right after a compaction. A session
// [Exporter] wrote reads as its own size: its replies report it. Only the file's end is read, so it costs the same on a
// 100 MB transcript as on a small one. Returns nil if no assistant reply
// with usage is in the last 4 MB (or none yet). The caller opens f, under
// the rule of what a transcript may be (inscribe.Open): only a regular
// file is read.
func LastOccupancy(f *os.File, configured int64) (*Occupancy, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	for _, tail := range occupancyTails {
		start := max(0, info.Size()-tail)
		buf := make([]byte, info.Size()-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, err
		}
		if o := lastOccupancy(buf, start > 0); o != nil {
			o.Window = ContextWindow(o.Model, o.Tokens, configured)
			return o, nil
		}
		if start == 0 {
			break
		}
	}
	return nil, nil
}

// lastOccupancy scans buf's lines from the end; when cut, the first line
// may be partial and is skipped.
func lastOccupancy(buf []byte, cut bool) *Occupancy {
	if cut {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		} else {
			return nil
		}
	}
	for len(buf) > 0 {
		line := buf
		if i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n'); i >= 0 {
			line, buf = buf[i+1:], buf[:i]
		} else {
			buf = nil
		}
		if bytes.Contains(line, []byte(`"compact_boundary"`)) && bytes.Contains(line, []byte(`"system"`)) {
			// Compacted since the last reply: what the client holds now is
			// the summary, not what that reply carried.
			return &Occupancy{}
		}
		if !bytes.Contains(line, []byte(`"usage"`)) || !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		var l struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Model string `json:"model"`
				Usage *struct {
					Input         int64 `json:"input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.IsSidechain || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
			continue
		}
		u := cairn.Usage{Input: l.Message.Usage.Input, CacheRead: l.Message.Usage.CacheRead, CacheCreation: l.Message.Usage.CacheCreation}
		return &Occupancy{Tokens: u.Context(), Model: l.Message.Model}
	}
	return nil
}

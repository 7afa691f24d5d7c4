package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/cairn-dev/cairn"
)

// Occupancy is how full the client's context is: see [cairn.Occupancy].
type Occupancy = cairn.Occupancy

// occupancyTails are how much of a transcript's end LastOccupancy reads,
// in turn, to find the last assistant message: its usage is near the end,
// unless the last turn produced huge tool results.
var occupancyTails = []int64{256 << 10, 4 << 20}

// LastOccupancy returns how full the context of the session written in f
// was at its last assistant reply, against the window
// [cairn.ClaudeCodeWindow] gives with signals and the model the
// transcript names (the model the client asked for, with its "[1m]");
// Tokens is 0 right after a compaction. A session [Exporter] wrote reads
// as its own size: its replies report it. Only the file's end is read, so
// it costs the same on a 100 MB transcript as on a small one. Returns nil
// if no assistant reply with usage is in the last 4 MB (or none yet). The
// caller opens f, under the rule of what a transcript may be
// (inscribe.Open): only a regular file is read.
func LastOccupancy(f *os.File, signals cairn.WindowSignals) (*Occupancy, error) {
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
			if signals.Model == "" {
				signals.Model = o.Model
			}
			signals.Tokens = max(signals.Tokens, o.Tokens)
			o.Window = cairn.ClaudeCodeWindow(signals)
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
			Requested   string `json:"requestedModel"`
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
		model := l.Message.Model
		if l.Requested != "" {
			model = l.Requested // the client's name, with its "[1m]"
		}
		return &Occupancy{Tokens: u.Context(), Model: model}
	}
	return nil
}

package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// turnTail is how much of a transcript's end [TurnEnded] reads: a turn's
// last reply and what the client writes after it.
const turnTail = 64 << 10

// TurnEnded reports whether the last message on a transcript's main
// chain is the agent's reply without a tool call: the turn's end is
// written. Claude Code may run its Stop hook before it writes that reply,
// so a hook that needs the turn whole waits for it. It reads the file's
// last 64 KiB; a reply longer than that is found ended when no later
// message is.
func TurnEnded(f *os.File) (bool, error) {
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	from := max(info.Size()-turnTail, 0)
	buf := make([]byte, info.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return false, err
	}
	lines := bytes.Split(buf, []byte("\n"))
	if from > 0 {
		lines = lines[1:] // cut in its middle
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var l struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if len(bytes.TrimSpace(lines[i])) == 0 || json.Unmarshal(lines[i], &l) != nil || l.IsSidechain {
			continue
		}
		switch l.Type {
		case "user":
			return false, nil
		case "assistant":
			var blocks []struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				if b.Type == "tool_use" {
					return false, nil
				}
			}
			return true, nil
		}
	}
	return false, nil
}

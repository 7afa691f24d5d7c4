package claudecode

import (
	"bytes"
	"io"
	"os"

	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json"
)

// maxWriteTail is how much of a transcript's end [LastWrites] reads: a
// run of empty writes is a few small lines at the end, and the Stop hook
// that reads it must stay within a few milliseconds.
const maxWriteTail = 256 << 10

// LastWrites reads the end of a transcript and returns its main chain's
// file-writing calls (Write, Edit, MultiEdit, NotebookEdit) in order, each
// with whether it carried content and whether its result was an error.
// It reads at most the last 256 KiB, in a few milliseconds, so a hook may call
// it after every tool call. The caller opens f, under the rule of what a
// transcript may be (inscribe.Open): only a regular file is read.
func LastWrites(f *os.File) ([]cairn.WriteCall, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(0, info.Size()-maxWriteTail)
	data := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return nil, err
	}
	if off > 0 { // the first line is cut: skip it
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	var calls []cairn.WriteCall
	index := map[string]int{}
	for _, raw := range SplitLines(data) {
		if !bytes.Contains(raw, []byte(`"tool_`)) {
			continue
		}
		e, _ := parseLine(raw)
		if e == nil || e.Message == nil || e.IsSidechain {
			continue
		}
		var blocks []contentBlock
		if !unmarshal(e.Message.Content, &blocks) {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				if !cairn.MayWriteFiles(cairn.AgentClaudeCode, b.Name) {
					continue
				}
				var in struct {
					Path string `json:"file_path"`
					NB   string `json:"notebook_path"`
				}
				_ = json.Unmarshal(b.Input, &in, decodeOptions)
				index[b.ID] = len(calls)
				calls = append(calls, cairn.WriteCall{ToolID: b.ID, Tool: b.Name, Path: in.Path + in.NB,
					Empty: cairn.EmptyWrite(b.Name, string(b.Input))})
			case "tool_result":
				if i, ok := index[b.ToolUseID]; ok {
					calls[i].Failed = b.IsError
				}
			}
		}
	}
	return calls, nil
}

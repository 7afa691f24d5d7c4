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
	calls, _, _, err := WritesSince(f, -1)
	return calls, err
}

// WritesSince is [LastWrites] of the lines from offset off on, so a hook
// that kept where the previous one stopped reads only what was appended
// since: it returns the calls of the whole lines there, the offset they
// were read from (off, or the tail's first whole line) and the offset
// after the last of them, where the next read starts; a line still being
// written is left to it. An off that is not a line's start in f (negative,
// past its end, a transcript rewritten), or more than 256 KiB from its
// end, reads the last 256 KiB as LastWrites does.
func WritesSince(f *os.File, off int64) (calls []cairn.WriteCall, from, end int64, err error) {
	info, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	size := info.Size()
	from = off - 1 // the byte before a line's start is its predecessor's '\n'
	if off <= 0 || off > size || size-off > maxWriteTail {
		from = max(0, size-maxWriteTail)
	}
	if size == from {
		return nil, size, size, nil
	}
	data := make([]byte, size-from)
	if _, err := f.ReadAt(data, from); err != nil && err != io.EOF {
		return nil, 0, 0, err
	}
	if from > 0 || from == off-1 { // the first line is cut, or the '\n' before off
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil, size, size, nil
		}
		if from == off-1 && i != 0 { // off was not a line's start: read the tail
			return WritesSince(f, -1)
		}
		data, from = data[i+1:], from+int64(i)+1
	}
	end = from
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data, end = data[:i+1], from+int64(i)+1
	} else {
		data = nil
	}
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
	return calls, from, end, nil
}

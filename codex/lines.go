package codex

import "bytes"

// SplitLines splits a rollout into lines that keep their terminators, so
// that the lines concatenated are the data.
func SplitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

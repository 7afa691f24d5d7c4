package claudecode

import "bytes"

// SplitLines splits a transcript into lines that keep their terminators,
// so that the lines concatenated are the data. A last line without a
// terminator is returned as it is.
func SplitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

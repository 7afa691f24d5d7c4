package workspace

import (
	"os"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// pressureDir holds, per session, the highest pressure threshold the
// session's context was last seen at: .cairn/pressure/<session>.
const pressureDir = "pressure"

// Crossed records that session's context is at percent and returns the
// threshold it has newly crossed upwards (the highest one, when it jumped
// several), or 0. A threshold is reported once per crossing: when the
// context falls below it again (a compaction, a revive), the next rise
// reports it again.
func (w *Workspace) Crossed(session string, percent int, thresholds []int) (int, error) {
	level := 0
	for _, t := range thresholds {
		if percent >= t {
			level = t
		}
	}
	if !NamesFile(session) {
		return 0, cairn.Errorf(cairn.EINVALID, "Session id %q cannot name a pressure file.", session)
	}
	path := w.private(pressureDir, session)
	data, err := readFile(path)
	if err != nil {
		return 0, err
	}
	last, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if last == level {
		return 0, nil // also: no file yet, and below every threshold
	}
	if err := os.MkdirAll(w.private(pressureDir), 0o755); err != nil {
		return 0, err
	}
	if err := writeFile(path, []byte(strconv.Itoa(level)+"\n")); err != nil {
		return 0, err
	}
	if level > last {
		return level, nil
	}
	return 0, nil
}

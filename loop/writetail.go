package loop

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// A writeTail is where the exhaustion check stopped reading a session's
// transcript and the run of empty writes it had seen end there, so the
// next check reads only the lines appended since (a few KB at a turn's
// end) rather than the transcript's last 256 KiB, which every Stop and
// PostToolUse read and decoded before. Calls of other tools do not break
// a run, so a run is carried on however far back it began.
type writeTail struct {
	Off  int64  `json:"off"`
	Run  int    `json:"run,omitempty"`
	Last string `json:"last,omitempty"` // the run's last call
}

// writeTailLag is how far a check may read past the offset kept before it
// keeps its own: a check that saw no write replaces no file until the
// lines since the kept offset reach it, so a turn's end mostly reads a
// few KB more and writes nothing.
const writeTailLag = 16 << 10

// writeTailPath is .cairn/context/<session>.tail.json.
func (l *Loop) writeTailPath(session string) string {
	return l.contextFile(session, ".tail.json")
}

// writeTail returns what the previous check kept of session; Off -1 (read
// the tail) when it kept nothing that reads.
func (l *Loop) writeTail(session string) writeTail {
	path := l.writeTailPath(session)
	if path == "" {
		return writeTail{Off: -1}
	}
	data, err := os.ReadFile(path)
	var t writeTail
	if err != nil || json.Unmarshal(data, &t) != nil {
		return writeTail{Off: -1}
	}
	return t
}

// keepWriteTail replaces session's write tail. A check that cannot keep it
// (a read-only workspace) reads the tail again next time, so its error is
// dropped.
func (l *Loop) keepWriteTail(session string, t writeTail) {
	path := l.writeTailPath(session)
	if path == "" {
		return
	}
	data, err := json.Marshal(t)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = replaceFile(path, data)
	}
}

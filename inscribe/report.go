package inscribe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
)

// File statuses in a [FileReport].
const (
	StatusNew       = "new"       // first inscription
	StatusAppended  = "appended"  // new bytes read after the stored offset
	StatusUnchanged = "unchanged" // nothing new
	StatusRewritten = "rewritten" // the file changed before the offset: re-inscribed as a new generation
	StatusFailed    = "failed"    // could not be read or stored; what was stored before is intact
	StatusEmpty     = "empty"     // a new file without one complete line yet: nothing stored
	StatusDuplicate = "duplicate" // a copy of a session read from another file, holding nothing more: not stored twice
	StatusSkipped   = "skipped"   // not read: not a regular file, or a folder that cannot be listed (Error says why)
	StatusKept      = "kept"      // an append-only file shorter than what was stored, its beginning: what was stored is kept (Note says so)
)

// A Problem is one line that was stored raw, or not stored, and why.
type Problem struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// String formats p as path:line: reason, the form editors jump to.
func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason) }

// A FileReport says what importing one file did.
type FileReport struct {
	Path      string `json:"path"`
	SessionID string `json:"session_id,omitempty"`
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`
	Note      string `json:"note,omitempty"` // what a person should know of a file that did not fail
	Bytes     int64  `json:"bytes"`          // new bytes read
	Read      int    `json:"read"`           // lines read
	Stored    int    `json:"stored"`         // lines stored (every line read, complete ones)
	Pending   int    `json:"pending"`
	Rounds    int    `json:"rounds"` // rounds in the session afterwards

	// Last is the session's last round as this import inscribed it, its
	// blocks, tags and usage not read back; nil when it inscribed no
	// round. A hook that wants the last round after its import need not
	// read it again.
	Last *cairn.Round `json:"-"`
}

// merge adds what one attempt at importing a file did: lines stored, and
// its status and counts if it succeeded (an attempt that lost a race to
// another import is followed by one that carries on from the winner's).
func (f *FileReport) merge(try *FileReport, ok bool) {
	f.SessionID = try.SessionID
	f.Stored += try.Stored
	f.Bytes += try.Bytes
	if !ok {
		f.Read += try.Stored
		if f.Status == "" && try.Stored > 0 {
			f.Status = try.Status
		}
		return
	}
	f.Read += try.Read
	f.Pending, f.Rounds, f.Note, f.Last = try.Pending, try.Rounds, try.Note, try.Last
	if try.Status != StatusUnchanged || f.Status == "" {
		f.Status = try.Status
	}
}

// A Report sums the import of many files.
type Report struct {
	Files    []*FileReport  `json:"files"`
	Read     int            `json:"lines_read"`
	Stored   int            `json:"lines_stored"`
	Skipped  map[string]int `json:"lines_kept_raw"` // by reason
	Pending  int            `json:"lines_pending"`  // incomplete last lines, read on the next import
	Bytes    int64          `json:"bytes"`
	Problems []Problem      `json:"problems"`
	Failed   int            `json:"files_failed"`
}

// maxProblems bounds the problems a report lists; counts stay exact.
const maxProblems = 200

func (r *Report) add(f *FileReport, problems []Problem) {
	r.Files = append(r.Files, f)
	r.Read += f.Read
	r.Stored += f.Stored
	r.Pending += f.Pending
	r.Bytes += f.Bytes
	if f.Status == StatusFailed {
		r.Failed++
	}
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	for _, p := range problems {
		r.Skipped[reasonKind(p.Reason)]++
		if len(r.Problems) < maxProblems {
			r.Problems = append(r.Problems, p)
		}
	}
}

func reasonKind(reason string) string {
	if i := strings.Index(reason, " ("); i > 0 {
		reason = reason[:i]
	}
	if strings.HasPrefix(reason, "unknown line type") {
		return "unknown line type"
	}
	return reason
}

// Summary is the one paragraph a person reads at the end of an import.
func (r *Report) Summary() string {
	counts := map[string]int{}
	for _, f := range r.Files {
		counts[f.Status]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d new, %d appended, %d unchanged, %d rewritten, %d failed): %s read, %d stored, %.1f MB",
		plural(len(r.Files), "file"), counts[StatusNew], counts[StatusAppended], counts[StatusUnchanged], counts[StatusRewritten], counts[StatusFailed],
		plural(r.Read, "line"), r.Stored, float64(r.Bytes)/1e6)
	if counts[StatusDuplicate] > 0 {
		copies := "copies"
		if counts[StatusDuplicate] == 1 {
			copies = "copy"
		}
		fmt.Fprintf(&b, "; %d %s of sessions read from other files, not stored twice", counts[StatusDuplicate], copies)
	}
	if counts[StatusKept] > 0 {
		fmt.Fprintf(&b, "; %s shorter than what was stored, which is kept", plural(counts[StatusKept], "file"))
	}
	if counts[StatusSkipped] > 0 {
		fmt.Fprintf(&b, "; %s skipped", plural(counts[StatusSkipped], "path"))
	}
	if counts[StatusDropped] > 0 {
		fmt.Fprintf(&b, "; %s the store lets go (cairn prune, its keep setting)", plural(counts[StatusDropped], "file"))
	}
	if counts[StatusEmpty] > 0 {
		fmt.Fprintf(&b, "; %s with no complete line yet", plural(counts[StatusEmpty], "new file"))
	}
	if r.Pending > 0 {
		fmt.Fprintf(&b, "; %s left for the next import", plural(r.Pending, "incomplete last line"))
	}
	if len(r.Skipped) > 0 {
		reasons := make([]string, 0, len(r.Skipped))
		for k, n := range r.Skipped {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(reasons)
		fmt.Fprintf(&b, "; kept raw without index: %s", strings.Join(reasons, ", "))
	}
	return b.String() + "."
}

// plural returns n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package pi

import (
	"context"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// SessionOffPath returns what surgery's Store.OffPath asks: the lines of
// a pi session off its active path ([OffPath]), read from lines; nothing
// for another harness's session. The function it returns reads a
// session's lines once for as long as the session holds as many lines:
// one operation asks for them more than once (its rounds, then its
// pieces' lines). The map is shared between those answers: read only.
// The function may be called from several goroutines (the viewer's
// requests).
func SessionOffPath(lines cairn.LineStore) func(context.Context, *cairn.Session) (map[int]bool, error) {
	type read struct {
		id      string
		lines   int
		updated time.Time
		off     map[int]bool
	}
	var (
		mu   sync.Mutex
		last read
	)
	return func(ctx context.Context, s *cairn.Session) (map[int]bool, error) {
		if s.Agent != cairn.AgentPi {
			return nil, nil
		}
		mu.Lock()
		seen := last
		mu.Unlock()
		if seen.off != nil && seen.id == s.ID && seen.lines == s.Lines && seen.updated.Equal(s.UpdatedAt) {
			return seen.off, nil
		}
		ls, err := lines.FindAllLines(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		off := OffPath(ls)
		mu.Lock()
		last = read{s.ID, s.Lines, s.UpdatedAt, off}
		mu.Unlock()
		return off, nil
	}
}

// OffPath returns the numbers of a session's lines that lie off its
// active path: entries of the tree that the walk from the leaf pi resumes
// from (the file's last entry with an id) up its parents to the root does
// not reach, the branches left. Lines that are no entry of the tree (the
// header, a format 1 file's entries, lines that do not parse) are on it.
// Since a branch opens a round of its own (see builder), a round's lines
// off the path are its last ones.
func OffPath(lines []*cairn.Line) map[int]bool {
	off, _ := OffPathFrom(lines, "")
	return off
}

// OffPathFrom is [OffPath] with the path walked from the entry whose id is
// leaf ("": the file's last entry): every entry after it on its branch is
// off the path too, the session as it was when leaf was its last entry (a
// compaction prepared ahead of pi's, of what pi will not keep). Returns
// ENOTFOUND when no line holds leaf.
func OffPathFrom(lines []*cairn.Line, leaf string) (map[int]bool, error) {
	type at struct {
		no     int
		parent string
	}
	byID := map[string]at{}
	last := ""
	for _, l := range lines {
		n := readNode(l.Raw)
		if !n.entry || n.typ == typeSession || n.id == "" {
			continue
		}
		parent := ""
		if n.parent != nil {
			parent = *n.parent
		}
		byID[n.id] = at{l.No, parent}
		last = n.id
	}
	if leaf == "" {
		leaf = last
	} else if _, ok := byID[leaf]; !ok {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No entry %s in the pi session.", leaf)
	}
	on := map[int]bool{}
	for id := leaf; id != ""; {
		n, ok := byID[id]
		if !ok || on[n.no] {
			break
		}
		on[n.no] = true
		id = n.parent
	}
	off := map[int]bool{}
	for _, n := range byID {
		if !on[n.no] {
			off[n.no] = true
		}
	}
	return off, nil
}

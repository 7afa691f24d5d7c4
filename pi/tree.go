package pi

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// SessionOffPath returns what surgery's Store.OffPath asks: the lines of
// a pi session off its active path ([OffPath]), read from lines; nothing
// for another harness's session.
func SessionOffPath(lines cairn.LineStore) func(context.Context, *cairn.Session) (map[int]bool, error) {
	return func(ctx context.Context, s *cairn.Session) (map[int]bool, error) {
		if s.Agent != cairn.AgentPi {
			return nil, nil
		}
		ls, err := lines.FindAllLines(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		return OffPath(ls), nil
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
	type node struct {
		no     int
		parent string
	}
	byID := map[string]node{}
	leaf := ""
	for _, l := range lines {
		e, typ, _ := parseLine(l.Raw)
		if e == nil || typ == typeSession || e.ID == "" {
			continue
		}
		parent := ""
		if e.ParentID != nil {
			parent = *e.ParentID
		}
		byID[e.ID] = node{l.No, parent}
		leaf = e.ID
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
	return off
}

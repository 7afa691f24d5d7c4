package pi

import "github.com/cairn-dev/cairn"

// Parents returns, for each line that is an entry of a session's tree,
// the line of the entry it names as its parent: 0 for a root, or for a
// parent no line holds. With [OffPath] it says where each branch left
// forks from the path, which the viewer draws as a tree.
func Parents(lines []*cairn.Line) map[int]int {
	lineOf := map[string]int{}
	parentOf := map[int]string{}
	for _, l := range lines {
		n := readNode(l.Raw)
		if !n.entry || n.typ == typeSession || n.id == "" {
			continue
		}
		lineOf[n.id] = l.No
		if n.parent != nil {
			parentOf[l.No] = *n.parent
		} else {
			parentOf[l.No] = ""
		}
	}
	parents := make(map[int]int, len(parentOf))
	for no, id := range parentOf {
		parents[no] = lineOf[id]
	}
	return parents
}

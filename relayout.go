package cairn

// RelayoutReport is what rewriting a store in place into the layout this
// cairn writes did (`cairn migrate --in-place`): the same lines, in
// another encoding, each checked by its SHA-256 before the old bytes
// were replaced.
type RelayoutReport struct {
	Sessions int   `json:"sessions"`       // in the store
	Relaid   int   `json:"relaid"`         // rewritten by this run (the others were before, or were written in the layout)
	Chunks   int   `json:"rewritten"`      // units of raw lines rewritten (SQLite: chunks; PostgreSQL: lines)
	Lines    int   `json:"lines_verified"` // lines whose SHA-256 was checked after their rewrite
	Views    int   `json:"views"`          // blocks whose text became a view of their line, or lost a copy of it
	Before   int64 `json:"bytes_before"`   // the store's size before
	After    int64 `json:"bytes_after"`    // and after
}

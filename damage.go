package cairn

import "fmt"

// Damaged is stored lines whose bytes can no longer be read back as they
// were written: a chunk that no longer decodes (SQLite), lines whose bytes
// no longer match their checksums (PostgreSQL). Either store returns it,
// under an [Error] that says what to do, from a read that meets them, so
// that callers see one type whatever the backend. Nothing rewrites stored
// lines (the block store is append-only), so the repair is to store the
// session's transcript again, as a new generation: reindex sets the
// session up for it ([InscriptionStore.Reread]) and says which file to
// import.
type Damaged struct {
	Session     string
	Generation  int
	First, Last int // the damaged lines (an SQLite chunk's, all of them)

	// Checksum says the lines read back but no longer match their
	// checksums; else they cannot be read back at all.
	Checksum bool

	// Err is what reading them met, when there is more to say than
	// Checksum does (a chunk that does not decode, a line not stored).
	Err error
}

// Error implements the error interface.
func (d *Damaged) Error() string {
	cause := "bytes differ from their checksum"
	if d.Err != nil {
		cause = d.Err.Error()
	} else if !d.Checksum {
		cause = "cannot be read back"
	}
	return fmt.Sprintf("session %s, lines %d–%d of generation %d: %s", d.Session, d.First, d.Last, d.Generation, cause)
}

// Unwrap returns what reading the lines met, or nil.
func (d *Damaged) Unwrap() error { return d.Err }

// Lost says, for a person, which stored lines d makes unreadable.
func (d *Damaged) Lost() string {
	switch {
	case !d.Checksum:
		return fmt.Sprintf("session %s: lines %d–%d (generation %d) cannot be read back", d.Session, d.First, d.Last, d.Generation)
	case d.First == d.Last:
		return fmt.Sprintf("session %s: line %d (generation %d) no longer matches its checksum", d.Session, d.First, d.Generation)
	}
	return fmt.Sprintf("session %s: lines %d–%d (generation %d) no longer match their checksums", d.Session, d.First, d.Last, d.Generation)
}

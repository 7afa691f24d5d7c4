package postgres

import (
	"context"
	"fmt"
	"hash/crc32"
)

// castagnoli is the CRC-32C table every line's crc is computed with.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lineCRC is what a line's crc column holds for raw.
func lineCRC(raw []byte) int64 { return int64(crc32.Checksum(raw, castagnoli)) }

// damage is stored lines whose bytes no longer match their crc.
type damage struct {
	session     string
	generation  int
	first, last int // the damaged lines
}

func (d *damage) Error() string {
	return fmt.Sprintf("session %s, lines %d–%d of generation %d: bytes differ from their checksum", d.session, d.first, d.last, d.generation)
}

// lost says, for a person, which stored lines d makes unreadable.
func (d *damage) lost() string {
	if d.first == d.last {
		return fmt.Sprintf("session %s: line %d (generation %d) no longer matches its checksum", d.session, d.first, d.generation)
	}
	return fmt.Sprintf("session %s: lines %d–%d (generation %d) no longer match their checksums", d.session, d.first, d.last, d.generation)
}

// reread sets a session's source position back to nothing read, so that
// the next import of its file stores it whole as a new generation in
// place of lines that cannot be read back. Only the position changes: no
// line is touched.
func (s *InscriptionStore) reread(ctx context.Context, id string) error {
	return s.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `UPDATE sessions SET src_offset = 0, src_lines = 0, head_hash = NULL, tail_hash = NULL, src_sum = NULL WHERE id = $1`, id)
		return err
	})
}

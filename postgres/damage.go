package postgres

import (
	"context"
	"hash/crc32"
)

// castagnoli is the CRC-32C table every line's crc is computed with.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lineCRC is what a line's crc column holds for raw. Every read checks
// it: lines whose bytes differ are a [cairn.Damaged] with Checksum set.
func lineCRC(raw []byte) int64 { return int64(crc32.Checksum(raw, castagnoli)) }

// Reread implements [cairn.InscriptionStore].
func (s *InscriptionStore) Reread(ctx context.Context, id string) (err error) {
	defer s.db.explain(&err)
	return s.db.write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `UPDATE sessions SET src_offset = 0, src_lines = 0, head_hash = NULL, tail_hash = NULL, src_sum = NULL WHERE id = $1`, id)
		return err
	})
}

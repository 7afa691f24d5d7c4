package surgery

import "github.com/cairn-dev/cairn"

// PieceBlocks returns the blocks of a full piece of session s, rebuilt from
// the piece's lines by the reader of s's harness and condensed to fidelity
// f: what a writer for another harness translates (a Claude Code round
// continued in Codex, or the reverse). Rebuilding from the lines keeps
// whatever the materialization cut from the round.
func PieceBlocks(format cairn.Transcript, s *cairn.Session, p *cairn.Piece, f cairn.Fidelity) []*cairn.Block {
	sess := *s
	b := format.NewBuilder(&sess, p.Round.Seq)
	for _, l := range p.Lines {
		c := *l
		b.Add(&c)
	}
	_, blocks, _ := b.Finish()
	r := *p.Round
	r.Blocks = r.Blocks[:0:0]
	for _, bl := range cairn.CollectBlocks(blocks) {
		if bl.RoundSeq == p.Round.Seq {
			r.Blocks = append(r.Blocks, bl)
		}
	}
	return Apply(&r, f).Blocks
}

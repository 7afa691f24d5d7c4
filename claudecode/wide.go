package claudecode

import (
	"iter"

	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json/jsontext"
)

// wideBlocks is how many blocks of one line a round holds: past it, the
// line is a wide line, whose blocks are decoded a second time as the
// store reads them instead of being held until the batch is stored.
// Decoding twice costs about a microsecond a block; holding one costs
// some 300 bytes until the batch commits (a message of a million blocks:
// 600 MB).
var wideBlocks = 4096 // a variable for tests

// wideContent is the size of a line past which its raw JSON values
// (a message's content) are slices of the line's bytes, not the decoder's
// copies of them ([unmarshalLine]).
const wideContent = 1 << 20

// sliceBlocks is how many blocks of a wide line are decoded between two
// yields of [builder.Finish]'s sequence.
const sliceBlocks = 1024

// A wideLine is a line of more than wideBlocks blocks. Its blocks are not
// held: they are decoded again from its content when read, by the code
// that decoded them first, so they are the same blocks.
type wideLine struct {
	at        int // its blocks come after the round's first at held blocks
	index     int // the Index of its first block
	src       *lineSource
	content   jsontext.Value // the message's content array
	toolNames []string       // the tool each of its tool results answers, as known when it was read
}

// addParts adds the blocks of a message's content array, of the line src
// describes. A line of more than wideBlocks blocks becomes a wide line:
// its blocks are read through for what they tell of the round (tools,
// previews) but not held.
func (rs *roundState) addParts(src *lineSource, content jsontext.Value) {
	first := len(rs.blocks)
	var wide *wideLine
	var scratch cairn.Block
	for at, c := range elements[contentBlock](content) {
		bl := &scratch
		if wide == nil {
			bl = new(cairn.Block)
		}
		if !src.part(bl, rs.count, at, &c, rs.toolName) {
			continue
		}
		rs.count++
		rs.note(bl)
		if wide != nil {
			if bl.Kind == cairn.ToolResult {
				wide.toolNames = append(wide.toolNames, bl.ToolName)
			}
			continue
		}
		rs.blocks = append(rs.blocks, bl)
		if len(rs.blocks)-first < wideBlocks {
			continue
		}
		wide = &wideLine{at: first, index: rs.blocks[first].Index, src: src, content: content}
		for _, held := range rs.blocks[first:] {
			if held.Kind == cairn.ToolResult {
				wide.toolNames = append(wide.toolNames, held.ToolName)
			}
		}
		clear(rs.blocks[first:])
		rs.blocks = rs.blocks[:first]
		rs.wide = append(rs.wide, wide)
	}
}

// blocks yields the line's blocks, sliceBlocks at a time, each slice in
// memory of its own.
func (w *wideLine) blocks(yield func([]*cairn.Block) bool) bool {
	names := w.toolNames
	toolName := func(string) string {
		if len(names) == 0 {
			return ""
		}
		name := names[0]
		names = names[1:]
		return name
	}
	index := w.index
	var slab []cairn.Block
	var out []*cairn.Block
	for at, c := range elements[contentBlock](w.content) {
		if len(out) == cap(out) {
			if len(out) > 0 && !yield(out) {
				return false
			}
			slab, out = make([]cairn.Block, sliceBlocks), make([]*cairn.Block, 0, sliceBlocks)
		}
		bl := &slab[len(out)]
		if w.src.part(bl, index, at, &c, toolName) {
			index++
			out = append(out, bl)
		}
	}
	return len(out) == 0 || yield(out)
}

// roundBlocks are one round's blocks as [builder.Finish] found them.
type roundBlocks struct {
	held []*cairn.Block
	wide []*wideLine
}

// allBlocks yields the blocks of rounds in order: held blocks as they
// are, wide lines' blocks decoded again.
func allBlocks(rounds []roundBlocks) iter.Seq[[]*cairn.Block] {
	return func(yield func([]*cairn.Block) bool) {
		for _, r := range rounds {
			at := 0
			for _, w := range r.wide {
				if w.at > at && !yield(r.held[at:w.at]) {
					return
				}
				if !w.blocks(yield) {
					return
				}
				at = w.at
			}
			if len(r.held) > at && !yield(r.held[at:]) {
				return
			}
		}
	}
}

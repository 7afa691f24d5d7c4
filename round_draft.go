package cairn

import (
	"iter"
	"slices"
)

// A RoundDraft is a round as an adapter's builder reads it from a
// transcript: the round, its blocks so far, and the usage of its responses.
// Lines still to come may extend it; [FinishRounds] gives what is read.
type RoundDraft struct {
	Round  *Round
	Blocks []*Block
	Usage  RoundUsage
}

// RoundPreviewLen is the number of characters kept in a round's previews.
const RoundPreviewLen = 80

// Add appends to d a block read from line l: its role, kind, content and
// the response it belongs to (msgID), set filling in the rest (a tool
// call's name and id). The round's UserPreview is its first prompt's, its
// AgentPreview its last assistant text's that is not blank.
func (d *RoundDraft) Add(l *Line, role string, kind BlockKind, content, msgID string, set func(*Block)) {
	bl := &Block{
		SessionID: d.Round.SessionID, RoundSeq: d.Round.Seq, LineNo: l.No, Index: len(d.Blocks),
		Role: role, Kind: kind, Timestamp: l.Timestamp, Content: content, MessageID: msgID,
	}
	if set != nil {
		set(bl)
	}
	d.Blocks = append(d.Blocks, bl)
	r := d.Round
	switch kind {
	case UserText:
		if r.UserPreview == "" {
			r.UserPreview = PreviewText(content, RoundPreviewLen)
		}
	case AssistantText:
		if p := PreviewText(content, RoundPreviewLen); p != "" {
			r.AgentPreview = p
		}
	}
}

// AddTool notes that round r called tool name, once.
func (r *Round) AddTool(name string) {
	if !slices.Contains(r.Tools, name) {
		r.Tools = append(r.Tools, name)
	}
}

// FinishRounds returns drafts as a [RoundBuilder]'s Finish does: a copy of
// each round with its usage summed, their blocks in order, and each
// response's usage.
func FinishRounds(drafts []*RoundDraft) ([]*Round, iter.Seq[[]*Block], []*MessageUsage) {
	rounds := make([]*Round, 0, len(drafts))
	var blocks []*Block
	var msgs []*MessageUsage
	for _, d := range drafts {
		r := *d.Round
		r.Usage, msgs = d.Usage.Sum(msgs)
		rounds = append(rounds, &r)
		blocks = append(blocks, d.Blocks...)
	}
	return rounds, BlockSlices(blocks), msgs
}

// RoundUsage gathers the usage of a round's responses as its lines are
// read. Several lines may carry one response's usage, the last the most
// complete: each message id counts once, with the figures it was last
// given, in the order first seen.
type RoundUsage struct {
	byID  map[string]*MessageUsage
	order []string
}

// Set records the usage u of message id, answered by model in round seq,
// in place of what an earlier line of the same message gave.
func (ru *RoundUsage) Set(seq int, id, model string, u Usage) {
	if mu, ok := ru.byID[id]; ok {
		mu.Usage = u
		if model != "" {
			mu.Model = model
		}
		return
	}
	if ru.byID == nil {
		ru.byID = map[string]*MessageUsage{}
	}
	ru.byID[id] = &MessageUsage{MessageID: id, RoundSeq: seq, Model: model, Usage: u}
	ru.order = append(ru.order, id)
}

// Has reports whether message id's usage was recorded.
func (ru *RoundUsage) Has(id string) bool { return ru.byID[id] != nil }

// Sum returns the round's total usage and msgs with a copy of each
// message's usage appended.
func (ru *RoundUsage) Sum(msgs []*MessageUsage) (Usage, []*MessageUsage) {
	var total Usage
	for _, id := range ru.order {
		mu := *ru.byID[id]
		total = total.Add(mu.Usage)
		msgs = append(msgs, &mu)
	}
	return total, msgs
}

package claudecode

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/cairn-dev/cairn"
)

// describeUsage rewrites the usage out's assistant lines report so that it
// describes the exported session itself, not the sessions its lines came
// from. The client reads the last reply's usage as how full its context
// is when it resumes a session (and compacts it before the first prompt
// when that looks full), and so does [LastOccupancy]: a revive of a
// session that ended at a full window, left with its source's figures,
// would be compacted at once, lossily, and cairn's hooks would call it
// full.
//
// Each kept assistant message that reports usage reports, instead:
// input_tokens, the estimated tokens the client sends before it (its
// overhead, the summary, every line kept before the message); no cache
// tokens; output_tokens, the message's own estimate. So the last reply's
// input and output add up to the whole output's estimate: m.Tokens when
// set (surgery's Estimate, the figure every edge shows), shared among the
// lines in proportion to their text, else the lines' own sum. The usage
// object's other members (service tier, server tool use) are kept; a line
// without usage gets none.
func (x *Exporter) describeUsage(m *cairn.Materialization, out []*outLine) {
	overhead := m.Overhead
	if overhead <= 0 {
		overhead = cairn.DefaultRequestOverhead
	}
	base := overhead + cairn.EstimateTokens(x.Summary)
	sizes := make([]int64, len(out))
	var conv int64
	for i, l := range out {
		sizes[i] = l.tokens()
		conv += sizes[i]
	}
	scale := 1.0
	if m.Tokens > base && conv > 0 {
		scale = float64(m.Tokens-base) / float64(conv)
	}

	// One API message may span lines, not always next to each other (the
	// results of parallel calls come between them): it is sent after what
	// precedes its first line, and it is all its lines. A line without a
	// message id is a reply of its own.
	type reply struct{ in, own float64 }
	replies := map[string]*reply{}
	of := make([]*reply, len(out))
	before := float64(base)
	for i, l := range out {
		share := float64(sizes[i]) * scale
		if l.typ == "assistant" {
			r := replies[l.msgID]
			if r == nil || l.msgID == "" {
				r = &reply{in: before}
				replies[l.msgID] = r
			}
			r.own += share
			of[i] = r
		}
		before += share
	}
	for i, l := range out {
		if r := of[i]; r != nil {
			in := int64(math.Round(r.in))
			l.setUsage(in, int64(math.Round(r.in+r.own))-in)
		}
	}
}

// tokens returns the estimated tokens a user or assistant line adds to
// the request, as [cairn.BlockTokens] counts a block: its text (a tool
// call's input, a result's text) and its framing. Other lines add none.
func (l *outLine) tokens() int64 {
	if l.typ != "user" && l.typ != "assistant" {
		return 0
	}
	var msg message
	if raw := l.obj.get("message"); len(raw) == 0 || !unmarshal(raw, &msg) {
		return 0
	}
	if s, ok := msg.text(); ok {
		return cairn.EstimateTokens(s) + cairn.BlockOverheadTokens
	}
	var n int64
	for _, b := range msg.blocks() {
		n += cairn.EstimateTokens(b.Text) + cairn.EstimateTokens(b.Thinking) + cairn.BlockOverheadTokens
		if len(b.Input) > 0 {
			n += cairn.EstimateTokens(string(b.Input))
		}
		if len(b.Content) > 0 {
			n += cairn.EstimateTokens(resultText(b.Content))
		}
	}
	return n
}

// setUsage sets the input and output tokens the line's message reports and
// zeroes its cache figures, when it reports usage at all.
func (l *outLine) setUsage(input, output int64) {
	msg, err := decodeObject(l.obj.get("message"))
	if err != nil {
		return
	}
	u, err := decodeObject(msg.get("usage"))
	if err != nil {
		return
	}
	u.set("input_tokens", json.RawMessage(strconv.FormatInt(input, 10)))
	for _, k := range []string{"cache_read_input_tokens", "cache_creation_input_tokens"} {
		if u.find(k) >= 0 {
			u.set(k, json.RawMessage("0"))
		}
	}
	if c, err := decodeObject(u.get("cache_creation")); err == nil {
		// Its split of cache_creation_input_tokens by lifetime.
		for i := range c.members {
			if _, err := strconv.ParseInt(string(c.members[i].val), 10, 64); err == nil {
				c.members[i].val = json.RawMessage("0")
			}
		}
		u.set("cache_creation", compact(c))
	}
	u.set("output_tokens", json.RawMessage(strconv.FormatInt(output, 10)))
	msg.set("usage", compact(u))
	l.obj.set("message", compact(msg))
}

// compact returns o encoded without its line terminator.
func compact(o *object) json.RawMessage {
	enc := o.appendTo(nil)
	return json.RawMessage(enc[:len(enc)-1])
}

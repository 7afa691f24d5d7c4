package opencode

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/cairn-dev/cairn"
)

// keepRound returns a whole round of an opencode session at full fidelity
// as its own documents: every message and part as the client wrote it (the
// latest version the round's lines hold), under new ids, each assistant
// message's parentID following its prompt's new id. Only a tool part that
// never finished (pending, running) is left out, and counted: the client
// would send it as a call without a result. ok is false when the piece
// cannot be kept so (not an opencode round, a record it cannot read).
func (x *Exporter) keepRound(p *cairn.Piece, tick func() int64) (msgs []*Message, ok bool) {
	type doc struct {
		rec  *Record
		data map[string]any
	}
	var order []string
	docs := map[string]*doc{}
	for _, l := range p.Lines {
		if l.Status != cairn.LineOK && l.Status != cairn.LineInvalidUTF8 {
			continue
		}
		r, status := parseRecord(l.Raw)
		if r == nil || status == cairn.LineUnknownType || status == cairn.LineInvalidJSON {
			return nil, false
		}
		if r.Kind == KindSession {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(r.Data))
		dec.UseNumber()
		var data map[string]any
		if err := dec.Decode(&data); err != nil || data == nil {
			return nil, false
		}
		key := r.Kind + " " + r.ID
		if docs[key] == nil {
			order = append(order, key)
		}
		docs[key] = &doc{rec: r, data: data}
	}
	ids := map[string]string{} // old message id → new
	byMsg := map[string]*Message{}
	for _, key := range order {
		d := docs[key]
		if d.rec.Kind != KindMessage {
			continue
		}
		ms := tick()
		m := &Message{ID: x.ids.Ascending("msg", time.UnixMilli(ms)), Created: ms, Data: stripIDs(d.data)}
		ids[d.rec.ID] = m.ID
		byMsg[d.rec.ID] = m
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		if parent, ok := m.Data["parentID"].(string); ok {
			if id, ok := ids[parent]; ok {
				m.Data["parentID"] = id
			} else {
				delete(m.Data, "parentID")
			}
		}
	}
	for _, key := range order {
		d := docs[key]
		if d.rec.Kind != KindPart {
			continue
		}
		owner := d.rec.col("message_id")
		if owner == "" {
			owner, _ = d.data["messageID"].(string)
		}
		m := byMsg[owner]
		if m == nil {
			continue
		}
		if d.data["type"] == "tool" {
			st, _ := d.data["state"].(map[string]any)
			if s, _ := st["status"].(string); s != "completed" && s != "error" {
				x.Crossed.CallsUnanswered++
				continue
			}
		}
		m.Parts = append(m.Parts, &Part{ID: x.ids.Ascending("prt", time.UnixMilli(tick())), Data: stripIDs(d.data)})
	}
	return msgs, true
}

// stripIDs drops the ids the JSON storage era keeps in a document, which
// WriteSession sets anew.
func stripIDs(data map[string]any) map[string]any {
	for _, k := range []string{"id", "sessionID", "messageID"} {
		delete(data, k)
	}
	return data
}

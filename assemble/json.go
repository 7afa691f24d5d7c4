package assemble

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// jsonFormat writes one JSON object: the frames in view as a flat list in
// document order (each with its parent and depth), the core, the relay
// files, the index and what was cut. Every piece after the first of a list
// starts with a comma, which render drops after an opening bracket, so a
// dropped piece leaves valid JSON behind.
type jsonFormat struct{}

func (jsonFormat) fields(b *strings.Builder, fields []field) {
	for _, f := range fields {
		if f.text != "" {
			fmt.Fprintf(b, ",%s:%s", jsonString(strings.ReplaceAll(strings.ToLower(f.name), "-", "_")), jsonString(f.text))
		}
	}
}

func jsonFrameHead(f *cairn.Frame, depth int) string {
	return fmt.Sprintf(",{\"id\":%s,\"parent\":%s,\"depth\":%d,\"status\":%q", jsonString(f.ID), jsonString(f.ParentID), depth, f.Status)
}

func (j jsonFormat) frag(it *item, fid cairn.Resolution) string {
	fields := it.fields[fid]
	var b strings.Builder
	switch it.section {
	case cairn.SectionCore:
		if len(fields) > 0 {
			b.WriteString(`,"core":{`)
			var sub strings.Builder
			j.fields(&sub, fields)
			b.WriteString(strings.TrimPrefix(sub.String(), ","))
			b.WriteString("}")
		}
	case cairn.SectionIndex:
		if len(fields) > 0 {
			fmt.Fprintf(&b, `,"index":%s`, jsonString(fields[0].text))
		}
	case cairn.SectionRelay:
		if len(fields) > 0 {
			fmt.Fprintf(&b, `,{"name":%s,"text":%s}`, jsonString(it.id), jsonString(fields[0].text))
		}
	case cairn.SectionAncestors:
		j.fields(&b, fields)
	default:
		if it.id == "work" || it.id == "log" {
			j.fields(&b, fields)
		} else if len(fields) > 0 {
			b.WriteString(jsonFrameHead(it.frame, it.depth))
			j.fields(&b, fields)
			b.WriteString("}")
		}
	}
	return b.String()
}

func (jsonFormat) note(note string) string {
	if note == "" {
		return ""
	}
	return `,"cut":` + jsonString(note)
}

// jsonWriter drops a piece's leading comma right after an opening bracket.
type jsonWriter struct{ strings.Builder }

func (w *jsonWriter) put(s string) {
	if s == "" {
		return
	}
	if n := w.Len(); s[0] == ',' && n > 0 && (w.String()[n-1] == '[' || w.String()[n-1] == '{') {
		s = s[1:]
	}
	w.WriteString(s)
}

type jsonStack struct {
	w      *jsonWriter
	fm     jsonFormat
	isOpen *bool // a path frame's object is open
	elided int   // the doc's elided ancestors, which the depth shown omits
}

func (s jsonStack) closeOpen() {
	if *s.isOpen {
		s.w.put("}")
		*s.isOpen = false
	}
}

func (s jsonStack) open(f *cairn.Frame, depth int, current bool) {
	s.closeOpen()
	if depth > 0 {
		depth += s.elided
	}
	s.w.put(jsonFrameHead(f, depth))
	if current {
		s.w.put(`,"current":true`)
	}
	*s.isOpen = true
}

func (s jsonStack) close(*cairn.Frame, int, bool) { s.closeOpen() }

func (s jsonStack) item(it *item) {
	if it == nil {
		return
	}
	if it.section != cairn.SectionAncestors && it.id != "work" && it.id != "log" {
		s.closeOpen() // a sibling is an element of its own
	}
	s.w.put(it.text(s.fm))
}

func (s jsonStack) pinned(p *pinned, depth int) {
	var b strings.Builder
	s.fm.fields(&b, []field{{"title", p.shownTitle()}, {"success-criteria", p.shownCriteria()}})
	s.w.put(b.String())
}

func (j jsonFormat) render(d *doc, note string) string {
	w := &jsonWriter{}
	w.put(`{"frames":[`)
	walkStack(d, d.children, jsonStack{w: w, fm: j, isOpen: new(bool), elided: d.elided})
	w.put("]")
	w.put(d.core.text(j))
	if len(d.relay) > 0 {
		w.put(`,"relay":[`)
		for _, r := range d.relay {
			w.put(r.text(j))
		}
		w.put("]")
	}
	w.put(d.index.text(j))
	w.put(j.note(note))
	w.put("}\n")
	return w.String()
}

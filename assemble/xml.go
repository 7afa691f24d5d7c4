package assemble

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// xmlFormat writes the seed's <stack-context>: the path from the root to
// the current frame as nested elements, siblings as <child> elements beside
// it, inside a <context> that also holds the core, relay files and index.
type xmlFormat struct{}

var (
	xmlEscaper  = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

// xmlEscape escapes text content; attrEscape an attribute value.
func xmlEscape(s string) string  { return xmlEscaper.Replace(s) }
func attrEscape(s string) string { return attrEscaper.Replace(s) }

// indents holds the indentation of the usual depths, made once.
var indents = func() (out [32]string) {
	for i := range out {
		out[i] = strings.Repeat("  ", i)
	}
	return out
}()

func indent(depth int) string {
	if depth < len(indents) {
		return indents[depth]
	}
	return strings.Repeat("  ", depth)
}

func (xmlFormat) fields(b *strings.Builder, fields []field, depth int) {
	for _, f := range fields {
		if f.text == "" {
			continue
		}
		b.WriteString(indent(depth))
		b.WriteString("<" + f.name + ">")
		b.WriteString(xmlEscape(f.text))
		b.WriteString("</" + f.name + ">\n")
	}
}

func (x xmlFormat) frag(it *item, fid cairn.Resolution) string {
	fields := it.fields[fid]
	var b strings.Builder
	switch it.section {
	case cairn.SectionCore:
		if len(fields) > 0 {
			b.WriteString("<core>\n")
			for _, f := range fields {
				if f.text != "" {
					fmt.Fprintf(&b, "%s: %s\n", f.name, xmlEscape(f.text))
				}
			}
			b.WriteString("</core>\n")
		}
	case cairn.SectionIndex:
		if len(fields) > 0 {
			fmt.Fprintf(&b, "<index>\n%s\n</index>\n", xmlEscape(fields[0].text))
		}
	case cairn.SectionRelay:
		if len(fields) > 0 {
			fmt.Fprintf(&b, "<relay name=\"%s\">\n%s\n</relay>\n", attrEscape(it.id), xmlEscape(strings.TrimRight(fields[0].text, "\n")))
		}
	case cairn.SectionAncestors:
		x.fields(&b, fields, it.depth+1)
	default:
		if it.id == "work" || it.id == "log" {
			x.fields(&b, fields, it.depth+1)
		} else if len(fields) > 0 {
			f := it.frame
			fmt.Fprintf(&b, "%s<child id=\"%s\" status=\"%s\">\n", indent(it.depth), attrEscape(f.ID), f.Status)
			x.fields(&b, fields, it.depth+1)
			fmt.Fprintf(&b, "%s</child>\n", indent(it.depth))
		}
	}
	return b.String()
}

func (xmlFormat) note(note string) string {
	if note == "" {
		return ""
	}
	return "<cut>" + xmlEscape(note) + "</cut>\n"
}

type xmlStack struct {
	b  *strings.Builder
	fm xmlFormat
}

func (w xmlStack) tag(depth int) string {
	if depth == 0 {
		return "stack-context"
	}
	return "child"
}

func (w xmlStack) open(f *cairn.Frame, depth int, current bool) {
	cur := ""
	if current {
		cur = ` current="true"`
	}
	fmt.Fprintf(w.b, "%s<%s id=\"%s\" status=\"%s\"%s>\n", indent(depth), w.tag(depth), attrEscape(f.ID), f.Status, cur)
}

func (w xmlStack) close(f *cairn.Frame, depth int, current bool) {
	fmt.Fprintf(w.b, "%s</%s>\n", indent(depth), w.tag(depth))
}

func (w xmlStack) item(it *item) { w.b.WriteString(it.text(w.fm)) }

func (w xmlStack) pinned(p *pinned, depth int) {
	w.fm.fields(w.b, []field{{"title", p.shownTitle()}, {"success-criteria", p.shownCriteria()}}, depth+1)
}

func (x xmlFormat) render(d *doc, note string) string {
	var b strings.Builder
	b.WriteString("<context>\n")
	b.WriteString(d.core.text(x))
	walkStack(d, d.children, xmlStack{&b, x})
	for _, r := range d.relay {
		b.WriteString(r.text(x))
	}
	b.WriteString(d.index.text(x))
	b.WriteString(x.note(note))
	b.WriteString("</context>\n")
	return b.String()
}

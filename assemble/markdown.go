package assemble

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// markdownFormat writes the context for people: the core, the stack as a
// nested list, relay files and the index under headings.
type markdownFormat struct{}

// fieldLabel is how a frame field is headed for people.
func fieldLabel(name string) string {
	switch name {
	case "success-criteria":
		return "Success criteria"
	case "results":
		return "Results"
	case "artifacts":
		return "Artifacts"
	case "decisions":
		return "Decisions"
	case "depends-on":
		return "Depends on"
	case "owner":
		return "Owner"
	case "log":
		return "Log"
	}
	return ""
}

func (markdownFormat) fields(b *strings.Builder, fields []field, depth int) {
	in := indent(depth)
	for _, f := range fields {
		if f.text == "" {
			continue
		}
		text := strings.ReplaceAll(f.text, "\n", "\n"+in+"  ")
		if f.name == "title" {
			fmt.Fprintf(b, "%s**%s**\n", in, text)
		} else {
			fmt.Fprintf(b, "%s%s: %s\n", in, fieldLabel(f.name), text)
		}
	}
}

func (m markdownFormat) frag(it *item, fid cairn.Resolution) string {
	fields := it.fields[fid]
	if len(fields) == 0 {
		return ""
	}
	var b strings.Builder
	switch it.section {
	case cairn.SectionCore:
		b.WriteString("## Core\n\n")
		for _, f := range fields {
			if f.text != "" {
				fmt.Fprintf(&b, "%s: %s\n", f.name, f.text)
			}
		}
		b.WriteString("\n")
	case cairn.SectionIndex:
		fmt.Fprintf(&b, "## Index\n\n%s\n\n", fields[0].text)
	case cairn.SectionRelay:
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", it.id, strings.TrimRight(fields[0].text, "\n"))
	case cairn.SectionAncestors:
		m.fields(&b, fields, it.depth+1)
	default:
		if it.id == "work" || it.id == "log" {
			m.fields(&b, fields, it.depth+1)
		} else {
			fmt.Fprintf(&b, "%s- %s [%s]\n", indent(it.depth), it.frame.ID, it.frame.Status)
			m.fields(&b, fields, it.depth+1)
		}
	}
	return b.String()
}

func (markdownFormat) note(note string) string {
	if note == "" {
		return ""
	}
	return "> " + note + "\n"
}

type markdownStack struct {
	b  *strings.Builder
	fm markdownFormat
}

func (w markdownStack) open(f *cairn.Frame, depth int, current bool) {
	cur := ""
	if current {
		cur = " ← current"
	}
	fmt.Fprintf(w.b, "%s- %s [%s]%s\n", indent(depth), f.ID, f.Status, cur)
}

func (w markdownStack) close(*cairn.Frame, int, bool) {}

func (w markdownStack) item(it *item) { w.b.WriteString(it.text(w.fm)) }

func (w markdownStack) pinned(p *pinned, depth int) {
	w.fm.fields(w.b, []field{{"title", p.shownTitle()}, {"success-criteria", p.shownCriteria()}}, depth+1)
}

func (m markdownFormat) render(d *doc, note string) string {
	var b strings.Builder
	b.WriteString("# Context\n\n")
	b.WriteString(d.core.text(m))
	if len(d.path) > 0 {
		b.WriteString("## Frames\n\n")
		walkStack(d, d.children, markdownStack{&b, m})
		b.WriteString("\n")
	}
	for _, r := range d.relay {
		b.WriteString(r.text(m))
	}
	b.WriteString(d.index.text(m))
	b.WriteString(m.note(note))
	return b.String()
}

package assemble

import (
	"encoding/json"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A Format is how an assembled context is written.
type Format string

// Formats: XML as the call-stack seed specifies (structure as XML, content
// as prose), Markdown for people, JSON for programs.
const (
	XML      Format = "xml"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat returns the format named s. Returns EINVALID for an unknown
// name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case XML, Markdown, JSON:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", cairn.Errorf(cairn.EINVALID, "Unknown format %q: use xml, markdown or json.", s)
}

// A format renders a doc. render must write each item as frag writes it,
// so that the chars of a rendering are the sum of its parts.
type format interface {
	frag(it *item, fid cairn.Resolution) string
	render(d *doc, note string) string
	note(note string) string
}

func newFormat(f Format) format {
	switch f {
	case Markdown:
		return markdownFormat{}
	case JSON:
		return jsonFormat{}
	}
	return xmlFormat{}
}

// text returns it's text at its chosen fidelity, from the cache the
// fitter filled.
func (it *item) text(fm format) string {
	if it == nil {
		return ""
	}
	if !it.known[it.fid] {
		it.frag[it.fid] = fm.frag(it, it.fid)
		it.known[it.fid] = true
	}
	return it.frag[it.fid]
}

// A stackWriter renders the stack as walkStack visits it. A frame's depth
// is as shown: the ancestors the fitter elided do not count (the JSON
// format adds them back to the depth it prints).
type stackWriter interface {
	open(f *cairn.Frame, depth int, current bool)
	close(f *cairn.Frame, depth int, current bool)
	item(it *item)
	pinned(p *pinned, depth int)
}

// walkStack calls the format's callbacks for the stack in document order.
func walkStack(d *doc, tree func(id string) []*cairn.Frame, w stackWriter) {
	if len(d.path) == 0 {
		return
	}
	last := len(d.path) - 1
	var visit func(k int)
	visit = func(k int) {
		f, depth := d.path[k], k
		if k > 0 {
			depth -= d.elided
		}
		w.open(f, depth, k == last)
		if k < last {
			w.item(d.ancestor[k])
			for _, c := range tree(f.ID) {
				if c.ID == d.path[k+1].ID {
					if k == 0 {
						visit(1 + d.elided)
					} else {
						visit(k + 1)
					}
				} else if it := d.siblings[c.ID]; it != nil {
					w.item(it)
				}
			}
		} else {
			w.pinned(d.criteria, depth)
			w.item(d.work)
			w.item(d.log)
			for _, c := range tree(f.ID) {
				if it := d.siblings[c.ID]; it != nil {
					w.item(it)
				}
			}
		}
		w.close(f, depth, k == last)
	}
	visit(0)
}

func jsonString(s string) string {
	buf, _ := json.Marshal(s)
	return string(buf)
}

package redact

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Ellipsis is what ends a clipped preview or title and begins or ends a
// clipped search snippet.
const Ellipsis = "…"

// An edit replaces text[start:end] by repl: a secret by its mark, a cut
// run by nothing.
type edit struct {
	start, end int
	repl       string
}

// plan returns the edits that redact text, in order and apart: every
// occurrence of each secret found (longer ones first), then, with cut, the
// runs cut by an ellipsis that no secret's edit touches.
func plan(text string, found []Finding, cut bool) []edit {
	var edits []edit
	overlaps := func(start, end int) bool {
		for _, e := range edits {
			if start < e.end && e.start < end {
				return true
			}
		}
		return false
	}
	found = slices.Clone(found)
	sort.SliceStable(found, func(i, j int) bool { return len(found[i].Secret) > len(found[j].Secret) })
	for _, f := range found {
		for i := 0; ; {
			j := strings.Index(text[i:], f.Secret)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(f.Secret)
			if !overlaps(start, end) {
				edits = append(edits, edit{start, end, Mark(f.Rule)})
			}
			i = end
		}
	}
	if cut {
		for _, c := range cuts(text) {
			if !overlaps(c.start, c.end) {
				edits = append(edits, c)
			}
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	return edits
}

// MinCut is the length from which a run cut by an ellipsis is dropped,
// unless it is a plain word: a shorter one gives away too little of a
// secret to matter.
const MinCut = 8

// cuts returns the runs an ellipsis cut: the run of characters a secret
// is made of ([inSecret]) just before an ellipsis and just after one,
// when it is [MinCut] long or more and not a plain word. A preview, a
// title or a snippet cut a secret there, perhaps: 17 of an AWS key's 20
// characters match no rule. A run that begins after a backslash keeps the
// escape it ends (\n, \u00e9), so that JSON stays JSON.
func cuts(text string) []edit {
	var out []edit
	for i := 0; ; {
		j := strings.Index(text[i:], Ellipsis)
		if j < 0 {
			return out
		}
		at := i + j
		end := at + len(Ellipsis)
		start := at
		for start > 0 && inSecret(text[start-1]) {
			start--
		}
		if start > 0 && text[start-1] == '\\' {
			start += escapeLen(text[start:at])
		}
		if start < at && cutRun(text[start:at]) {
			out = append(out, edit{start, at, ""})
		}
		stop := end
		for stop < len(text) && inSecret(text[stop]) {
			stop++
		}
		if stop > end && cutRun(text[end:stop]) {
			out = append(out, edit{end, stop, ""})
		}
		i = end
	}
}

// escapeLen is how much of s, which follows a backslash, the escape
// holds: a \u escape's letter and four digits, else one byte.
func escapeLen(s string) int {
	if len(s) >= 5 && s[0] == 'u' {
		return 5
	}
	return min(1, len(s))
}

// inSecret reports whether c is one of the characters secrets are made
// of: letters and digits, and the punctuation of tokens, base64, keys and
// URLs. Quotes, backslashes, spaces and brackets end a run, so dropping
// one never breaks the JSON or the markup around it.
func inSecret(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("+/=_-.~%:@!#$&*?", c) >= 0
}

// cutRun reports whether a run an ellipsis cut must be dropped: it is
// MinCut long or more and not a plain word (lower case letters, the
// first perhaps upper case, then perhaps a full stop or a comma).
func cutRun(run string) bool {
	if utf8.RuneCountInString(run) < MinCut {
		return false
	}
	w := strings.TrimRight(run, ".,:;!?")
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || i == 0 && 'A' <= c && c <= 'Z') {
			return true
		}
	}
	return false
}

// Snippet redacts a search snippet whose matches are wrapped in start and
// end markers: secrets are found with the markers taken out (a marker
// inside a secret would hide it from every rule), replaced by their
// marks, and the runs the snippet's ellipses cut dropped. A match inside
// a secret or a cut run loses its markers; ok is false when a match's
// text shows nowhere but inside one, so that a search of a redacted view
// never finds a secret by its text: the hit is to be dropped. found are
// the secrets replaced.
func (r *Redactor) Snippet(snippet, start, end string) (out string, found []Finding, ok bool) {
	type mark struct{ start, end int }
	var plain strings.Builder
	var marks []mark
	for rest := snippet; rest != ""; {
		i := strings.Index(rest, start)
		if i < 0 {
			plain.WriteString(strings.ReplaceAll(rest, end, ""))
			break
		}
		plain.WriteString(strings.ReplaceAll(rest[:i], end, ""))
		rest = rest[i+len(start):]
		j := strings.Index(rest, end)
		if j < 0 {
			j = len(rest)
		}
		m := mark{plain.Len(), plain.Len() + len(strings.ReplaceAll(rest[:j], start, ""))}
		plain.WriteString(strings.ReplaceAll(rest[:j], start, ""))
		marks = append(marks, m)
		rest = rest[min(len(rest), j+len(end)):]
	}
	text := plain.String()
	found = r.Find(text)
	edits := plan(text, found, true)
	inside := func(m mark) bool {
		for _, e := range edits {
			if m.start < e.end && e.start < m.end {
				return true
			}
		}
		return false
	}
	shown, hidden := map[string]bool{}, map[string]bool{}
	var b strings.Builder
	pos, k := 0, 0
	// write copies text up to at, the matches outside every edit
	// between markers.
	write := func(at int) {
		for pos < at {
			for k < len(marks) && marks[k].end <= pos {
				k++
			}
			if k == len(marks) || marks[k].start >= at {
				b.WriteString(text[pos:at])
				pos = at
				return
			}
			m := marks[k]
			if m.start > pos {
				b.WriteString(text[pos:m.start])
				pos = m.start
			}
			e := min(m.end, at)
			if inside(m) {
				b.WriteString(text[pos:e])
			} else {
				b.WriteString(start + text[pos:e] + end)
			}
			pos = e
		}
	}
	for _, e := range edits {
		write(e.start)
		b.WriteString(e.repl)
		pos = e.end
	}
	write(len(text))
	for _, m := range marks {
		w := strings.ToLower(text[m.start:m.end])
		if inside(m) {
			hidden[w] = true
		} else {
			shown[w] = true
		}
	}
	for w := range hidden {
		if !shown[w] {
			return b.String(), found, false
		}
	}
	return b.String(), found, true
}

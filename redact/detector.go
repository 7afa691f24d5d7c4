package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// A detector applies its rules (gitleaks' generated [rules], and cairn's
// [ownRules] after them) to text as gitleaks' detect.Detector does with its default config: a keyword prefilter, each
// rule's regex, its secret group, its minimum entropy, the global and the
// rule's allowlists, `gitleaks:allow` on the line, and generic rules giving
// way to specific ones. Its regular expressions are compiled on first use.
type detector struct {
	rules     []rule
	prefilter func() *ahocorasick.Trie
	compiled  []func() compiled
	globalRe  func() []*regexp.Regexp
}

func newDetector(rules []rule) *detector {
	d := &detector{
		rules: rules,
		prefilter: sync.OnceValue(func() *ahocorasick.Trie {
			var words []string
			for _, r := range rules {
				words = append(words, r.keywords...)
			}
			return ahocorasick.NewTrieBuilder().AddStrings(words).Build()
		}),
		globalRe: sync.OnceValue(func() []*regexp.Regexp {
			res := make([]*regexp.Regexp, len(globalAllowlists))
			for i := range globalAllowlists {
				res[i] = globalAllowlists[i].compile()
			}
			return res
		}),
	}
	d.compiled = make([]func() compiled, len(rules))
	for i := range rules {
		d.compiled[i] = sync.OnceValue(rules[i].compile)
	}
	return d
}

// detect returns the findings in text.
func (d *detector) detect(text string) []finding {
	lower := strings.ToLower(text)
	present := map[string]bool{}
	d.prefilter().Walk([]byte(lower), func(end, n, _ int64) bool {
		present[lower[end-n+1:end+1]] = true
		return true
	})
	var found []finding
	nl := &newlines{}
	for i := range d.rules {
		r := &d.rules[i]
		if !r.triggered(present) {
			continue
		}
		found = append(found, r.detect(d.compiled[i](), text, nl, globalAllowlists, d.globalRe())...)
	}
	return preferSpecific(found)
}

func (r *rule) triggered(present map[string]bool) bool {
	if len(r.keywords) == 0 {
		return true
	}
	for _, k := range r.keywords {
		if present[k] {
			return true
		}
	}
	return false
}

// preferSpecific drops a generic rule's finding when a specific rule
// found a secret holding it on the same line, as gitleaks' filter does.
func preferSpecific(found []finding) []finding {
	var out []finding
	for _, f := range found {
		keep := true
		if strings.Contains(strings.ToLower(f.rule), "generic") {
			for _, g := range found {
				if f.startLine == g.startLine && f.rule != g.rule && strings.Contains(g.secret, f.secret) &&
					!strings.Contains(strings.ToLower(g.rule), "generic") {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// newlines holds a text's newline offsets, found on first need.
type newlines struct {
	done bool
	at   []int
}

// A location is where gitleaks places a match: its 0-based line and the
// bounds of what it calls the line, which starts at the newline before
// the match (or at the text's start) and, past the text's last newline,
// runs from the text's start.
type location struct {
	startLine                    int
	startLineIndex, endLineIndex int
}

// locate returns where the match text[start:end] is, as gitleaks'
// detect.location computes it.
func (nl *newlines) locate(text string, start, end int) location {
	if !nl.done {
		nl.done = true
		for i := 0; i < len(text); i++ {
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j
				nl.at = append(nl.at, i)
			} else {
				break
			}
		}
		if len(nl.at) == 0 {
			nl.at = []int{len(text)}
		}
	}
	at := nl.at
	var loc location
	prev := func(j int) int {
		if j == 0 {
			return 0
		}
		return at[j-1]
	}
	j := sort.SearchInts(at, start+1)
	if j == len(at) {
		loc.startLine = len(at)
		i := end
		for i < len(text) && text[i] != '\n' && text[i] != '\r' {
			i++
		}
		loc.endLineIndex = i
		return loc
	}
	loc.startLine = j
	loc.startLineIndex = prev(j)
	loc.endLineIndex = at[j]
	if k := sort.SearchInts(at, end); k < len(at) && prev(k) < end {
		loc.endLineIndex = at[k]
	}
	return loc
}

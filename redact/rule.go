package redact

import (
	"math"
	"regexp"
	"strings"
)

// A rule is one of gitleaks' rules as its detector applies it to text
// that has no file path and no commit: rules that need a path, and
// allowlists that need one or a commit, are left out when rules.go is
// generated, since they never apply here.
type rule struct {
	id          string
	regex       string
	secretGroup int
	entropy     float64  // a secret must have more; 0: no minimum
	keywords    []string // lower case; the rule is tried only when one is in the text (none: always)
	allowlists  []allowlist
}

// An allowlist spares a candidate secret that its regexes match (in the
// secret, the whole match or the line, by target) or that holds one of its
// stop words.
type allowlist struct {
	and       bool   // every check must hold, not any
	target    string // "" (the secret), "match" or "line"
	regexes   []string
	stopWords []string // lower case
}

// compiled is a rule's regular expressions, compiled on first use: most
// texts hold the keywords of few rules.
type compiled struct {
	re    *regexp.Regexp
	allow []*regexp.Regexp // per allowlist, nil without regexes
}

func (r *rule) compile() compiled {
	c := compiled{re: regexp.MustCompile(r.regex)}
	for _, a := range r.allowlists {
		c.allow = append(c.allow, a.compile())
	}
	return c
}

// compile joins the allowlist's regexes into one, as gitleaks does.
func (a *allowlist) compile() *regexp.Regexp {
	if len(a.regexes) == 0 {
		return nil
	}
	return regexp.MustCompile("(?:" + strings.Join(a.regexes, "|") + ")")
}

// allows reports whether the allowlist spares a finding, re being its
// compiled regexes.
func (a *allowlist) allows(re *regexp.Regexp, f *finding) bool {
	target := f.secret
	switch a.target {
	case "match":
		target = f.match
	case "line":
		target = f.line
	}
	regexAllowed := re != nil && target != "" && re.MatchString(target)
	stopWord := a.containsStopWord(f.secret)
	if !a.and {
		return regexAllowed || stopWord
	}
	return (len(a.regexes) == 0 || regexAllowed) && (len(a.stopWords) == 0 || stopWord)
}

func (a *allowlist) containsStopWord(secret string) bool {
	if secret == "" || len(a.stopWords) == 0 {
		return false
	}
	s := strings.ToLower(secret)
	for _, w := range a.stopWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// A finding is a rule's match before the generic rules give way to
// specific ones.
type finding struct {
	rule      string
	line      string // the text gitleaks calls the finding's line (see [location])
	startLine int    // 0-based
	match     string
	secret    string
}

// detect returns the rule's findings in text, nl being text's newlines
// (computed on first need), the way gitleaks' detectRule finds them.
func (r *rule) detect(c compiled, text string, nl *newlines, global []allowlist, globalRe []*regexp.Regexp) []finding {
	matches := c.re.FindAllStringIndex(text, -1)
	var out []finding
	for _, m := range matches {
		secret := strings.Trim(text[m[0]:m[1]], "\n")
		start, end := m[0], m[0]+len(secret)
		loc := nl.locate(text, start, end)
		if end > loc.endLineIndex {
			loc.endLineIndex = end
		}
		f := finding{rule: r.id, startLine: loc.startLine, match: secret, secret: secret, line: text[loc.startLineIndex:loc.endLineIndex]}
		if strings.Contains(f.line, "gitleaks:allow") {
			continue
		}
		if groups := c.re.FindStringSubmatch(f.secret); len(groups) >= 2 {
			if r.secretGroup > 0 {
				if len(groups) <= r.secretGroup {
					continue
				}
				f.secret = groups[r.secretGroup]
			} else {
				for _, s := range groups[1:] {
					if s != "" {
						f.secret = s
						break
					}
				}
			}
		}
		if r.entropy != 0 && shannonEntropy(f.secret) <= r.entropy {
			continue
		}
		if allowed(global, globalRe, &f) || allowed(r.allowlists, c.allow, &f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func allowed(lists []allowlist, res []*regexp.Regexp, f *finding) bool {
	for i := range lists {
		if lists[i].allows(res[i], f) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' measure of how random a secret looks: bits
// per byte over the frequencies of its runes.
func shannonEntropy(data string) (entropy float64) {
	if data == "" {
		return 0
	}
	counts := make(map[rune]int)
	for _, c := range data {
		counts[c]++
	}
	inv := 1.0 / float64(len(data))
	for _, n := range counts {
		freq := float64(n) * inv
		entropy -= freq * math.Log2(freq)
	}
	return entropy
}

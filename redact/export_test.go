package redact

// Keywords returns every rule's keywords, for tests that build text
// which triggers them.
func Keywords() []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.keywords...)
	}
	return out
}

// Gitleaks returns a Redactor with gitleaks' rules only, which finds what
// gitleaks finds.
func Gitleaks() *Redactor { return &Redactor{d: newDetector(rules)} }

// OwnRules returns the ids of cairn's own rules.
func OwnRules() []string {
	var out []string
	for _, r := range ownRules {
		out = append(out, r.id)
	}
	return out
}

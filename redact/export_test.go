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

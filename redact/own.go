package redact

// ownRules are cairn's rules for secrets gitleaks' default config does not
// know. They are applied with gitleaks' (keyword prefilter, secret group,
// allowlists), but kept apart from rules.go, which `go test ./redact
// -update` regenerates from gitleaks.
//
// url-credentials: a password in a URL's userinfo
// (https://user:pass@host, postgres://app:s3cret@db:5432/x). The secret
// is the whole userinfo, so what is replaced is distinctive even when the
// password is short. A password that is a variable (${PASS}, $PASS,
// %s), a placeholder (<password>, ***, xxx) or empty is spared.
//
// private-key-begun, private-key-ended, private-key-body: a private key
// cut short. gitleaks' private-key rule needs the BEGIN line, 64
// characters and the END line; a title, preview or search snippet that
// kept BEGIN and body lines but not END (or END without BEGIN, or body
// lines alone) matched nothing and showed the lines. The first two take
// the BEGIN (END) line with every line of base64 or PEM header after (before)
// it, a BEGIN or END line cut by an ellipsis included; the third two or more lines of base64 (16 characters or more, or
// ending in padding) of which one is a whole line of a PEM body (64
// characters) or an OpenSSH one (70), hexadecimal alone (hashes) spared. Lines may be broken by newlines or, in JSON, by
// \n. A finding of theirs inside another finding (the whole key) is
// dropped ([partialRules]).
var ownRules = []rule{
	{id: "private-key-begun", regex: `(?i)` + pemBegin + `(?:` + pemSep + `(?:` + pemHeader + `|` + pemLine + `))*|` + pemBeginCut + `(?:` + pemSep + `(?:` + pemHeader + `|` + pemLine + `))+`,
		keywords: []string{"-----"}},
	{id: "private-key-ended", regex: pemBefore + `((?:(?:` + pemLine + `|` + pemHeader + `)` + pemSep + `)*(?i:` + pemEnd + `)|(?:(?:` + pemLine + `|` + pemHeader + `)` + pemSep + `)+` + pemEndCut + `)`, secretGroup: 1,
		keywords: []string{"-----"}},
	{id: "private-key-body", regex: pemBefore + `((?:` + pemBodyLine + pemSep + `)+` + pemWhole + `(?:` + pemSep + pemBodyLine + `)*|` + pemWhole + `(?:` + pemSep + pemBodyLine + `)+)(?:[^A-Za-z0-9+/=]|$)`, secretGroup: 1,
		allowlists: []allowlist{{regexes: []string{`^(?:[0-9a-fA-F]|\\[nr]|\s)+$`}}}},
	{id: "url-credentials", regex: `(?i)\b[a-z][a-z0-9+.-]{0,20}://([^\s:/?#@'"\x60<>\[\]{}\\]{0,128}:[^\s/?#@'"\x60<>\[\]{}\\]{1,256})@[a-z0-9\[]`, secretGroup: 1,
		keywords: []string{"://"},
		allowlists: []allowlist{
			{regexes: []string{
				`:(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[sv]|\{\{[^}]*\}\}|<[^>]*>|\*+|x+|X+|\.\.\.|…)$`,
			}},
		}},
}

// The pieces of the private-key rules: a BEGIN and an END line as
// gitleaks' rule has them, a line break (a newline, or \n in JSON, with
// the spaces that indent the next line), a line of base64, a whole PEM
// (64) or OpenSSH (70) body line, a PEM header (Proc-Type, DEK-Info).
const (
	pemBegin = `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`
	pemEnd   = `-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`
	pemSep   = `(?:(?:\r?\n|\\r\\n|\\n)[ \t]*)+`
	pemLine  = `[A-Za-z0-9+/]+={0,2}`
	pemWhole = `(?:[A-Za-z0-9+/]{70}|[A-Za-z0-9+/]{64})`
	// pemBodyLine is a line beside a whole one in a body without BEGIN
	// or END: 16 characters or more, or a last line's padding; a word
	// on the next line is not the key's.
	pemBodyLine = `(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]+={1,2})`
	pemHeader   = `[A-Za-z-]+: [^\r\n\\]*`
	// pemBeginCut is a BEGIN line an ellipsis cut, before a body line.
	pemBeginCut = `…[ A-Z0-9_-]{0,120}-----`
	// pemEndCut is an END line an ellipsis cut, after a body line.
	pemEndCut = `-----(?i:E(?:N(?:D[ A-Z0-9_-]{0,100})?)?)?(?:…|$)`
	// pemBefore is what comes before a first line: the text's start, a
	// character no base64 line holds, or an escape (\n): never the
	// letter of an escape, which taken into the line would leave its
	// backslash before the mark.
	pemBefore = `(?:^|[^A-Za-z0-9+/=\\]|\\[nrt])`
)

// partialRules are the rules whose finding is dropped when another
// finding holds it: a whole private key is gitleaks' private-key, not
// also its BEGIN and body.
var partialRules = map[string]bool{"private-key-begun": true, "private-key-ended": true, "private-key-body": true}

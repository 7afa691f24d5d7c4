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
var ownRules = []rule{
	{id: "url-credentials", regex: `(?i)\b[a-z][a-z0-9+.-]{0,20}://([^\s:/?#@'"\x60<>\[\]{}\\]{0,128}:[^\s/?#@'"\x60<>\[\]{}\\]{1,256})@[a-z0-9\[]`, secretGroup: 1,
		keywords: []string{"://"},
		allowlists: []allowlist{
			{regexes: []string{
				`:(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[sv]|\{\{[^}]*\}\}|<[^>]*>|\*+|x+|X+|\.\.\.|…)$`,
			}},
		}},
}

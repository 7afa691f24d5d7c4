// Package redact finds secrets in text with gitleaks' maintained rule set
// and replaces them in what leaves cairn: exports, shown rounds, surgical
// sessions, search snippets, the viewer beyond loopback, copies into a
// shared store. The stored lines never change; redaction is applied on the
// way out.
//
// The rules are gitleaks' default config, read from its Go package
// (github.com/zricethezav/gitleaks/v8) into rules.go by
// `go test ./redact -update`; a small detector applies them as gitleaks'
// detect package does. cairn adds rules of its own for what gitleaks
// misses ([ownRules]: credentials in URLs). Linking gitleaks itself would bring some 200
// packages (archives, viper, sprig) whose initialisation every cairn
// command would pay; its tests check that rules.go is current and that the
// detector finds exactly what gitleaks finds.
package redact

//go:generate go test -run TestRulesCurrent -update

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
)

// A Finding is one secret found: the gitleaks rule that matched and
// where. Secret is the matched text: never print it.
type Finding struct {
	Rule   string `json:"rule"`
	Line   int    `json:"line"` // 1-based, within the text scanned
	Secret string `json:"-"`
}

// Mark is what replaces a secret: the rule's id says what was there.
func Mark(rule string) string { return "[REDACTED:" + rule + "]" }

// A Redactor finds and replaces secrets. Its zero value is not usable;
// call [New]. It is safe for concurrent use.
type Redactor struct {
	d *detector
}

var shared = sync.OnceValue(func() *Redactor {
	return &Redactor{d: newDetector(append(slices.Clip(rules), ownRules...))}
})

// New returns a Redactor with gitleaks' default rules and cairn's own. Rules are compiled
// as texts first need them, so one Redactor is shared by the whole
// process. The error is always nil: the tests compile every rule.
func New() (*Redactor, error) {
	return shared(), nil
}

// Find returns the secrets in text.
func (r *Redactor) Find(text string) []Finding {
	if text == "" {
		return nil
	}
	found := r.d.detect(text)
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		if f.secret == "" {
			continue
		}
		out = append(out, Finding{Rule: f.rule, Line: f.startLine + 1, Secret: f.secret})
	}
	return dropHeld(out)
}

// dropHeld drops the findings of [partialRules] that another finding's
// secret holds: a whole private key is one finding.
func dropHeld(found []Finding) []Finding {
	return slices.DeleteFunc(found, func(f Finding) bool {
		if !partialRules[f.Rule] {
			return false
		}
		for _, g := range found {
			if g.Rule != f.Rule && len(g.Secret) > len(f.Secret) && strings.Contains(g.Secret, f.Secret) {
				return true
			}
		}
		return false
	})
}

// String returns text with every secret replaced by its [Mark], and the
// findings. Longer secrets are replaced first, so a secret inside another
// is not left half replaced. A run cut by an ellipsis is dropped too
// (see [MinCut]): no rule can recognise the part of a secret that a
// preview, a title or a snippet kept. Text that leaves goes through it.
func (r *Redactor) String(text string) (string, []Finding) {
	found := r.Find(text)
	return apply(text, plan(text, found, true)), found
}

// Secrets returns text with every secret replaced by its [Mark], and the
// findings, without dropping runs cut by an ellipsis: for whole lines of a
// transcript, which cairn never clipped.
func (r *Redactor) Secrets(text string) (string, []Finding) {
	found := r.Find(text)
	return apply(text, plan(text, found, false)), found
}

// apply returns text with the edits made.
func apply(text string, edits []edit) string {
	if len(edits) == 0 {
		return text
	}
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(text[pos:e.start])
		b.WriteString(e.repl)
		pos = e.end
	}
	b.WriteString(text[pos:])
	return b.String()
}

// Writer returns a writer that holds what is written to it and, on
// Close, writes it to w with its secrets replaced. Findings, when not
// nil, receives the findings.
func (r *Redactor) Writer(w io.Writer, findings *[]Finding) io.WriteCloser {
	return &writer{r: r, w: w, findings: findings}
}

type writer struct {
	r        *Redactor
	w        io.Writer
	buf      bytes.Buffer
	findings *[]Finding
	closed   bool
}

func (w *writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, io.ErrClosedPipe
	}
	return w.buf.Write(p)
}

// Close writes what was held, redacted (a JSON document value by value,
// [Redactor.JSON]); closing again does nothing.
func (w *writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	red, found := w.r.json(w.buf.Bytes(), w.r.String)
	out := string(red)
	if w.findings != nil {
		*w.findings = append(*w.findings, found...)
	}
	_, err := io.WriteString(w.w, out)
	return err
}

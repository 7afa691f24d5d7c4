package workspace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

var _ cairn.DecisionStore = (*Workspace)(nil)

// FindDecisions returns the records in decisions.md, oldest first. Text
// outside records (the title, a person's notes) is ignored, not lost: cairn
// only ever appends to the file.
func (w *Workspace) FindDecisions() ([]*cairn.Decision, error) {
	data, err := readFile(w.path(cairn.DecisionsFile))
	if err != nil {
		return nil, err
	}
	return parseDecisions(string(data)), nil
}

// AppendDecision numbers d after the highest record in decisions.md and
// appends it; nothing already in the file is rewritten. Returns EINVALID if
// d has no title and ENOTFOUND if it supersedes a record that does not
// exist.
func (w *Workspace) AppendDecision(d *cairn.Decision) error {
	if strings.TrimSpace(d.Title) == "" {
		return cairn.Errorf(cairn.EINVALID, "A decision needs a title.")
	}
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()

	path := w.path(cairn.DecisionsFile)
	data, err := readFile(path)
	if err != nil {
		return err
	} else if data == nil {
		data, _ = templates.ReadFile("template/decisions.md")
	}
	old := parseDecisions(string(data))
	n := 0
	for _, o := range old {
		n = max(n, o.Number)
	}
	if d.Supersedes != 0 && !hasDecision(old, d.Supersedes) {
		return cairn.Errorf(cairn.ENOTFOUND, "No ADR-%03d in decisions.md to supersede.", d.Supersedes)
	}
	d.Number = n + 1
	if d.Date.IsZero() {
		d.Date = w.now()
	}
	if d.Status == "" {
		d.Status = cairn.DecisionAccepted
	}
	text := strings.TrimRight(string(data), "\n") + "\n\n" + formatDecision(d)
	return writeFile(path, []byte(text))
}

func hasDecision(list []*cairn.Decision, n int) bool {
	for _, d := range list {
		if d.Number == n {
			return true
		}
	}
	return false
}

// SupersededBy returns, for each record that a later one supersedes, the
// later one's number. Records are never rewritten, so this is how a reader
// learns that one no longer holds.
func SupersededBy(list []*cairn.Decision) map[int]int {
	by := map[int]int{}
	for _, d := range list {
		if d.Supersedes != 0 {
			by[d.Supersedes] = d.Number
		}
	}
	return by
}

// formatDecision writes d in the seed's format. A value running over
// several lines continues on lines indented by two spaces.
func formatDecision(d *cairn.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## ADR-%03d: %s\n", d.Number, oneLine(d.Title))
	fmt.Fprintf(&b, "- Date: %s\n", d.Date.Format(time.DateOnly))
	fmt.Fprintf(&b, "- Status: %s\n", oneLine(d.Status))
	if d.Supersedes != 0 {
		fmt.Fprintf(&b, "- Supersedes: ADR-%03d\n", d.Supersedes)
	}
	for _, f := range []struct{ name, value string }{
		{"Context", d.Context}, {"Decision", d.Decision}, {"Consequences", d.Consequences},
	} {
		value := strings.TrimSpace(f.value)
		if value == "" {
			value = "(not recorded)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", f.name, strings.ReplaceAll(value, "\n", "\n  "))
	}
	return b.String()
}

var (
	adrHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^##\s+ADR-(\d+):\s*(.*)$`) })
	adrField   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^-\s+(Date|Status|Supersedes|Context|Decision|Consequences):\s?(.*)$`)
	})
)

// parseDecisions reads records leniently: a record is an "## ADR-NNN:"
// heading and the "- Field: value" lines under it.
func parseDecisions(text string) []*cairn.Decision {
	var list []*cairn.Decision
	var d *cairn.Decision
	var last *string
	for _, line := range strings.Split(text, "\n") {
		if m := adrHeading().FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			d = &cairn.Decision{Number: n, Title: strings.TrimSpace(m[2])}
			list = append(list, d)
			last = nil
			continue
		}
		if d == nil {
			continue
		}
		if strings.HasPrefix(line, "#") {
			d, last = nil, nil
			continue
		}
		m := adrField().FindStringSubmatch(line)
		if m == nil {
			if last != nil && strings.HasPrefix(line, "  ") {
				*last += "\n" + strings.TrimSpace(line)
			}
			continue
		}
		value := strings.TrimSpace(m[2])
		last = nil
		switch m[1] {
		case "Date":
			d.Date, _ = time.Parse(time.DateOnly, value)
		case "Status":
			d.Status = value
		case "Supersedes":
			d.Supersedes, _ = strconv.Atoi(strings.TrimPrefix(value, "ADR-"))
		case "Context":
			d.Context, last = value, &d.Context
		case "Decision":
			d.Decision, last = value, &d.Decision
		case "Consequences":
			d.Consequences, last = value, &d.Consequences
		}
	}
	return list
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

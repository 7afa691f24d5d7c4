package workspace

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// DefaultPrimeChars is the default budget of [Workspace.Prime]: about 1,500
// tokens, small enough for a hook to inject whole.
const DefaultPrimeChars = 6000

// Prime returns what a new session or sub-agent must know, in at most
// chars characters: the seed's cold-start procedure as one text. It holds,
// in order of importance, the project's identity (PROJECT.md without the
// template's placeholders), the state, open hand-offs, the active
// engagement, open todos (with a review reminder when the last review is
// over a day old) and the decisions that still hold, newest first. What
// does not fit is counted and named by file, never silently dropped.
func (w *Workspace) Prime(chars int) (string, error) {
	if chars <= 0 {
		chars = DefaultPrimeChars
	}
	state, err := w.ReadState()
	if err != nil {
		return "", err
	}
	todos, err := w.ReadTodos()
	if err != nil {
		return "", err
	}
	decisions, err := w.FindDecisions()
	if err != nil {
		return "", err
	}
	engagement, err := w.FindEngagement()
	if err != nil {
		return "", err
	}
	project, err := readFile(w.path(cairn.ProjectFile))
	if err != nil {
		return "", err
	}
	name, identity := cleanProject(string(project))
	if name == "" {
		name = filepath.Base(w.Root)
	}

	p := &primer{left: chars - utf8.RuneCountInString(primeFooter())}
	if head := fmt.Sprintf("# Cold start: %s\n\nDo not assume any memory: this is what the files say. Read them for more.\n", name); p.fits(head) {
		p.add(head)
	}
	p.section("## Identity (PROJECT.md)", identity, chars*2/5, func(n int) string {
		return fmt.Sprintf("(%d more lines in PROJECT.md)", n)
	})
	p.section("## State (state.json)", stateLines(state), 0, func(n int) string {
		return fmt.Sprintf("(%d more lines: cairn state show)", n)
	})
	p.section("## Hand-offs", handoffLines(state.Handoffs), 0, func(n int) string {
		return fmt.Sprintf("(%d more: cairn handoff --list)", n)
	})
	if engagement != nil && engagement.Active {
		lines := []string{fmt.Sprintf("%s, active since %s (started by %s)", engagement.ID,
			engagement.Started.UTC().Format(time.RFC3339), engagement.Session)}
		for i := len(engagement.Notes) - 1; i >= 0; i-- {
			lines = append(lines, "- "+engagement.Notes[i])
		}
		p.section("## Engagement (.cairn/engagement.md)", lines, 0, func(n int) string {
			return fmt.Sprintf("(%d older notes: cairn engagement show)", n)
		})
	}
	now := w.now()
	open := openTodos(todos)
	lines := make([]string, 0, len(open)+1)
	if why := todos.ReviewReason(now); why != "" {
		lines = append(lines, fmt.Sprintf("Review due: %s; review every todo, then run cairn todo review.", why))
	}
	for _, t := range open {
		lines = append(lines, todoLine(t))
	}
	p.section(fmt.Sprintf("## Open todos (%d of %d, todos.json)", len(open), len(todos.Todos)), lines, chars*2/5, func(n int) string {
		return fmt.Sprintf("(%d more: cairn todo list)", n)
	})
	superseded := SupersededBy(decisions)
	lines = nil
	for i := len(decisions) - 1; i >= 0; i-- {
		if d := decisions[i]; superseded[d.Number] == 0 {
			lines = append(lines, decisionLine(d))
		}
	}
	p.section(fmt.Sprintf("## Decisions in force, newest first (%d of %d, decisions.md)", len(lines), len(decisions)), lines, 0, func(n int) string {
		return fmt.Sprintf("(%d older in decisions.md)", n)
	})
	if len(p.skipped) > 0 {
		p.b.WriteString(footer(p.skipped))
	}
	return p.b.String(), nil
}

// footer names the sections left out.
func footer(skipped []string) string {
	return fmt.Sprintf("\n(Left out to stay within the budget: %s. Read the files or raise --chars.)\n", strings.Join(skipped, ", "))
}

// primeFooter is the longest footer, reserved from the start.
func primeFooter() string {
	return footer([]string{"Identity", "State", "Hand-offs", "Engagement", "Open todos", "Decisions in force"})
}

// A primer writes sections while their characters fit the budget.
type primer struct {
	b       strings.Builder
	left    int
	skipped []string // names of sections that did not fit
}

func (p *primer) fits(s string) bool { return utf8.RuneCountInString(s) <= p.left }

func (p *primer) add(s string) {
	p.b.WriteString(s)
	p.left -= utf8.RuneCountInString(s)
}

// section writes a heading and as many lines as fit (within limit
// characters when limit > 0), then says how many did not. A section with
// no lines is left out; one whose heading does not fit is counted as
// skipped.
func (p *primer) section(heading string, lines []string, limit int, more func(n int) string) {
	if len(lines) == 0 {
		return
	}
	reserve := "\n" + more(len(lines)) + "\n"
	head := "\n" + heading + "\n"
	if !p.fits(head + reserve) {
		name, _, _ := strings.Cut(strings.TrimPrefix(heading, "## "), " (")
		name, _, _ = strings.Cut(name, ",")
		p.skipped = append(p.skipped, name)
		return
	}
	start := p.left
	p.add(head)
	for i, line := range lines {
		line = clip(line, 400) + "\n"
		last := i == len(lines)-1
		within := limit <= 0 || start-p.left+utf8.RuneCountInString(line) <= limit
		if within && (last && p.fits(line) || p.fits(line+reserve)) {
			p.add(line)
			continue
		}
		p.add(more(len(lines)-i) + "\n")
		return
	}
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

var (
	placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[.*\]$`) })
	emptyBullet = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\s+[^:]+:\s*$`) })
)

// cleanProject returns PROJECT.md's title and its lines without the
// template's placeholders and without headings left empty by them.
func cleanProject(text string) (name string, lines []string) {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \r")
		if strings.HasPrefix(line, "# ") && name == "" {
			name = strings.TrimSpace(line[2:])
			continue
		}
		if line == "" || placeholder().MatchString(line) || emptyBullet().MatchString(line) {
			continue
		}
		kept = append(kept, line)
	}
	for i, line := range kept {
		if strings.HasPrefix(line, "#") && (i+1 == len(kept) || strings.HasPrefix(kept[i+1], "#")) {
			continue
		}
		if strings.HasPrefix(line, "#") {
			line = "#" + line // under prime's own "## Identity"
		}
		lines = append(lines, line)
	}
	return name, lines
}

func stateLines(s *cairn.State) []string {
	var lines []string
	add := func(label, value string) {
		if value != "" {
			lines = append(lines, label+": "+value)
		}
	}
	add("Phase", s.Phase)
	add("Current task", s.CurrentTask)
	add("In progress", s.Progress.InProgress)
	add("Blocked", strings.Join(s.Progress.Blocked, "; "))
	for i, step := range s.Progress.NextSteps {
		lines = append(lines, fmt.Sprintf("Next %d: %s", i+1, step))
	}
	add("Notes", s.Notes)
	if n := len(s.Progress.Completed); n > 0 {
		recent := s.Progress.Completed[max(0, n-5):]
		add(fmt.Sprintf("Completed (%d, latest last)", n), strings.Join(recent, "; "))
	}
	if !s.LastUpdate.IsZero() {
		add("Last update", s.LastUpdate.Format(time.RFC3339)+" by "+s.SessionID)
	}
	return lines
}

func handoffLines(list []*cairn.Handoff) []string {
	var open, done []string
	for _, h := range list {
		switch h.Status {
		case cairn.HandoffOpen:
			line := fmt.Sprintf("- %s open, for a child: %s", h.ID, h.Task)
			if h.Expected != "" {
				line += " (expected back: " + h.Expected + ")"
			}
			open = append(open, line)
		case cairn.HandoffDone:
			done = append(done, fmt.Sprintf("- %s done by %s: %s → %s", h.ID, h.Child, h.Task, h.Result))
		}
	}
	// Newest results first: they are what the parent is waiting for.
	for i, j := 0, len(done)-1; i < j; i, j = i+1, j-1 {
		done[i], done[j] = done[j], done[i]
	}
	return append(open, done...)
}

// statusOrder and priorityOrder rank a todo's status and priority, first
// first; an unknown one ranks with the first.
func statusOrder(status string) int {
	switch status {
	case cairn.TodoBlocked:
		return 1
	case cairn.TodoPending:
		return 2
	}
	return 0
}

func priorityOrder(priority string) int {
	switch priority {
	case cairn.PriorityMedium:
		return 1
	case cairn.PriorityLow:
		return 2
	}
	return 0
}

// openTodos returns the todos not completed: in progress, then blocked,
// then pending, each by priority.
func openTodos(l *cairn.TodoList) []*cairn.Todo {
	var open []*cairn.Todo
	for _, t := range l.Todos {
		if t.Open() {
			open = append(open, t)
		}
	}
	sort.SliceStable(open, func(i, j int) bool {
		a, b := open[i], open[j]
		if statusOrder(a.Status) != statusOrder(b.Status) {
			return statusOrder(a.Status) < statusOrder(b.Status)
		}
		return priorityOrder(a.Priority) < priorityOrder(b.Priority)
	})
	return open
}

// OpenTodos is the order `cairn todo list` and prime show open todos in.
func OpenTodos(l *cairn.TodoList) []*cairn.Todo { return openTodos(l) }

func todoLine(t *cairn.Todo) string {
	line := fmt.Sprintf("- %s [%s, %s] %s", t.ID, t.Status, t.Priority, t.Title)
	if t.Notes != "" {
		line += " — " + t.Notes
	}
	return line
}

func decisionLine(d *cairn.Decision) string {
	line := fmt.Sprintf("- ADR-%03d %s: %s", d.Number, d.Title, oneLine(d.Decision))
	if d.Supersedes != 0 {
		line += fmt.Sprintf(" (supersedes ADR-%03d)", d.Supersedes)
	}
	return line
}

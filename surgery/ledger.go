package surgery

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// The ledger: what an agent needs to continue, read off the session's
// structure (tool calls, their results, the prompts, the todo list), not
// off patterns in its prose, and kept verbatim in the output's summary
// whatever the budget does to the rounds. Each item names the step it
// comes from, so `cairn inject` prints the whole of it.

// ledgerLen caps the characters of one item: a command, an error's
// lines, a prompt, a statement.
const (
	ledgerLen       = 240
	ledgerPromptLen = 400
)

// ledgerShares is each kind's share of the ledger's tokens on the first
// pass, in the order kinds are served; what a kind leaves unused goes, on
// a second pass, to the others in the same order.
var ledgerKinds = [...]struct {
	kind  string
	share int64 // percent
}{
	{cairn.LedgerPrompt, 20},
	{cairn.LedgerTodo, 10},
	{cairn.LedgerError, 15},
	{cairn.LedgerArtifact, 15},
	{cairn.LedgerCommand, 25},
	{cairn.LedgerStated, 15},
}

// ledger builds the ledger of rounds (with their blocks, in order) within
// budget tokens: each kind first within its share, newest items first,
// then the rest of the budget to whatever is left, and every kind shown in
// session order. project is trimmed from paths.
func ledger(rounds []*cairn.Round, project string, budget int64) []cairn.LedgerItem {
	steps := make([][]*cairn.Step, len(rounds))
	for i, r := range rounds {
		steps[i] = cairn.Steps(r.Blocks, r.LastLine)
	}
	all, answers := ledgerItems(rounds, steps, project, "")
	return pickLedger(all, answers, budget)
}

// pickLedger chooses among the candidates of [ledgerItems] within budget.
// The latest todo list and the latest prompt are always kept, whatever the
// budget: they say where the work stands and what it is for (at budget 0
// they are all the ledger holds).
func pickLedger(all []cairn.LedgerItem, answers []bool, budget int64) []cairn.LedgerItem {
	budget = max(budget, 0)
	// Each kind is served newest first; what the agent stated at the end
	// of a turn (a step without tool calls: an answer, a conclusion) comes
	// before what it said on its way to a call.
	byKind := map[string][]int{}
	for i, it := range all {
		byKind[it.Kind] = append(byKind[it.Kind], i)
	}
	for kind, idx := range byKind {
		slices.Reverse(idx)
		if kind == cairn.LedgerStated {
			slices.SortStableFunc(idx, func(a, b int) int { return boolRank(answers[b]) - boolRank(answers[a]) })
		}
	}
	taken := map[string]int{}
	keep := make([]bool, len(all))
	var used int64
	for _, kind := range []string{cairn.LedgerTodo, cairn.LedgerPrompt} {
		for _, i := range byKind[kind] {
			keep[i] = true
			used += ledgerTokens(all[i])
			taken[kind]++
			if kind == cairn.LedgerPrompt {
				break // the newest
			}
		}
	}
	budget += used
	take := func(kind string, limit int64) {
		idx := byKind[kind]
		var spent int64
		for taken[kind] < len(idx) {
			i := idx[taken[kind]]
			c := ledgerTokens(all[i])
			if spent+c > limit || used+c > budget {
				return
			}
			spent, used = spent+c, used+c
			keep[i] = true
			taken[kind]++
		}
	}
	for _, k := range ledgerKinds {
		take(k.kind, budget*k.share/100)
	}
	for _, k := range ledgerKinds {
		take(k.kind, budget)
	}
	var out []cairn.LedgerItem
	for _, k := range ledgerKinds {
		for i, it := range all {
			if keep[i] && it.Kind == k.kind {
				out = append(out, it)
			}
		}
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ledgerTokens is what an item costs in the summary: its line and ref.
func ledgerTokens(it cairn.LedgerItem) int64 { return cairn.EstimateTokens(it.Text) + 4 }

// LedgerTokens is what a ledger costs in the summary, its headings
// included.
func LedgerTokens(items []cairn.LedgerItem) int64 {
	if len(items) == 0 {
		return 0
	}
	n := int64(60 + 12*len(ledgerKinds))
	for _, it := range items {
		n += ledgerTokens(it)
	}
	return n
}

// ledgerItems lists every candidate item of rounds, in session order: a
// file or a command once, at its last change or run; errors only when
// nothing after them ran the same call without an error; the todo list
// of the last call that wrote one. answers marks the statements of steps
// without tool calls. steps are each round's [cairn.Steps]; agent is the
// session's harness, whose tools say what a call wrote or ran.
func ledgerItems(rounds []*cairn.Round, steps [][]*cairn.Step, project, agent string) (items []cairn.LedgerItem, answers []bool) {
	project = strings.TrimSuffix(project, "/") + "/"
	var (
		prompts, stated, todos []cairn.LedgerItem
		isAnswer               []bool
		files                  = map[string]cairn.LedgerItem{}
		commands               = map[string]cairn.LedgerItem{}
		errs                   = map[string]cairn.LedgerItem{} // call key → its last failure, deleted by a success
		order                  = map[string]int{}              // key → the sequence of its last item
		seq                    int
	)
	note := func(m map[string]cairn.LedgerItem, key string, it cairn.LedgerItem) {
		seq++
		m[key], order[key] = it, seq
	}
	for ri, r := range rounds {
		for _, b := range r.Blocks {
			if r.Seq == 0 {
				break // no prompt was typed: its work is carried like any round's
			}
			if b.Kind == cairn.UserText && !b.Sidechain {
				if t := oneLine(b.Content, ledgerPromptLen); t != "" {
					prompts = append(prompts, cairn.LedgerItem{Kind: cairn.LedgerPrompt, Round: r.Seq, Text: t})
				}
				break
			}
		}
		for _, st := range steps[ri] {
			calls := map[string]*cairn.Block{}
			at := cairn.LedgerItem{Round: r.Seq, Step: st.Seq}
			for _, b := range st.Blocks {
				if b.Sidechain {
					continue
				}
				switch b.Kind {
				case cairn.AssistantText:
					if t := oneLine(b.Content, ledgerLen); utf8.RuneCountInString(t) >= 40 {
						it := at
						it.Kind, it.Text = cairn.LedgerStated, t
						stated = append(stated, it)
						isAnswer = append(isAnswer, len(st.Calls) == 0)
					}
				case cairn.ToolUse:
					calls[b.ToolID] = b
					if items := todoItems(b); items != nil {
						todos = todos[:0]
						for _, t := range items {
							it := at
							it.Kind, it.Text = cairn.LedgerTodo, t
							todos = append(todos, it)
						}
					}
				case cairn.ToolResult:
					call := calls[b.ToolID]
					if call == nil {
						continue
					}
					arg := ""
					for _, c := range st.Calls {
						if c.ID() == b.ToolID {
							arg = c.Arg
						}
					}
					key := call.ToolName + " " + arg
					if b.IsError {
						// An error stays until a success of the same call;
						// a failed command also counts as run.
						it := at
						it.Kind, it.Text = cairn.LedgerError, call.ToolName+" `"+arg+"` → "+errorLines(b.Content)
						note(errs, key, it)
						if cmd := cairn.ShellCommand(agent, call.ToolName, call.Content); cmd != "" {
							it.Kind, it.Text = cairn.LedgerCommand, "`"+oneLine(cmd, ledgerLen)+"` → failed: "+errorLines(b.Content)
							note(commands, oneLine(cmd, ledgerLen), it)
						}
						continue
					}
					delete(errs, key)
					if ws := cairn.FileWrites(agent, call.ToolName, call.Content); len(ws) > 0 {
						for _, w := range ws {
							p := strings.TrimPrefix(w.Path, project)
							it := at
							it.Kind, it.Text = cairn.LedgerArtifact, call.ToolName+" "+p
							if w.Deleted {
								it.Text = "deleted " + p + " (" + call.ToolName + ")"
							}
							note(files, p, it)
						}
						continue
					}
					cmd := cairn.ShellCommand(agent, call.ToolName, call.Content)
					if cmd == "" {
						continue
					}
					for _, p := range deleted(cmd) {
						it := at
						it.Kind, it.Text = cairn.LedgerArtifact, "deleted "+strings.TrimPrefix(p, project)+" (`"+oneLine(cmd, 80)+"`)"
						note(files, strings.TrimPrefix(p, project), it)
					}
					it := at
					it.Kind, it.Text = cairn.LedgerCommand, "`"+oneLine(cmd, ledgerLen)+"` → "+outcome(b.Content)
					note(commands, oneLine(cmd, ledgerLen), it)
				}
			}
		}
	}
	out := append(prompts, todos...)
	for _, m := range []map[string]cairn.LedgerItem{errs, files, commands} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return order[a] - order[b] })
		for _, k := range keys {
			out = append(out, m[k])
		}
	}
	answers = make([]bool, len(out), len(out)+len(stated))
	return append(out, stated...), append(answers, isAnswer...)
}

// deleted returns the paths a command removes: the arguments of an rm or
// git rm at the start of one of its parts (split at ;, && and ||).
func deleted(cmd string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' }) {
		f := strings.Fields(part)
		switch {
		case len(f) > 1 && f[0] == "rm":
			f = f[1:]
		case len(f) > 2 && f[0] == "git" && f[1] == "rm":
			f = f[2:]
		default:
			continue
		}
		for _, a := range f {
			if !strings.HasPrefix(a, "-") {
				out = append(out, strings.Trim(a, `"'`))
			}
		}
	}
	return out
}

// todoItems returns the items of a call that writes the agent's todo list
// or plan (Claude Code's TodoWrite, Codex's update_plan), each as
// "[status] content"; nil for any other call.
func todoItems(b *cairn.Block) []string {
	var in struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
	}
	switch b.ToolName {
	case "TodoWrite", "update_plan":
	default:
		return nil
	}
	if json.Unmarshal([]byte(b.Content), &in) != nil {
		return nil
	}
	out := []string{}
	for _, t := range in.Todos {
		out = append(out, "["+t.Status+"] "+oneLine(t.Content, ledgerLen))
	}
	for _, t := range in.Plan {
		out = append(out, "["+t.Status+"] "+oneLine(t.Step, ledgerLen))
	}
	return out
}

// outcome says how a command that did not fail ended: "ok", then the
// last non-empty line of its output, where a summary usually is.
func outcome(out string) string {
	lines := meaningful(out)
	if len(lines) == 0 {
		return "ok"
	}
	return "ok: " + oneLine(lines[len(lines)-1], 120)
}

// errorLines returns the first lines of an error that say what went
// wrong, skipping a bare exit status, as much as fits an item.
func errorLines(out string) string {
	lines := meaningful(out)
	if len(lines) == 0 {
		return "(no output)"
	}
	return oneLine(strings.Join(lines[:min(len(lines), 4)], " ⏎ "), ledgerLen)
}

// meaningful returns the non-empty lines of a tool's output, without the
// exit status line Claude Code puts first ("Exit code 1") and the tags
// it wraps errors in.
func meaningful(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "<tool_use_error>"), "</tool_use_error>"))
		if l == "" || isExitStatus(l) {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

func isExitStatus(l string) bool {
	rest, ok := strings.CutPrefix(l, "Exit code ")
	if !ok {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return rest != ""
}

// oneLine collapses s's whitespace and keeps its first n characters,
// marking a cut with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

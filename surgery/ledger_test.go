package surgery

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// ledgerRound builds a round from (kind, tool, content, isError) rows: each
// assistant row starts a step with its own message id.
func ledgerRound(seq int, rows ...[4]string) *cairn.Round {
	r := &cairn.Round{SessionID: "s", Seq: seq}
	msg := 0
	for i, row := range rows {
		b := &cairn.Block{SessionID: "s", RoundSeq: seq, LineNo: i + 1, Index: i, Kind: cairn.BlockKind(row[0]), ToolName: row[1], Content: row[2], IsError: row[3] == "error"}
		switch b.Kind {
		case cairn.UserText, cairn.ToolResult:
			b.Role = "user"
		default:
			b.Role = "assistant"
			if b.Kind == cairn.AssistantText || b.Kind == cairn.ToolUse && (i == 0 || rows[i-1][0] != string(cairn.AssistantText)) {
				msg++
			}
			b.MessageID = "m" + itoa(msg)
		}
		if b.Kind == cairn.ToolUse || b.Kind == cairn.ToolResult {
			b.ToolID = "t" + itoa(msg)
		}
		r.Blocks = append(r.Blocks, b)
	}
	r.LastLine = len(rows)
	return r
}

func TestLedger_Items(t *testing.T) {
	r := ledgerRound(3,
		[4]string{"user-text", "", "Fix the parser. Never touch vendor/.", ""},
		[4]string{"tool-use", "Bash", `{"command":"go build ./..."}`, ""},
		[4]string{"tool-result", "Bash", "Exit code 1\n# cairn/parse\nparse.go:12: undefined: token", "error"},
		[4]string{"tool-use", "Edit", `{"file_path":"/p/parse.go","old_string":"a","new_string":"b"}`, ""},
		[4]string{"tool-result", "Edit", "The file /p/parse.go has been updated.", ""},
		[4]string{"tool-use", "Bash", `{"command":"go build ./..."}`, ""},
		[4]string{"tool-result", "Bash", "", ""},
		[4]string{"tool-use", "Bash", `{"command":"rm -f old.go && go test ./..."}`, ""},
		[4]string{"tool-result", "Bash", "Exit code 1\n--- FAIL: TestParse (0.00s)\nFAIL", "error"},
		[4]string{"tool-use", "TodoWrite", `{"todos":[{"content":"fix parse","status":"completed"},{"content":"make TestParse pass","status":"in_progress"}]}`, ""},
		[4]string{"tool-result", "TodoWrite", "Todos have been modified successfully.", ""},
		[4]string{"assistant-text", "", "TestParse still fails on the empty input: the lexer returns EOF before the first token.", ""},
	)
	items, _ := ledgerItems([]*cairn.Round{r}, [][]*cairn.Step{cairn.Steps(r.Blocks, r.LastLine)}, "/p", "")
	var got []string
	for _, it := range items {
		got = append(got, it.Kind+" "+it.Ref()+" "+it.Text)
	}
	want := []string{
		"prompt 3 Fix the parser. Never touch vendor/.",
		"todo 3.5 [completed] fix parse",
		"todo 3.5 [in_progress] make TestParse pass",
		"error 3.4 Bash `rm -f old.go && go test ./...` → --- FAIL: TestParse (0.00s) ⏎ FAIL",
		"artifact 3.2 Edit parse.go",
		"command 3.3 `go build ./...` → ok",
		"command 3.4 `rm -f old.go && go test ./...` → failed: --- FAIL: TestParse (0.00s) ⏎ FAIL",
		"stated 3.6 TestParse still fails on the empty input: the lexer returns EOF before the first token.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ledger items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLedger_Budget: within its budget the ledger keeps every prompt and
// the newest of each kind, and shows them in session order.
func TestLedger_Budget(t *testing.T) {
	var rounds []*cairn.Round
	for i := 1; i <= 40; i++ {
		rounds = append(rounds, ledgerRound(i,
			[4]string{"user-text", "", "Prompt number " + itoa(i) + " asks for one more thing.", ""},
			[4]string{"tool-use", "Bash", `{"command":"make step` + itoa(i) + `"}`, ""},
			[4]string{"tool-result", "Bash", "built step " + itoa(i), ""},
		))
	}
	out := ledger(rounds, "", 400)
	if n := LedgerTokens(out); n > 400+LedgerTokens(nil)+200 {
		t.Errorf("ledger of %d tokens over its budget", n)
	}
	var cmds []string
	for _, it := range out {
		if it.Kind == cairn.LedgerCommand {
			cmds = append(cmds, it.Ref())
		}
	}
	if len(cmds) == 0 || cmds[len(cmds)-1] != "40.1" {
		t.Errorf("commands kept %v: want the newest, ending at 40.1", cmds)
	}
	for i := 1; i < len(out); i++ {
		if out[i].Kind == out[i-1].Kind && out[i].Round < out[i-1].Round {
			t.Errorf("ledger not in session order at %s after %s", out[i].Ref(), out[i-1].Ref())
		}
	}
}

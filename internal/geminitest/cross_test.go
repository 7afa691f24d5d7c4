package geminitest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/surgery"
)

// geminiName is the Gemini CLI tool each crossing tool becomes.
var geminiName = map[string]string{
	"Bash": "run_shell_command", "Read": "read_file", "Edit": "replace", "Write": "write_file",
	"exec_command": "run_shell_command", "shell": "run_shell_command",
}

// TestCrossToGemini continues the real Claude Code and Codex clients'
// sessions in Gemini CLI: the newest real client resumes each export, and
// its request holds the kept rounds' prompts and answers, every shell
// command, read, edit and write as Gemini CLI's own call answered by its
// output verbatim, other calls as text, and no thinking of the other
// vendor's model.
func TestCrossToGemini(t *testing.T) {
	c := geminitest.NewestClient(t)
	s := openSample(t)
	ctx := context.Background()
	for _, src := range []struct {
		name   string
		format cairn.Transcript
	}{{"claude", claudecode.Format{}}, {"codex", codex.Format{}}} {
		t.Run(src.name, func(t *testing.T) {
			m, err := surgery.CompressBefore(ctx, s.st, s.ids[src.name], surgery.Point{Seq: 2}, cairn.FullFidelity)
			if err != nil {
				t.Fatal(err)
			}
			r, x := resumeExport(t, c, m, "cross-from-"+src.name)
			checkRequest(t, r, surgery.Summary(m), "E2E cross-from-"+src.name)
			calls := map[string]string{} // "name args" → response
			for i, ct := range r.req.Contents {
				for _, p := range ct.Parts {
					if p.FunctionCall != nil && i+1 < len(r.req.Contents) {
						for _, q := range r.req.Contents[i+1].Parts {
							if q.FunctionResponse != nil && q.FunctionResponse.ID == p.FunctionCall.ID {
								calls[p.FunctionCall.Name+" "+string(p.FunctionCall.Args)] = string(q.FunctionResponse.Response)
							}
						}
					}
				}
			}
			thinking, mapped := 0, 0
			body := string(r.body)
			for _, p := range m.FullPieces() {
				blocks := surgery.PieceBlocks(src.format, m.Source(p.Round.SessionID), p, m.Fidelity)
				for _, b := range blocks {
					switch {
					case b.Sidechain:
					case b.Kind == cairn.Thinking:
						thinking++
						if strings.Contains(body, jsonText(b.Content)) {
							t.Errorf("round %d: thinking crossed into the request", p.Round.Seq)
						}
					case (b.Kind == cairn.UserText || b.Kind == cairn.AssistantText) && strings.TrimSpace(b.Content) != "":
						if !strings.Contains(body, jsonText(b.Content)) {
							t.Errorf("round %d: %s %.60q is not in the request", p.Round.Seq, b.Kind, b.Content)
						}
					case b.Kind == cairn.ToolUse && geminiName[b.ToolName] != "":
						mapped++
						found := false
						for k, resp := range calls {
							if strings.HasPrefix(k, geminiName[b.ToolName]+" ") {
								found = true
								_ = resp
							}
						}
						if !found {
							t.Errorf("round %d: %s is not in the request as %s", p.Round.Seq, b.ToolName, geminiName[b.ToolName])
						}
					case b.Kind == cairn.ToolResult && geminiName[b.ToolName] != "":
						if !strings.Contains(body, jsonText(b.Content)) {
							t.Errorf("round %d: the output of %s is not in the request verbatim", p.Round.Seq, b.ToolName)
						}
					}
				}
			}
			if mapped == 0 || x.Crossed.CallsMapped != mapped || x.Crossed.ThinkingDropped != thinking {
				t.Errorf("crossed %+v, want %d calls mapped and %d thinking blocks dropped", x.Crossed, mapped, thinking)
			}
			t.Logf("crossed from %s: %+v", src.name, x.Crossed)
		})
	}
}

// TestCrossFromGemini continues the real Gemini CLI's session in Claude
// Code and in Codex: each real client resumes the export, and its request
// holds replace and write_file as the client's own edit and write, each
// answered by its output.
func TestCrossFromGemini(t *testing.T) {
	s := openSample(t)
	ctx := context.Background()
	m, err := surgery.CompressBefore(ctx, s.st, s.ids[geminitest.Newest], surgery.Point{Seq: 2}, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	src := m.Sources[0]
	blocks := func(p *cairn.Piece) ([]*cairn.Block, error) {
		return surgery.PieceBlocks(gemini.Format{}, src, p, m.Fidelity), nil
	}
	t.Run("claude", func(t *testing.T) {
		bin := claudetest.Binary(t)
		home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
		sid := claudecode.NewUUID()
		x := &claudecode.Exporter{SessionID: sid, Cwd: cwd, Summary: surgery.Summary(m), Blocks: blocks}
		lines, err := x.Lines(m)
		if err != nil {
			t.Fatal(err)
		}
		if x.Crossed.CallsMapped != 2 || x.Crossed.CallsAsText != 0 {
			t.Errorf("crossed %+v, want replace and write_file mapped", x.Crossed)
		}
		dir := filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd))
		writeLines(t, filepath.Join(dir, sid+".jsonl"), lines)
		api := fakeapi.New()
		defer api.Close()
		prompt := "E2E cross-from-gemini: carry on."
		if res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", sid, "-p", prompt); res.IsError {
			t.Fatalf("client reported an error: %+v", res)
		}
		var body []byte
		for _, r := range api.Requests() {
			if strings.Contains(string(r.Body), prompt) && strings.Contains(string(r.Body), `"tools"`) {
				body = r.Body
			}
		}
		if body == nil {
			t.Fatal("no request carried the prompt")
		}
		var req fakeapi.MessagesRequest
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		uses, answered := map[string]string{}, map[string]bool{}
		for _, msg := range req.Messages {
			var bs []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
			}
			_ = json.Unmarshal(msg.Content, &bs)
			for _, b := range bs {
				switch b.Type {
				case "tool_use":
					uses[b.ID] = b.Name
				case "tool_result":
					if uses[b.ToolUseID] == "" {
						t.Errorf("tool_result %s comes before its tool_use", b.ToolUseID)
					}
					answered[b.ToolUseID] = true
				}
			}
		}
		names := map[string]bool{}
		for id, n := range uses {
			names[n] = true
			if !answered[id] {
				t.Errorf("%s call %s has no tool_result", n, id)
			}
		}
		if !names["Edit"] || !names["Write"] {
			t.Errorf("tool_use in the request: %v, want Edit and Write", uses)
		}
		for _, want := range []string{"Now change the greeting.", "Done: greeting.txt says goodbye and notes.md records it."} {
			if !strings.Contains(string(body), want) {
				t.Errorf("%q is not in the request", want)
			}
		}
	})
	t.Run("codex", func(t *testing.T) {
		bin := codextest.Binary(t)
		api := fakeapi.NewResponses()
		defer api.Close()
		h := codextest.NewHome(t, api.URL)
		x := &codex.Exporter{ThreadID: codex.NewThreadID(nowUTC()), Cwd: h.Cwd, Summary: surgery.Summary(m), Blocks: blocks}
		lines, err := x.Lines(m)
		if err != nil {
			t.Fatal(err)
		}
		if x.Crossed.CallsMapped != 2 || x.Crossed.CallsAsText != 0 {
			t.Errorf("crossed %+v, want replace and write_file mapped", x.Crossed)
		}
		writeLines(t, codex.RolloutPath(h.CodexHome, x.ThreadID, nowUTC()), lines)
		prompt := "E2E cross-from-gemini: carry on."
		h.Exec(t, bin, "resume", x.ThreadID, prompt)
		var body string
		for _, r := range api.Requests() {
			if strings.Contains(string(r.Body), prompt) {
				body = string(r.Body)
			}
		}
		if body == "" {
			t.Fatal("no request carried the prompt")
		}
		var req fakeapi.ResponsesRequest
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		calls, outputs := map[string]string{}, map[string]bool{}
		for _, it := range req.Input {
			switch it.Type {
			case "function_call", "custom_tool_call":
				calls[it.CallID] = it.Name
			case "function_call_output", "custom_tool_call_output":
				if calls[it.CallID] == "" {
					t.Errorf("output of %s comes before its call", it.CallID)
				}
				outputs[it.CallID] = true
			}
		}
		patches := 0
		for id, n := range calls {
			if n == "apply_patch" {
				patches++
			}
			if !outputs[id] {
				t.Errorf("%s call %s has no output", n, id)
			}
		}
		if patches != 2 {
			t.Errorf("calls in the request: %v, want the edit and the write as apply_patch", calls)
		}
		if !strings.Contains(body, "Now change the greeting.") {
			t.Error("the prompt kept in full is not in the request")
		}
	})
}

func writeLines(t *testing.T, path string, lines [][]byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, l := range lines {
		file = append(file, l...)
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
}

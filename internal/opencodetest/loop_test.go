package opencodetest_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/opencodetest"
)

// The pressure note's opening words (loop's opencodePressure) and a line
// only the loop's start context holds (the assembled context's relay of
// cairn prime, not prime's text alone).
const (
	pressureNote = "cairn: your context is"
	startContext = `<relay name="cairn prime">`
)

// TestPluginLoop runs three prompts of one session, each its own opencode
// process (opencode run, then run --session), through cairn's plugin: the
// plugin hands each moment to the live loop (cairn hook --agent opencode).
// Every conversation request carries cairn's start context once, in the
// system prompt; the prompts and answers come in order; after each
// session.idle the store holds every round so far, and at each exit the
// board has the session-end checkpoint counting them; when the stand-in's
// usage crosses 70 % of opencode's compaction point (200,000 context less
// 8,000 of output) in a prompt's replies, the next prompt's requests carry
// the pressure note once (its process learns the last reply's tokens from
// opencode's server), and the prompt after it none.
func TestPluginLoop(t *testing.T) {
	clients := opencodetest.Clients(t)
	bin := claudetest.Cairn(t)
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			r := newRig(t, c)
			var usage atomic.Int64
			usage.Store(1000)
			r.api.SetUsage(func(int) int { return int(usage.Load()) })
			cairn := func(args ...string) string {
				t.Helper()
				return r.cairn(t, bin, args...)
			}
			cairn("install", "opencode", "--command", bin)
			rounds := func(id string) []string {
				t.Helper()
				var out struct {
					Rounds []struct {
						Seq         int    `json:"seq"`
						UserPreview string `json:"user_preview"`
					} `json:"rounds"`
				}
				if err := json.Unmarshal([]byte(cairn("rounds", "--json", id)), &out); err != nil {
					t.Fatal(err)
				}
				var prompts []string
				for _, rd := range out.Rounds {
					if rd.Seq > 0 {
						prompts = append(prompts, rd.UserPreview)
					}
				}
				return prompts
			}
			prompts := []string{"make the notes file", "fix the notes", "make the notes file again", "fix the notes again"}
			var id string
			for i, p := range prompts {
				before := len(r.api.ChatRequests())
				if i == 0 {
					r.home.Run(t, c.Bin, "run", p)
					id = r.newest(t)
				} else {
					r.home.Run(t, c.Bin, "run", "--session", id, p)
				}
				reqs := conversation(r.api.ChatRequests()[before:])
				if len(reqs) == 0 {
					t.Fatalf("prompt %d: no conversation request", i+1)
				}
				for j, req := range reqs {
					if n := strings.Count(systemText(req), startContext); n != 1 {
						t.Errorf("prompt %d, request %d: cairn's start context %d times in the system prompt, want once", i+1, j+1, n)
					}
					if err := turnsInOrder(req, prompts[:i+1]); err != "" {
						t.Errorf("prompt %d, request %d: %s", i+1, j+1, err)
					}
					notes := strings.Count(systemText(req), pressureNote)
					if want := map[bool]int{true: 1}[i == 2]; notes != want {
						t.Errorf("prompt %d, request %d: the pressure note %d times, want %d", i+1, j+1, notes, want)
					}
				}
				if got := rounds(id); len(got) != i+1 {
					t.Errorf("after prompt %d's idle the store holds %d rounds, want %d: %q", i+1, len(got), i+1, got)
				}
				if end := fmt.Sprintf("ended (exit) after %d rounds", i+1); !strings.Contains(boards(t, r.home.Cwd), end) {
					t.Errorf("after prompt %d no session-end checkpoint %q on the board:\n%s", i+1, end, boards(t, r.home.Cwd))
				}
				if i == 0 {
					usage.Store(150000) // the second prompt's replies: 78 % of 192,000
				}
			}
		})
	}
}

// boards returns every board.md under dir, joined.
func boards(t *testing.T, dir string) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "board.md" {
			b, err := os.ReadFile(path)
			all.Write(b)
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

// conversation keeps the requests of the conversation (with tools), not
// the title's.
func conversation(reqs []fakeapi.ChatRequest) []fakeapi.ChatRequest {
	var out []fakeapi.ChatRequest
	for _, req := range reqs {
		if len(req.Tools) > 0 {
			out = append(out, req)
		}
	}
	return out
}

// systemText joins a request's system messages.
func systemText(req fakeapi.ChatRequest) string {
	var parts []string
	for _, m := range req.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// turnsInOrder checks a Chat Completions request as the API takes it:
// system messages first, then the conversation, which opens with the
// person, a tool result only after the assistant's call, and the person's
// prompts in the order typed, each once; "" when it holds.
func turnsInOrder(req fakeapi.ChatRequest, prompts []string) string {
	var users []string
	conv := false
	prev := ""
	for _, m := range req.Messages {
		switch {
		case m.Role == "system" && conv:
			return "a system message inside the conversation"
		case m.Role == "system":
			continue
		case !conv && m.Role != "user":
			return "the conversation opens with " + m.Role
		case m.Role == "tool" && prev != "assistant" && prev != "tool":
			return "a tool result after " + prev
		case m.Role == "user":
			users = append(users, m.Text())
		}
		conv, prev = true, m.Role
	}
	if len(users) != len(prompts) {
		return "user messages " + strings.Join(users, " | ") + ", want " + strings.Join(prompts, " | ")
	}
	for i, p := range prompts {
		if !strings.Contains(users[i], p) {
			return "user message " + users[i] + ", want " + p
		}
	}
	return ""
}

// compactionLine opens what cairn adds to opencode's compaction prompt
// (loop's opencodeCompact).
const compactionLine = "Keep this line in the summary: every round of this conversation"

// TestPluginCompaction: a reply past opencode's compaction point (195,000
// of 192,000) makes opencode compact by itself; cairn's plugin adds its
// line, naming the session, to the compaction's prompt
// (experimental.session.compacting), and after session.compacted the
// requests carry the start context given again (FromCompact), once.
func TestPluginCompaction(t *testing.T) {
	clients := opencodetest.Clients(t)
	bin := claudetest.Cairn(t)
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			r := newRig(t, c)
			// First: the compaction's prompt of 1.18.33 quotes the conversation.
			r.api.SetTurns(append([]fakeapi.ResponsesTurn{{Match: compactionLine,
				Steps: [][]fakeapi.Item{{{Type: "message", Text: "SUMMARY: the notes file is being written."}}}}}, r.api.Turns...))
			var replies atomic.Int64
			r.api.SetUsage(func(n int) int {
				// The first request with the tools' definitions, not the
				// title's, which 1.18.33 may send first.
				if n > 20_000 && replies.Add(1) == 1 {
					return 195_000
				}
				return 1000
			})
			r.cairn(t, bin, "install", "opencode", "--command", bin)
			r.home.Run(t, c.Bin, "run", "make the notes file")
			id := r.newest(t)
			reqs := r.api.ChatRequests()
			at := -1
			for i, req := range reqs {
				if last := req.Messages[len(req.Messages)-1]; last.Role == "user" && strings.Contains(last.Text(), compactionLine) {
					at = i
					if !strings.Contains(last.Text(), "cairn inject "+id+" ROUND") {
						t.Errorf("the compaction's prompt names another session than %s:\n%s", id, last.Text())
					}
				}
			}
			if at < 0 {
				t.Fatalf("no compaction request carries cairn's line (%d requests)", len(reqs))
			}
			after := conversation(reqs[at+1:])
			if len(after) == 0 {
				t.Fatal("no conversation request after the compaction")
			}
			for j, req := range after {
				if n := strings.Count(systemText(req), startContext); n != 1 {
					t.Errorf("request %d after the compaction: the start context %d times, want once", j+1, n)
				}
			}
		})
	}
}

package surgery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// TestExport_Property exports random selections of rounds at random
// fidelity, from the sample transcripts and from a generated session with
// parallel tool calls, interrupted calls and rounds that end without an
// answer, and checks every export is resumable: one root, no dangling
// parent, rising timestamps, no orphan tool_use or tool_result, ending on a
// completed assistant turn.
func TestExport_Property(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	gen := filepath.Join(t.TempDir(), genID+".jsonl")
	writeGenerated(t, gen, 60, rand.New(rand.NewSource(1)))
	mustImport(t, st, gen)

	details := []cairn.Detail{cairn.DetailFull, cairn.DetailSummary, cairn.DetailOmit}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seed := rng.Int63()
	rng = rand.New(rand.NewSource(seed))
	sessions := []string{tools, compact, resumed, subagent, genID}
	for i := 0; i < 200; i++ {
		session := sessions[rng.Intn(len(sessions))]
		f := cairn.Fidelity{Thinking: details[rng.Intn(3)], ToolUse: details[rng.Intn(3)], ToolResult: details[rng.Intn(3)]}
		pKeep, pFull := rng.Float64(), rng.Float64()
		m, err := surgery.Select(ctx, st.Store, session, func(*cairn.Round) (bool, bool) {
			return rng.Float64() < pKeep, rng.Float64() < pFull
		}, f)
		if cairn.ErrorCode(err) == cairn.EINVALID {
			continue // nothing in full
		} else if err != nil {
			t.Fatal(err)
		}
		x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m)}
		lines, err := x.Lines(m)
		if cairn.ErrorCode(err) == cairn.EINVALID {
			continue // no full round ends on an answer
		} else if err != nil {
			t.Fatal(err)
		}
		if err := claudecode.CheckResumable(newSessionID, lines); err != nil {
			var kept []string
			for _, p := range m.Pieces {
				kept = append(kept, fmt.Sprint(p.Round.Seq, map[bool]string{true: "F", false: "i"}[p.Full]))
			}
			t.Fatalf("seed %d, case %d: %s rounds %v at %+v: %v", seed, i, session, kept, f, err)
		}
		checkThinking(t, m, lines)
	}
}

const genID = "9e9e9e9e-0000-4000-8000-000000000000"

func mustImport(tb testing.TB, st *store, paths ...string) {
	tb.Helper()
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(st.db), sqlite.NewLineStore(st.db)}, Format: claudecode.Format{}}
	rep, err := im.Import(context.Background(), paths)
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep.Files)
	}
}

// writeGenerated writes a Claude Code 2.1-style session of n rounds: each a
// prompt, maybe thinking, zero to three tool cycles (some parallel), and an
// answer; some rounds are interrupted (a tool call without a result, no
// answer). Timestamps sometimes fall back, as the real client's do.
func writeGenerated(tb testing.TB, path string, n int, rng *rand.Rand) {
	tb.Helper()
	var b strings.Builder
	at := time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)
	parent := ""
	uuid := 0
	line := func(typ string, msg any, extra map[string]any) {
		uuid++
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", uuid)
		at = at.Add(time.Duration(rng.Intn(3000)-200) * time.Millisecond)
		o := map[string]any{"type": typ, "uuid": id, "sessionId": genID, "timestamp": at.Format(claudecode.TimeFormat),
			"cwd": "/tmp/gen", "version": "2.1.330", "isSidechain": false, "userType": "external", "message": msg}
		if parent == "" {
			o["parentUuid"] = nil
		} else {
			o["parentUuid"] = parent
		}
		for k, v := range extra {
			o[k] = v
		}
		raw, _ := json.Marshal(o)
		b.Write(raw)
		b.WriteByte('\n')
		parent = id
		if rng.Intn(4) == 0 {
			b.WriteString(`{"type":"last-prompt","lastPrompt":"x","sessionId":"` + genID + `"}` + "\n")
		}
	}
	msgN, tool := 0, 0
	assistant := func(blocks ...map[string]any) {
		msgN++
		for _, bl := range blocks {
			line("assistant", map[string]any{"id": fmt.Sprintf("msg_%d", msgN), "role": "assistant", "model": "m",
				"content": []any{bl}, "usage": map[string]int{"input_tokens": 100, "output_tokens": 20}}, nil)
		}
	}
	for r := 1; r <= n; r++ {
		line("user", map[string]any{"role": "user", "content": fmt.Sprintf("Round %d: please look at topic %d and report back.", r, rng.Intn(50))}, nil)
		if rng.Intn(2) == 0 {
			assistant(map[string]any{"type": "thinking", "thinking": strings.Repeat("hmm ", 10+rng.Intn(50)), "signature": "sig-" + fmt.Sprint(r)})
		}
		interrupted := rng.Intn(8) == 0
		for c := rng.Intn(4); c > 0; c-- {
			par := 1 + rng.Intn(2)
			var calls []map[string]any
			var ids []string
			for k := 0; k < par; k++ {
				tool++
				id := fmt.Sprintf("toolu_%06d", tool)
				ids = append(ids, id)
				calls = append(calls, map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]string{"command": "ls " + id}})
			}
			assistant(calls...)
			if interrupted && c == 1 {
				break
			}
			for k := len(ids) - 1; k >= 0; k-- {
				line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": ids[k],
					"content": "output of " + ids[k] + "\nsecond line"}}}, map[string]any{"toolUseResult": map[string]string{"stdout": "output"}})
			}
		}
		if !interrupted {
			assistant(map[string]any{"type": "text", "text": fmt.Sprintf("Answer %d: done.", r)})
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

package claudecode

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// image is an image part of n bytes, base64-encoded as the client writes it.
func image(mediaType string, n int) string {
	return fmt.Sprintf(`{"type":"image","source":{"type":"base64","media_type":%q,"data":%q}}`,
		mediaType, base64.StdEncoding.EncodeToString(make([]byte, n)))
}

// TestPromptWithImages: a prompt with images keeps its words, and names
// each image beside them (media type, size); a prompt of an image alone,
// an image by URL and one a tool returns are named too, never "[image]".
func TestPromptWithImages(t *testing.T) {
	user := func(uuid string, parts ...string) string {
		return `{"type":"user","uuid":"` + uuid + `","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":[` + strings.Join(parts, ",") + `]}}`
	}
	lines := []string{
		user("u1", image("image/png", 35021), `{"type":"text","text":"What is wrong in this screenshot?"}`, image("image/jpeg", 2_000_000)),
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/shot.png"}}]}}`,
		user("u2", `{"type":"tool_result","tool_use_id":"t1","content":[`+image("image/webp", 1000)+`]}`),
		user("u3", image("image/jpeg", 812)),
		user("u4", `{"type":"text","text":"<system-reminder>injected</system-reminder>"}`, `{"type":"text","text":"and this one"}`,
			`{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}`),
	}
	b := newBuilder(&cairn.Session{ID: "s", Agent: cairn.AgentClaudeCode}, 0)
	for i, raw := range lines {
		b.Add(&cairn.Line{SessionID: "s", No: i + 1, Raw: []byte(raw)})
	}
	rounds, seq, _ := b.Finish()
	blocks := cairn.CollectBlocks(seq)
	var got []string
	for _, bl := range blocks {
		got = append(got, fmt.Sprintf("%d %s %q", bl.RoundSeq, bl.Kind, bl.Content))
	}
	want := []string{
		`1 user-text "What is wrong in this screenshot?\n[image: image/png, 34.2 KB]\n[image: image/jpeg, 1.9 MB]"`,
		`1 tool-use "{\"file_path\":\"/p/shot.png\"}"`,
		`1 tool-result "[image: image/webp, 1000 B]"`,
		`2 user-text "[image: image/jpeg, 812 B]"`,
		`3 meta-text "<system-reminder>injected</system-reminder>"`,
		`3 user-text "and this one\n[image: https://example.com/a.png]"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(rounds) != 3 || rounds[0].UserPreview != "What is wrong in this screenshot? [image: image/png, 34.2 KB] [image: image/jpeg…" {
		for _, r := range rounds {
			t.Logf("round %d: %q", r.Seq, r.UserPreview)
		}
		t.Errorf("%d rounds, want 3; round 1's preview %q", len(rounds), rounds[0].UserPreview)
	}
}

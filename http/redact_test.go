package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/redact"
)

// TestServer_Redact: beyond loopback the viewer needs a redactor, and
// with one no API response carries a secret.
func TestServer_Redact(t *testing.T) {
	s := cairnhttp.NewServer()
	s.Addr, s.Token = "0.0.0.0:0", cairnhttp.RandomToken()
	if err := s.Open(); err == nil || !strings.Contains(err.Error(), "redaction") {
		s.Close()
		t.Fatalf("Open beyond loopback without redaction: %v", err)
	}

	st := MustOpenStore(t)
	s = cairnhttp.NewServer()
	st.Serve(s)
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	redacting(s, r)
	MustOpen(t, s)
	key := "AKIAZ7VRSQ5TKQ2MBXNA"
	id := "0b1e0000-0000-4000-8000-0000000005ec"
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"deploy with AWS_ACCESS_KEY_ID=%s now"},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", key, id)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	for _, p := range []string{"/api/sessions/" + id + "/rounds/1", "/api/search?q=deploy", "/api/sessions/" + id} {
		code, body := Do(t, s, "GET", p, "")
		if code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
		if strings.Contains(body, key) {
			t.Errorf("GET %s carries the key", p)
		}
		if p != "/api/sessions/"+id && !strings.Contains(body, "[REDACTED:aws-access-token]") {
			t.Errorf("GET %s: no mark in %s", p, body)
		}
	}
}

// redacting sets s to redact as cairn serve does beyond loopback.
func redacting(s *cairnhttp.Server, r *redact.Redactor) {
	s.Redact = func(text string) string { out, _ := r.Values(text); return out }
	s.RedactHits = func(q string, hits []*cairn.Hit) []*cairn.Hit {
		if len(r.Find(q)) > 0 {
			return nil
		}
		out := hits[:0]
		for _, h := range hits {
			if s, _, ok := r.Snippet(h.Snippet, cairn.HighlightStart, cairn.HighlightEnd); ok {
				h.Snippet = s
				out = append(out, h)
			}
		}
		return out
	}
}

// TestServer_RedactEdges: beyond loopback, a title that cut an AWS key
// after 17 of its 20 characters keeps none of them, a password in a URL
// never leaves, and a search for a secret's text finds nothing, while
// other words still find its round.
func TestServer_RedactEdges(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	r, _ := redact.New()
	redacting(s, r)
	MustOpen(t, s)
	aws, pw := "AKIAZ7VRSQ5TKQ2MBXNA", "Tr0ub4dor3"
	head := "deploy the release to production now, with the key "
	head += strings.Repeat("x", 80-17-len(head)-1) + " "
	prompt := head + aws + " then clone https://alice:" + pw + "@git.example.com/x.git"
	id := "0b1e0000-0000-4000-8000-0000000005ed"
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", prompt, id)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	cut := aws[:17]
	for _, p := range []string{"/api/sessions", "/api/sessions/" + id, "/api/sessions/" + id + "/rounds", "/api/sessions/" + id + "/rounds/1", "/api/search?q=deploy", "/api/search?q=clone"} {
		code, body := Do(t, s, "GET", p, "")
		if code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
		for _, secret := range []string{cut, pw} {
			if strings.Contains(body, secret) {
				t.Errorf("GET %s carries %s: %s", p, secret, body)
			}
		}
		if strings.HasPrefix(p, "/api/search") && !strings.Contains(body, id) {
			t.Errorf("GET %s: the round is not found by other words: %s", p, body)
		}
	}
	for _, q := range []string{aws, pw, "alice " + pw, "AKIAZ7VRSQ5T*", "deploy " + pw} {
		code, body := Do(t, s, "GET", "/api/search?q="+url.QueryEscape(q), "")
		if code != 200 || strings.Contains(body, id) {
			t.Errorf("search %q finds the round by a secret: %d %s", q, code, body)
		}
	}
}

// TestServer_RedactValues: beyond loopback, a round whose prompt holds a
// private key's BEGIN and body lines and whose reply, 2 MiB later, ends
// with an END line comes back as valid JSON with no 8 characters of the
// key's body: each value is redacted, not the serialized page, across
// whose quotes the private-key rule used to match.
func TestServer_RedactValues(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	r, _ := redact.New()
	redacting(s, r)
	MustOpen(t, s)
	var body []string
	for i := range 13 {
		body = append(body, strings.Repeat(fmt.Sprintf("Q%02dk", i), 16))
	}
	prompt := "keep this key:\n-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n"
	reply := strings.Repeat("the log goes on. ", 2<<20/17) + "\n-----END RSA PRIVATE KEY-----"
	id := "0b1e0000-0000-4000-8000-0000000005ee"
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", prompt, id)
	data += fmt.Sprintf(`{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":3,"output_tokens":4}},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-03-19T10:00:01.000Z","sessionId":%q,"cwd":"/w"}`+"\n", reply, id)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	for _, p := range []string{"/api/sessions/" + id + "/rounds/1", "/api/sessions/" + id, "/api/sessions", "/api/search?q=keep"} {
		code, page := Do(t, s, "GET", p, "")
		if code != 200 {
			t.Fatalf("GET %s: %d %.200s", p, code, page)
		}
		if !json.Valid([]byte(page)) {
			t.Errorf("GET %s: %d bytes, not JSON: %.300s", p, len(page), page)
		}
		shown := 0
		for _, line := range body {
			for i := 0; i+redact.MinCut <= len(line); i++ {
				if strings.Contains(page, line[i:i+redact.MinCut]) {
					shown++
					break
				}
			}
		}
		if shown > 0 {
			t.Errorf("GET %s: %d of the key's 13 body lines show (%d bytes)", p, shown, len(page))
		}
	}
}

// TestServer_RedactCutBlock: beyond loopback, a block longer than a page
// cut inside a token shows none of the token's part before the cut: the
// ellipsis follows the text, so redaction drops the run it cut.
func TestServer_RedactCutBlock(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	r, _ := redact.New()
	redacting(s, r)
	MustOpen(t, s)
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	token := make([]byte, 1<<20)
	for i := range token {
		token[i] = b32[(i*7+i/32)%len(b32)]
	}
	text := strings.Repeat("words of a log ", (cairnhttp.MaxPageBytes-len(token)/2)/15) + string(token) + " and then more words"
	id := "0b1e0000-0000-4000-8000-0000000005ef"
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", text, id)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	code, page := Do(t, s, "GET", "/api/sessions/"+id+"/rounds/1", "")
	if code != 200 || !json.Valid([]byte(page)) {
		t.Fatalf("%d, %d bytes: %.200s", code, len(page), page)
	}
	if !strings.Contains(page, "more bytes") {
		t.Fatalf("the block was not cut (%d bytes)", len(page))
	}
	shown := 0
	for i := 0; i+redact.MinCut <= len(token); i += 1021 {
		if strings.Contains(page, string(token[i:i+redact.MinCut])) {
			shown++
		}
	}
	if shown > 0 {
		t.Errorf("%d of %d pieces of the cut token show (%d bytes)", shown, len(token)/1021, len(page))
	}
}

package http_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnhttp "cairn/http"
	"cairn/redact"
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
	s.Redact = func(text string) string { out, _ := r.String(text); return out }
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

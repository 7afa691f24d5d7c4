package http_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	cairnhttp "github.com/cairn-dev/cairn/http"
)

// imageSession is the id of the session [mustImportImages] stores.
const imageSession = "7e1a9e5a-0000-4000-8000-00000000a001"

// pngOf returns a w × h PNG of one colour.
func pngOf(tb testing.TB, w, h int, c color.Color) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// imagePart is a message content part holding data, base64, as mediaType.
func imagePart(mediaType string, data []byte) map[string]any {
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mediaType, "data": base64.StdEncoding.EncodeToString(data)}}
}

// mustImportImages stores a Claude Code session made from the first
// sample, as the client writes an image pasted into a prompt and one a
// tool returns (a Read of a picture): its prompt (line 3) carries prompt
// images beside its words, its first tool result (line 21) result images
// after its text.
func mustImportImages(tb testing.TB, st *Store, prompt, result []map[string]any) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(samples, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(bytes.ReplaceAll(raw, []byte("5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"), []byte(imageSession)), "\n"), []byte("\n"))
	with := func(no int, parts func(content any) []any) {
		var e map[string]any
		if err := json.Unmarshal(lines[no-1], &e); err != nil {
			tb.Fatal(err)
		}
		msg := e["message"].(map[string]any)
		msg["content"] = parts(msg["content"])
		if lines[no-1], err = json.Marshal(e); err != nil {
			tb.Fatal(err)
		}
	}
	with(3, func(c any) []any {
		out := []any{map[string]any{"type": "text", "text": c.(string) + " The screen looks like this:"}}
		for _, p := range prompt {
			out = append(out, p)
		}
		return out
	})
	with(21, func(c any) []any {
		r := c.([]any)[0].(map[string]any)
		parts := []any{map[string]any{"type": "text", "text": r["content"].(string)}}
		for _, p := range result {
			parts = append(parts, p)
		}
		r["content"] = parts
		return []any{r}
	})
	path := filepath.Join(tb.TempDir(), imageSession+".jsonl")
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		tb.Fatal(err)
	}
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		tb.Fatalf("import %s: %s %v", path, fr.Error, problems)
	}
}

// mustOpenImageServer serves the samples and the image session, with the
// Claude Code reader's images as cmd/cairn serves them.
func mustOpenImageServer(tb testing.TB, prompt, result []map[string]any) (*cairnhttp.Server, *Store) {
	tb.Helper()
	st := MustOpenStore(tb)
	mustImportImages(tb, st, prompt, result)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Image = claudecode.LineImage
	MustOpen(tb, s)
	return s, st
}

// GET /api/sessions/{id}/lines/{line}/images/{n} serves the n'th image of
// a stored line as its bytes, of its media type, and only an inline PNG,
// JPEG, GIF or WebP image whose bytes are what it says, at most
// MaxImageBytes: never SVG or HTML, which a browser would run script in.
func TestImageRoute(t *testing.T) {
	red := pngOf(t, 40, 30, color.RGBA{200, 30, 30, 255})
	blue := pngOf(t, 20, 20, color.RGBA{30, 30, 200, 255})
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	html := []byte(`<html><script>alert(1)</script></html>`)
	huge := append(append([]byte{}, red...), make([]byte, cairnhttp.MaxImageBytes)...)
	s, _ := mustOpenImageServer(t,
		[]map[string]any{imagePart("image/png", red), imagePart("image/svg+xml", svg), imagePart("image/png", html), imagePart("image/png", huge),
			{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}}},
		[]map[string]any{imagePart("image/png", blue)})
	base := "/api/sessions/" + imageSession + "/lines/"

	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp, b.Bytes()
	}
	for _, tc := range []struct {
		path string
		want []byte
	}{{"3/images/0", red}, {"21/images/0", blue}} {
		resp, body := get(base + tc.path)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, tc.want) {
			t.Fatalf("%s: %d, %d bytes, want 200 and the %d bytes of the PNG: %.200s", tc.path, resp.StatusCode, len(body), len(tc.want), body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
			t.Errorf("%s: Content-Type %q, want image/png", tc.path, ct)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", tc.path, csp)
		}
	}
	for _, tc := range []struct {
		path   string
		status int
		words  string
	}{
		{"3/images/1", 400, "not an inline PNG"},     // image/svg+xml
		{"3/images/2", 400, "its bytes are not"},     // HTML said to be a PNG
		{"3/images/3", 400, "larger than 8.0 MB"},    // over MaxImageBytes
		{"3/images/4", 400, "not an inline PNG"},     // at a URL
		{"3/images/5", 404, "no image 5"},            // past the last
		{"21/images/1", 404, "no image 1"},           //
		{"2/images/0", 404, "no image 0"},            // a line without images
		{"999/images/0", 404, "no line 999"},         //
		{"3/images/-1", 400, "want an image number"}, //
	} {
		resp, body := get(base + tc.path)
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.words) {
			t.Errorf("%s: %d %s, want %d and %q", tc.path, resp.StatusCode, body, tc.status, tc.words)
		}
		if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "image/") {
			t.Errorf("%s: refused with Content-Type %q", tc.path, ct)
		}
	}
}

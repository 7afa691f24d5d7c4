package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImport_CRLF: a transcript whose lines end in CRLF (a Windows
// checkout with autocrlf, an editor's save) of each format (Claude Code,
// Codex, Gemini CLI's JSONL and document, pi) imports as the
// same rounds as its LF original and exports byte for byte, the CRs
// included.
func TestImport_CRLF(t *testing.T) {
	for _, src := range []string{
		"../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03.jsonl",
		"../../testdata/codex/three-rounds.jsonl",
		"../../gemini/testdata/0.61.0/session-2026-11-25T19-51-2de7feb0.jsonl",
		"../../gemini/testdata/0.30.0/session-2026-11-25T19-51-90427372.json", // one document, its last "}" unterminated
		"../../pi/testdata/0.73.1/2026-11-28T09-33-43-559Z_01a22180-defd-73bc-8443-003c4a745f68.jsonl",
	} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			lf, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
			dir := t.TempDir()
			path := filepath.Join(dir, "crlf", filepath.Base(src))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, crlf, 0o644); err != nil {
				t.Fatal(err)
			}
			storeLF, storeCRLF := filepath.Join(dir, "lf.db"), filepath.Join(dir, "crlf.db")
			for store, p := range map[string]string{storeLF: src, storeCRLF: path} {
				if out, errs, err := runMain(t, store, "import", p); err != nil || !strings.HasPrefix(out, "1 file (1 new") || strings.Contains(out, "incomplete") {
					t.Fatalf("import %s: %v %s%s", p, err, out, errs)
				}
			}
			id := onlySession(t, storeCRLF)
			if other := onlySession(t, storeLF); other != id {
				t.Fatalf("CRLF copy is session %s, the original %s", id, other)
			}
			exported, errs, err := runMain(t, storeCRLF, "export", id)
			if err != nil {
				t.Fatal(err, errs)
			}
			if !bytes.Equal([]byte(exported), crlf) {
				t.Errorf("export is %d bytes, not the %d imported (CR count %d, want %d)", len(exported), len(crlf), strings.Count(exported, "\r"), bytes.Count(crlf, []byte("\r")))
			}
			for _, cmd := range [][]string{{"rounds", id}, {"show", id}} {
				want, _, err1 := runMain(t, storeLF, cmd...)
				got, _, err2 := runMain(t, storeCRLF, cmd...)
				if err1 != nil || err2 != nil || got != want {
					t.Errorf("%s of the CRLF copy differs from the original's (%v, %v):\n%s\nwant\n%s", cmd[0], err2, err1, got, want)
				}
			}
		})
	}
}

// onlySession is the id of the one session in store.
func onlySession(t *testing.T, store string) string {
	t.Helper()
	out, errs, err := runMain(t, store, "sessions")
	if err != nil {
		t.Fatal(err, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("sessions:\n%s", out)
	}
	return strings.Fields(lines[1])[0]
}

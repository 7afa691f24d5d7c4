package inscribe_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
)

const sid = "0b0b0b0b-0000-4000-8000-000000000001"

// chainLine returns a user or assistant line of session sid.
func chainLine(n int, typ, text string) string {
	parent := "null"
	if n > 1 {
		parent = fmt.Sprintf(`"00000000-0000-4000-8000-%012d"`, n-1)
	}
	content := fmt.Sprintf(`{"role":"user","content":%q}`, text)
	if typ == "assistant" {
		content = fmt.Sprintf(`{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":3,"output_tokens":4}}`, n, text)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:%02d:00.000Z","sessionId":%q,"cwd":"/tmp/p","extraField":{"kept":true}}`+"\n",
		parent, typ, content, n, n%60, sid)
}

func writeFile(tb testing.TB, path string, parts ...string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(parts, "")), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestImport_TruncatedLastLine(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	l1, l2, l3 := chainLine(1, "user", "first question"), chainLine(2, "assistant", "first answer"), chainLine(3, "user", "second question")
	writeFile(t, file, l1, l2, l3[:40])

	f := mustImport(t, im, file).Files[0]
	if f.Read != 2 || f.Pending != 1 {
		t.Fatalf("with a half-written line: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != l1+l2 {
		t.Fatal("half-written line stored")
	}
	writeFile(t, file, l1, l2, l3)
	f = mustImport(t, im, file).Files[0]
	if f.Status != inscribe.StatusAppended || f.Read != 1 || f.Pending != 0 {
		t.Fatalf("after the line was completed: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != l1+l2+l3 {
		t.Fatal("export differs after completion")
	}
	s, _ := st.sessions.FindSessionByID(context.Background(), sid)
	if s.Rounds != 2 || s.Usage.Output != 4 {
		t.Fatalf("session = %+v", s)
	}
}

// TestImport_UnterminatedCompleteLine: a last line that is whole JSON but
// has no newline yet is left for the next import (it may still be cut
// short), so when the newline arrives the line is stored once: no empty
// phantom line, no drift in line numbers.
func TestImport_UnterminatedCompleteLine(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	l1, l2 := chainLine(1, "user", "q"), chainLine(2, "assistant", "a")
	writeFile(t, file, l1, strings.TrimSuffix(l2, "\n"))
	if f := mustImport(t, im, file).Files[0]; f.Read != 1 || f.Stored != 1 || f.Pending != 1 {
		t.Fatalf("%+v", f)
	}
	l3 := chainLine(3, "user", "next")
	writeFile(t, file, l1, l2, l3)
	if f := mustImport(t, im, file).Files[0]; f.Stored != 2 || f.Pending != 0 {
		t.Fatalf("after the newline: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != l1+l2+l3 {
		t.Fatalf("export = %q", got)
	}
	lines, err := st.FindLines(context.Background(), sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines stored, want 3", len(lines))
	}
	for i, l := range lines {
		if l.No != i+1 || len(l.Raw) < 2 || l.Raw[len(l.Raw)-1] != '\n' {
			t.Fatalf("line %d: No %d, raw %q", i+1, l.No, l.Raw)
		}
	}
}

func TestImport_Rewritten(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	writeFile(t, file, chainLine(1, "user", "original question"), chainLine(2, "assistant", "original answer"), chainLine(3, "user", "original follow-up"))
	mustImport(t, im, file)

	rewritten := chainLine(1, "user", "edited question") + chainLine(2, "assistant", "edited answer")
	writeFile(t, file, rewritten)
	f := mustImport(t, im, file).Files[0]
	if f.Status != inscribe.StatusRewritten || f.Read != 2 {
		t.Fatalf("%+v", f)
	}
	if got := exported(t, st, sid); string(got) != rewritten {
		t.Fatal("export is not the rewritten file")
	}
	ctx := context.Background()
	s, _ := st.sessions.FindSessionByID(ctx, sid)
	if s.Rounds != 1 || s.Lines != 2 {
		t.Fatalf("session = %+v", s)
	}
	src, _ := st.FindSource(ctx, sid)
	if src.Generation != 1 {
		t.Fatalf("generation = %d", src.Generation)
	}
	var old int
	tx, err := st.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT SUM(last_no - first_no + 1) FROM chunks WHERE session_id = ? AND generation = 0`, sid).Scan(&old); err != nil {
		t.Fatal(err)
	}
	if old != 3 {
		t.Fatalf("the first generation's %d lines are not all kept", old)
	}
	// Same length, different bytes in the middle is also a rewrite.
	same := strings.Replace(rewritten, "edited answer", "EDITED ANSWER", 1)
	writeFile(t, file, same)
	if f := mustImport(t, im, file).Files[0]; f.Status != inscribe.StatusRewritten {
		t.Fatalf("same-size rewrite: %+v", f)
	}
}

func TestImport_BadInput(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	huge := chainLine(4, "assistant", strings.Repeat("x", 50<<20))
	parts := []string{
		chainLine(1, "user", "before the damage"),
		"{this is not json\n",
		strings.Replace(chainLine(3, "user", "bad bytes here"), "bad bytes", "bad \xff\xfe bytes", 1),
		huge,
		`{"type":"from-the-future","sessionId":"` + sid + `","whatever":[1,2,3]}` + "\n",
		"\n",
		chainLine(7, "user", "after the damage"),
	}
	writeFile(t, file, parts...)
	rep := mustImport(t, im, file)
	f := rep.Files[0]
	if f.Read != 7 || f.Stored != 7 {
		t.Fatalf("%+v", f)
	}
	want := map[int]string{2: "invalid JSON", 3: "invalid UTF-8", 5: `unknown line type "from-the-future"`}
	if len(rep.Problems) != len(want) {
		t.Fatalf("problems = %v", rep.Problems)
	}
	for _, p := range rep.Problems {
		if !strings.HasPrefix(p.Reason, want[p.Line]) || p.Path != file {
			t.Errorf("problem %v, want line %d: %s", p, p.Line, want[p.Line])
		}
	}
	if !strings.Contains(rep.Summary(), "1 invalid JSON") || !strings.Contains(rep.Summary(), "1 unknown line type") {
		t.Errorf("summary = %s", rep.Summary())
	}
	if got := exported(t, st, sid); !bytes.Equal(got, []byte(strings.Join(parts, ""))) {
		t.Fatal("export differs from the damaged file")
	}
	ctx := context.Background()
	hits, err := sqlite.NewSearcher(st.db).Search(ctx, cairn.SearchQuery{Text: "damage"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("search after damage: %d hits, %v", len(hits), err)
	}
	r, err := st.rounds.FindRound(ctx, sid, 2)
	if err != nil || len(r.Blocks) != 2 || len(r.Blocks[1].Content) != 50<<20 {
		t.Fatalf("the 50 MB answer: %v", err)
	}
}

// TestImport_KeepsSessionOfPath: a file whose first import saw no line
// naming its session keeps the name it was given then.
func TestImport_KeepsSessionOfPath(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, "notes.jsonl")
	meta := `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}` + "\n"
	writeFile(t, file, meta)
	if f := mustImport(t, im, file).Files[0]; f.SessionID != "notes" {
		t.Fatalf("%+v", f)
	}
	writeFile(t, file, meta, chainLine(1, "user", "hello"))
	if f := mustImport(t, im, file).Files[0]; f.SessionID != "notes" || f.Status != inscribe.StatusAppended {
		t.Fatalf("%+v", f)
	}
	if _, err := st.sessions.FindSessionByID(context.Background(), sid); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("a second session appeared: %v", err)
	}
}

// TestImport_EmptyFile: a file with no complete line yet makes no
// session; once it has one, it is inscribed as new.
func TestImport_EmptyFile(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	l1 := chainLine(1, "user", "hello")
	for _, content := range []string{"", l1[:20]} {
		writeFile(t, file, content)
		rep := mustImport(t, im, file)
		if f := rep.Files[0]; f.Status != inscribe.StatusEmpty || f.Stored != 0 {
			t.Fatalf("%q: %+v", content, f)
		}
		if !strings.Contains(rep.Summary(), "1 new file with no complete line yet") {
			t.Fatalf("summary: %s", rep.Summary())
		}
		if _, err := st.sessions.FindSessionByID(context.Background(), sid); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatalf("%q made a session: %v", content, err)
		}
	}
	writeFile(t, file, l1)
	if f := mustImport(t, im, file).Files[0]; f.Status != inscribe.StatusNew || f.Stored != 1 {
		t.Fatalf("%+v", f)
	}
}

func TestImport_MissingPath(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "cairn.db"))
	if _, err := newImporter(st).Import(context.Background(), []string{"/does/not/exist"}); err == nil {
		t.Fatal("no error for a missing path")
	}
}

// TestImport_SameSizeEditInTheMiddle: bytes changed far from both ends of
// a large file, its size kept, are seen at the next import (which stores
// the file as a new generation), and so is the same edit followed by an
// append: the store never holds a version the file never had.
func TestImport_SameSizeEditInTheMiddle(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	file := filepath.Join(dir, sid+".jsonl")
	original := bigFile(400, "steady") // ~400 KiB: the middle is outside both hashed windows
	writeFile(t, file, original)
	mustImport(t, im, file)

	mid := strings.Index(original[len(original)/2:], "steady") + len(original)/2
	edited := original[:mid] + "STEADY" + original[mid+len("steady"):]
	writeFile(t, file, edited)
	if f := mustImport(t, im, file).Files[0]; f.Status != inscribe.StatusRewritten {
		t.Fatalf("same-size edit in the middle: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != edited {
		t.Fatalf("export differs from the file: %s", firstDiff(string(got), edited))
	}
	if f := mustImport(t, im, file).Files[0]; f.Status != inscribe.StatusUnchanged {
		t.Fatalf("a second import of the edited file: %+v", f)
	}

	again := edited[:mid] + "StEaDy" + edited[mid+len("steady"):] + chainLine(401, "user", "more")
	writeFile(t, file, again)
	if f := mustImport(t, im, file).Files[0]; f.Status != inscribe.StatusRewritten {
		t.Fatalf("an edit in the middle and an append: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != again {
		t.Fatalf("export differs from the file: %s", firstDiff(string(got), again))
	}
}

// TestReindex_DamagedChunk: bytes damaged in one session's stored lines
// do not stop reindex for the others; reindex names the session, its
// damaged lines and the file to import again, and that import stores the
// transcript whole as a new generation, so the session reads back again.
func TestReindex_DamagedChunk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	const other = "0b0b0b0b-0000-4000-8000-000000000002"
	damaged, kept := filepath.Join(dir, sid+".jsonl"), filepath.Join(dir, other+".jsonl")
	writeFile(t, damaged, bigFile(400, "damaged"))
	writeFile(t, kept, strings.ReplaceAll(bigFile(4, "kept"), sid, other))
	mustImport(t, im, dir)
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chunks SET data = substr(data, 1, length(data) / 2) WHERE id = (SELECT MAX(id) FROM chunks WHERE session_id = ?)`, sid); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM rounds WHERE session_id = ?`, other); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_, err = st.FindLines(ctx, sid, 0, 0)
	if msg := cairn.ErrorMessage(err); !strings.Contains(msg, "damaged") || !strings.Contains(msg, "cairn reindex") {
		t.Fatalf("reading damaged lines: %q", msg)
	}
	err = reindex(ctx, st)
	msg := cairn.ErrorMessage(err)
	if !strings.Contains(msg, sid) || !strings.Contains(msg, "lines ") || !strings.Contains(msg, "cairn import "+damaged) {
		t.Fatalf("reindex of a damaged store: %q (%v)", msg, err)
	}
	if s, err := st.sessions.FindSessionByID(ctx, other); err != nil || s.Rounds != 2 {
		t.Fatalf("the undamaged session was not reindexed: %+v, %v", s, err)
	}
	if f := mustImport(t, im, damaged).Files[0]; f.Status != inscribe.StatusRewritten {
		t.Fatalf("import after reindex: %+v", f)
	}
	want, _ := os.ReadFile(damaged)
	if got := exported(t, st, sid); !bytes.Equal(got, want) {
		t.Fatal("the session does not read back as its transcript")
	}
	if err := reindex(ctx, st); err != nil {
		t.Fatalf("reindex after the import: %v", err)
	}
}

// reindex reindexes every session of st, as `cairn reindex` does.
func reindex(ctx context.Context, st *store) error {
	both := struct {
		*sqlite.SessionStore
		*sqlite.InscriptionStore
	}{st.sessions, st.InscriptionStore}
	return inscribe.Reindex(ctx, both, "the store "+st.db.Path, inscribe.Rebuild(claudecode.Format{}), nil)
}

//go:build unix

package inscribe_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

// sid2 is a session that lives outside the transcript folder.
const sid2 = "0b0b0b0b-0000-4000-8000-000000000002"

// secretLine is a line of session sid2, the file a link out of the folder
// leads to.
func secretLine() string {
	return strings.ReplaceAll(chainLine(1, "user", "root:x:0:0:secret"), sid, sid2)
}

// linkedFolder makes dir/projects holding sid's transcript, and
// dir/elsewhere holding sid2's; it returns both folders.
func linkedFolder(t *testing.T, dir string) (projects, elsewhere string) {
	t.Helper()
	projects, elsewhere = filepath.Join(dir, "projects"), filepath.Join(dir, "elsewhere")
	for _, d := range []string{projects, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(projects, sid+".jsonl"), chainLine(1, "user", "q"))
	writeFile(t, filepath.Join(elsewhere, sid2+".jsonl"), secretLine())
	return projects, elsewhere
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
}

// storedSessions returns the IDs of the sessions st holds.
func storedSessions(t *testing.T, st *store) []string {
	t.Helper()
	ss, _, err := st.sessions.FindSessions(context.Background(), cairn.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestOpen: the one rule of what a transcript may be: a regular file,
// reached through links only inside the folders; a FIFO, a device or a
// folder is refused at once, never waited on.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	projects, elsewhere := linkedFolder(t, dir)
	file := filepath.Join(projects, sid+".jsonl")
	secret := filepath.Join(elsewhere, sid2+".jsonl")
	out, in := filepath.Join(projects, "out.jsonl"), filepath.Join(projects, "in.jsonl")
	mustSymlink(t, secret, out)
	mustSymlink(t, sid+".jsonl", in)
	fifo := filepath.Join(projects, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	toFIFO, toZero := filepath.Join(projects, "to-fifo.jsonl"), filepath.Join(projects, "zero.jsonl")
	mustSymlink(t, fifo, toFIFO)
	mustSymlink(t, "/dev/zero", toZero)
	for _, c := range []struct {
		name, path string
		folders    []string
		want       string // in the error; "" to read it
	}{
		{"OK", file, []string{projects}, ""},
		{"OKNamed", file, nil, ""},
		{"OKLinkInside", in, []string{projects}, ""},
		{"OKLinkNamed", out, nil, ""},
		{"ErrLinkOutside", out, []string{projects}, "a link to " + secret + ", not under a transcript folder"},
		{"ErrOutside", secret, []string{projects}, "not under a transcript folder"},
		{"ErrFIFO", fifo, []string{projects}, "a named pipe, not a regular file"},
		{"ErrFIFONamed", fifo, nil, "a named pipe, not a regular file"},
		{"ErrLinkToFIFO", toFIFO, []string{projects}, "a named pipe, not a regular file"},
		{"ErrDevice", "/dev/zero", nil, "a device, not a regular file"},
		{"ErrDeviceInFolder", "/dev/zero", []string{"/dev"}, "a device, not a regular file"},
		{"ErrLinkToDevice", toZero, []string{projects}, "a link to /dev/zero, not under a transcript folder"},
		{"ErrFolder", projects, nil, "a folder, not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				f   *os.File
				err error
			}
			done := make(chan result, 1)
			go func() {
				f, err := inscribe.Open(c.path, c.folders)
				done <- result{f, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second): // a FIFO's open waits forever; a loaded machine's delays do not come near
				t.Fatalf("Open(%s) still waiting after 30 s", c.path)
			}
			if r.f != nil {
				defer r.f.Close()
			}
			if c.want == "" {
				if r.err != nil {
					t.Fatal(r.err)
				}
				return
			}
			if !errors.Is(r.err, inscribe.ErrRefused) || !strings.Contains(r.err.Error(), c.want) {
				t.Fatalf("Open(%s): %v, want refused: %s", c.path, r.err, c.want)
			}
		})
	}
	if _, err := inscribe.Open(filepath.Join(projects, "missing.jsonl"), []string{projects}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestImport_LinkOutside: a symlink in a transcript folder to a file
// outside it (or to a device) is skipped and named with where it leads;
// the file it leads to is never stored, so no export prints it.
func TestImport_LinkOutside(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	projects, elsewhere := linkedFolder(t, dir)
	link := filepath.Join(projects, "0b0b0b0b-0000-4000-8000-0000000000ff.jsonl")
	mustSymlink(t, filepath.Join(elsewhere, sid2+".jsonl"), link)
	zero := filepath.Join(projects, "zero.jsonl")
	mustSymlink(t, "/dev/zero", zero)
	rep, err := newImporter(st).Import(context.Background(), []string{projects})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, f := range rep.Files {
		if f.Status == inscribe.StatusSkipped {
			skipped[f.Path] = f.Error
		}
	}
	if e := skipped[link]; !strings.Contains(e, "a link to "+filepath.Join(elsewhere, sid2+".jsonl")) {
		t.Errorf("the link out: %q (%+v)", e, rep.Files)
	}
	if e := skipped[zero]; !strings.Contains(e, "a link to /dev/zero") {
		t.Errorf("the link to a device: %q", e)
	}
	if ids := storedSessions(t, st); len(ids) != 1 || ids[0] != sid {
		t.Fatalf("sessions stored: %v, want only %s", ids, sid)
	}
}

// TestImport_LinkInside: a symlink to a file inside the folder is
// followed, once: a link to a transcript the folder holds anyway adds no
// session, and a link to a file not named *.jsonl is read through it.
func TestImport_LinkInside(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	projects, _ := linkedFolder(t, dir)
	mustSymlink(t, sid+".jsonl", filepath.Join(projects, "alias.jsonl"))
	os.Mkdir(filepath.Join(projects, "keep"), 0o755)
	writeFile(t, filepath.Join(projects, "keep", "other.txt"), strings.ReplaceAll(chainLine(1, "user", "kept"), sid, sid2))
	through := filepath.Join(projects, sid2+".jsonl")
	mustSymlink(t, filepath.Join("keep", "other.txt"), through)
	rep := mustImport(t, newImporter(st), projects)
	var paths []string
	for _, f := range rep.Files {
		paths = append(paths, filepath.Base(f.Path)+" "+f.Status)
	}
	if want := []string{sid + ".jsonl new", sid2 + ".jsonl new"}; strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Fatalf("files: %v, want %v", paths, want)
	}
	if ids := storedSessions(t, st); len(ids) != 2 {
		t.Fatalf("sessions stored: %v, want 2", ids)
	}
	// Again: nothing new, nothing doubled.
	rep = mustImport(t, newImporter(st), projects)
	for _, f := range rep.Files {
		if f.Status != inscribe.StatusUnchanged {
			t.Errorf("second import: %+v", f)
		}
	}
}

// TestImport_LinkedFolder: a folder named through a symlink is walked as
// the folder it leads to, under the name given.
func TestImport_LinkedFolder(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	projects, _ := linkedFolder(t, dir)
	named := filepath.Join(dir, "named")
	mustSymlink(t, projects, named)
	rep := mustImport(t, newImporter(st), named)
	if len(rep.Files) != 1 || rep.Files[0].Path != filepath.Join(named, sid+".jsonl") || rep.Files[0].Status != inscribe.StatusNew {
		t.Fatalf("files: %+v", rep.Files)
	}
}

// TestImport_Folders: with Importer.Folders (a hook's), a file named
// outside them, or leading out of them, is skipped.
func TestImport_Folders(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	projects, elsewhere := linkedFolder(t, dir)
	link := filepath.Join(projects, "link.jsonl")
	mustSymlink(t, filepath.Join(elsewhere, sid2+".jsonl"), link)
	im := newImporter(st)
	im.Folders = []string{projects}
	for _, path := range []string{filepath.Join(elsewhere, sid2+".jsonl"), link} {
		fr, _ := im.ImportFile(context.Background(), path)
		if fr.Status != inscribe.StatusSkipped || !strings.Contains(fr.Error, "not under a transcript folder") {
			t.Errorf("%s: %+v", path, fr)
		}
	}
	if ids := storedSessions(t, st); len(ids) != 0 {
		t.Fatalf("sessions stored: %v", ids)
	}
}

// TestWatch_LinkOutside: serve --watch applies import's rule: a link out
// of the folder is reported as skipped, once, and never stored.
func TestWatch_LinkOutside(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	projects, elsewhere := linkedFolder(t, dir)
	link := filepath.Join(projects, "0b0b0b0b-0000-4000-8000-0000000000ff.jsonl")
	mustSymlink(t, filepath.Join(elsewhere, sid2+".jsonl"), link)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan *inscribe.FileReport, 16)
	done := make(chan error, 1)
	go func() {
		done <- newImporter(st).Watch(ctx, []string{projects}, 20*time.Millisecond, func(fr *inscribe.FileReport, _ []inscribe.Problem) { reports <- fr })
	}()
	var sawLink, sawFile bool
	for !sawLink || !sawFile {
		select {
		case fr := <-reports:
			switch fr.Path {
			case link:
				if sawLink || fr.Status != inscribe.StatusSkipped || !strings.Contains(fr.Error, "a link to") {
					t.Fatalf("the link: %+v (reported before: %v)", fr, sawLink)
				}
				sawLink = true
			default:
				sawFile = fr.SessionID == sid
			}
		case <-time.After(60 * time.Second): // only a failure waits it out
			t.Fatalf("no report within 60 s (link %v, file %v)", sawLink, sawFile)
		}
	}
	// Several polls later, the link is not reported again.
	select {
	case fr := <-reports:
		t.Fatalf("reported again: %+v", fr)
	case <-time.After(150 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ids := storedSessions(t, st); len(ids) != 1 || ids[0] != sid {
		t.Fatalf("sessions stored: %v, want only %s", ids, sid)
	}
}

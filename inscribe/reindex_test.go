package inscribe_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

// fakeReindexStore holds sessions, some of whose lines are damaged.
type fakeReindexStore struct {
	sessions []*cairn.Session
	damaged  map[string]*cairn.Damaged
	rebuilt  []string // the sessions ReindexSession rebuilt, in order
	reread   []string // the sessions Reread was called for
	failOn   string   // a session whose rebuild fails otherwise than by damage
}

func (f *fakeReindexStore) FindSessions(_ context.Context, filter cairn.SessionFilter) ([]*cairn.Session, int, error) {
	if !filter.Subagents {
		return nil, 0, errors.New("sub-agents' sessions left out")
	}
	return f.sessions, len(f.sessions), nil
}

func (f *fakeReindexStore) ReindexSession(_ context.Context, s *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) error {
	if d := f.damaged[s.ID]; d != nil {
		// As a backend returns it: translated, the cause kept.
		return &cairn.Error{Code: cairn.EINTERNAL, Message: "The store holds damaged bytes: " + d.Lost() + ".", Err: d}
	}
	if s.ID == f.failOn {
		return cairn.Errorf(cairn.EINTERNAL, "The store stayed busy.")
	}
	if _, err := rebuild(s, []*cairn.Line{{SessionID: s.ID, No: 1}}); err != nil {
		return err
	}
	f.rebuilt = append(f.rebuilt, s.ID)
	return nil
}

func (f *fakeReindexStore) Reread(_ context.Context, id string) error {
	f.reread = append(f.reread, id)
	return nil
}

func rebuildAny(s *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
	return &cairn.Inscription{Session: s, Lines: lines}, nil
}

// TestReindex_Damaged: of two sessions, the one whose lines are damaged is
// set to be read again and named with its lost lines and its file; the
// other is rebuilt all the same; progress sees each session; the error is
// EINTERNAL and names the store.
func TestReindex_Damaged(t *testing.T) {
	ctx := context.Background()
	bad := &cairn.Damaged{Session: "s-bad", Generation: 2, First: 5, Last: 9, Err: errors.New("chunk 7: truncated")}
	st := &fakeReindexStore{
		sessions: []*cairn.Session{{ID: "s-bad", Path: "/t/bad.jsonl"}, {ID: "s-good", Path: "/t/good.jsonl"}},
		damaged:  map[string]*cairn.Damaged{"s-bad": bad},
	}
	var progress []string
	err := inscribe.Reindex(ctx, st, "the store /w/cairn.db", rebuildAny, func(done, total int) {
		progress = append(progress, fmt.Sprintf("%d/%d", done, total))
	})
	if got := strings.Join(st.rebuilt, " "); got != "s-good" {
		t.Errorf("rebuilt %q, want the undamaged session alone", got)
	}
	if got := strings.Join(st.reread, " "); got != "s-bad" {
		t.Errorf("Reread called for %q, want the damaged session alone", got)
	}
	if got := strings.Join(progress, " "); got != "1/2 2/2" {
		t.Errorf("progress saw %q, want 1/2 2/2", got)
	}
	if code := cairn.ErrorCode(err); code != cairn.EINTERNAL {
		t.Errorf("error code %q (%v), want %q", code, err, cairn.EINTERNAL)
	}
	want := "Reindexed 1 of 2 sessions; the store /w/cairn.db holds damaged bytes: " +
		"session s-bad: lines 5–9 (generation 2) cannot be read back; " +
		"run `cairn import /t/bad.jsonl` to store it again as a new generation (if that file is gone, those lines are lost)."
	if msg := cairn.ErrorMessage(err); msg != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
}

// TestReindex_Clean: with nothing damaged, every session is rebuilt in
// order, nothing is set to be read again, and there is no error.
func TestReindex_Clean(t *testing.T) {
	st := &fakeReindexStore{sessions: []*cairn.Session{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	if err := inscribe.Reindex(context.Background(), st, "the store", rebuildAny, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.rebuilt, " "); got != "a b c" || len(st.reread) != 0 {
		t.Errorf("rebuilt %q, reread %q; want a b c, none", got, st.reread)
	}
}

// TestReindex_Stops: an error other than damage stops the reindex at its
// session, which it names, with the store's error kept; sessions after it
// are not touched.
func TestReindex_Stops(t *testing.T) {
	st := &fakeReindexStore{sessions: []*cairn.Session{{ID: "a"}, {ID: "b"}, {ID: "c"}}, failOn: "b"}
	var done int
	err := inscribe.Reindex(context.Background(), st, "the store", rebuildAny, func(d, _ int) { done = d })
	if msg := cairn.ErrorMessage(err); msg != "The store stayed busy." || !strings.Contains(err.Error(), "reindex b: ") {
		t.Errorf("error %v (%q), want the store's, naming session b", err, msg)
	}
	if got := strings.Join(st.rebuilt, " "); got != "a" || done != 1 || len(st.reread) != 0 {
		t.Errorf("rebuilt %q, progress %d, reread %q; want a, 1, none", got, done, st.reread)
	}
}

package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

// Reindex rebuilds every session of st with rebuild, as `cairn reindex`
// does ([inscribe.Reindex]), naming the store "the store under test".
func Reindex(ctx context.Context, st *Store, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) error {
	both := struct {
		cairn.SessionStore
		cairn.InscriptionStore
	}{st.Sessions, st.Inscription}
	return inscribe.Reindex(ctx, both, "the store under test", rebuild, nil)
}

// testReindexDamaged: a session whose stored lines are damaged is named on
// read as a [cairn.Damaged] under a message that says to reindex; reindex
// rebuilds the other session, leaves the damaged one's index as it was,
// sets its source back to nothing read and names its lost lines and the
// file to import again.
func testReindexDamaged(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	if st.Damage == nil {
		t.Skip("the backend cannot spoil its stored lines (Store.Damage is nil)")
	}
	damaged := newSession("dada0000-0000-4000-8000-000000000001", "/p", t0, 2, plain)
	kept := newSession("dada0000-0000-4000-8000-000000000002", "/p", t0.Add(time.Hour), 2, plain)
	MustInscribe(t, st, damaged.in)
	MustInscribe(t, st, kept.in)
	st.Damage(t, damaged.s.ID, 3)

	_, err := st.Lines.FindLines(ctx, damaged.s.ID, 0, 0)
	var d *cairn.Damaged
	if !errors.As(err, &d) || d.Session != damaged.s.ID || d.First > 3 || d.Last < 3 {
		t.Fatalf("reading a damaged line: %v, want a *cairn.Damaged naming session %s, line 3", err, damaged.s.ID)
	}
	if msg := cairn.ErrorMessage(err); !strings.Contains(msg, d.Lost()) || !strings.Contains(msg, "cairn reindex") {
		t.Fatalf("reading a damaged line: %q, want it to say %q and what to run", msg, d.Lost())
	}
	if _, err := st.Lines.FindLines(ctx, kept.s.ID, 0, 0); err != nil {
		t.Fatalf("another session's lines: %v", err)
	}

	rebuilt := map[string]int{}
	err = Reindex(ctx, st, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
		rebuilt[sess.ID]++
		in := newSession(sess.ID, "/p", t0, len(lines)/2, func(i int) (string, string) {
			return fmt.Sprintf("rebuilt question %d", i), fmt.Sprintf("rebuilt answer %d", i)
		}).in
		in.Session, in.Lines = sess, lines
		return in, nil
	})
	wantCode(t, err, cairn.EINTERNAL)
	msg := cairn.ErrorMessage(err)
	for _, want := range []string{
		"Reindexed 1 of 2 sessions; the store under test holds damaged bytes: ",
		d.Lost() + "; run `cairn import " + damaged.in.Source.Path + "` to store it again as a new generation",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("reindex of a damaged store: %q, want it to say %q", msg, want)
		}
	}
	if rebuilt[kept.s.ID] != 1 || rebuilt[damaged.s.ID] != 0 {
		t.Errorf("rebuilt %v, want the undamaged session once and the damaged one never", rebuilt)
	}
	for id, want := range map[string]string{kept.s.ID: "rebuilt question 1", damaged.s.ID: "question number 1"} {
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id})
		if err != nil || len(rounds) != 2 || rounds[0].UserPreview != want {
			t.Errorf("session %s's rounds after the reindex: %+v, %v; want 2, the first %q", id, rounds, err, want)
		}
	}
	if src, err := st.Inscription.FindSource(ctx, damaged.s.ID); err != nil || src.Offset != 0 || src.Lines != 0 {
		t.Errorf("the damaged session's source after the reindex: %+v, %v; want nothing read", src, err)
	}
	if src, err := st.Inscription.FindSource(ctx, kept.s.ID); err != nil || src.Offset != kept.in.Source.Offset {
		t.Errorf("the other session's source after the reindex: %+v, %v; want offset %d", src, err, kept.in.Source.Offset)
	}
}

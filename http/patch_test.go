package http_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	cairnhttp "github.com/cairn-dev/cairn/http"
)

// mustOpenPatchServer serves the long real sessions with the Claude Code
// reader's recorded edits, as cmd/cairn serves them.
func mustOpenPatchServer(tb testing.TB) (*cairnhttp.Server, *Store) {
	tb.Helper()
	st := MustOpenStore(tb)
	mustImportLong(tb, st)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Patch = claudecode.EditPatch
	MustOpen(tb, s)
	return s, st
}

// GET /api/sessions/{id}/lines/{line}/patch serves the hunks a real
// Edit's result line records, numbered as in the file; a line recording
// none, and a viewer given no reader, say 404.
func TestPatchRoute(t *testing.T) {
	s, st := mustOpenPatchServer(t)
	bare := cairnhttp.NewServer()
	st.Serve(bare)
	MustOpen(t, bare)
	get := func(s *cairnhttp.Server, line string) (int, []cairn.Hunk) {
		t.Helper()
		resp, err := http.Get(s.URL() + "/api/sessions/" + longSession + "/lines/" + line + "/patch")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct{ Hunks []cairn.Hunk }
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v.Hunks
	}
	if code, hunks := get(s, "365"); code != 200 || len(hunks) != 1 || hunks[0].NewStart != 2 || len(hunks[0].Lines) != 8 {
		t.Errorf("the Edit's line: %d %+v", code, hunks)
	}
	for _, c := range []struct {
		s    *cairnhttp.Server
		line string
		code int
	}{{s, "5", 404}, {s, "999999", 404}, {s, "0", 400}, {bare, "365", 404}} {
		if code, _ := get(c.s, c.line); code != c.code {
			t.Errorf("line %s: %d, want %d", c.line, code, c.code)
		}
	}
}

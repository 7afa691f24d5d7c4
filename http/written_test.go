package http_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// GET …/patch?path=&round=&index= of a write its line records no hunks for
// answers the file's text before it as the session's earlier calls wrote
// it: the last whole text, the edits since applied; 404 for a file never
// written whole before, 400 without the call's place.
func TestPatchRoute_Previous(t *testing.T) {
	s, st := mustOpenPatchServer(t)
	const file = "/tmp/edits/a.txt"
	mustClaudeSession(t, st, writeSession, []map[string]any{
		{"name": "Write", "input": map[string]any{"file_path": file, "content": "one\ntwo\n"}, "result": "made"},
		{"name": "MultiEdit", "input": map[string]any{"file_path": file, "edits": []map[string]any{{"old_string": "one", "new_string": "uno"}, {"old_string": "two", "new_string": "dos"}}}, "result": "edited"},
		{"name": "Write", "input": map[string]any{"file_path": file, "content": "uno\ndos\ntres\n"}, "result": "written"},
	})
	// The prompt is block 0, each call and result two blocks after it.
	get := func(line, index int) (int, map[string]any) {
		t.Helper()
		q := url.Values{"path": {file}, "round": {"1"}}
		if index >= 0 {
			q.Set("index", itoa(index))
		}
		resp, err := http.Get(s.URL() + "/api/sessions/" + writeSession + "/lines/" + itoa(line) + "/patch?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	if code, v := get(7, 5); code != 200 || v["previous"] != "uno\ndos\n" {
		t.Errorf("the second Write: %d %v", code, v)
	}
	if code, v := get(3, 1); code != 404 {
		t.Errorf("the first Write: %d %v", code, v)
	}
	if code, v := get(7, -1); code != 400 {
		t.Errorf("without the call's index: %d %v", code, v)
	}
}

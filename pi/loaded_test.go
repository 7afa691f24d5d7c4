package pi

import (
	"strings"
	"testing"
)

// TestLoadedView: pi loads its last compaction's summary and the entries
// from the one it kept, on the active path: not what precedes the kept
// entry, nor a branch left; with no compaction, every entry from line 1.
func TestLoadedView(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"session","version":3,"id":"01a22180-defd-73bc-8443-00000000beef","cwd":"/w"}` + "\n"),
		[]byte(`{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"EARLY prompt"}}` + "\n"),
		[]byte(`{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"EARLY answer"}]}}` + "\n"),
		[]byte(`{"type":"message","id":"a3","parentId":"a2","message":{"role":"user","content":"KEPT prompt"}}` + "\n"),
		[]byte(`{"type":"message","id":"a4","parentId":"a3","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls KEPT"}}]}}` + "\n"),
		[]byte(`{"type":"message","id":"b1","parentId":"a3","message":{"role":"assistant","content":[{"type":"text","text":"BRANCH left"}]}}` + "\n"),
		[]byte(`{"type":"compaction","id":"c1","parentId":"a4","summary":"THE SUMMARY","firstKeptEntryId":"a3","tokensBefore":9}` + "\n"),
		[]byte(`{"type":"message","id":"a5","parentId":"c1","message":{"role":"user","content":"AFTER prompt"}}` + "\n"),
	}
	v := LoadedView(lines)
	if v.Summary != "THE SUMMARY" || v.FromLine != 4 {
		t.Fatalf("summary %q from line %d, want THE SUMMARY from 4", v.Summary, v.FromLine)
	}
	for _, want := range []string{"THE SUMMARY", "KEPT prompt", "bash\nls KEPT", "AFTER prompt"} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, v.Text)
		}
	}
	for _, not := range []string{"EARLY", "BRANCH"} {
		if strings.Contains(v.Text, not) {
			t.Errorf("text holds %q:\n%s", not, v.Text)
		}
	}
	v = LoadedView(lines[:5])
	if v.Summary != "" || v.FromLine != 1 || !strings.Contains(v.Text, "EARLY prompt") {
		t.Errorf("no compaction: %+v", v)
	}
}

package opencode_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

// A task call's result names the subagent session it ran, as opencode
// records it (state.metadata.sessionId, the child session whose parentID
// is this one), so the viewer finds the subagent among the children.
func TestTaskNamesItsSubagent(t *testing.T) {
	s := &cairn.Session{ID: "ses_parent", Agent: cairn.AgentOpencode}
	b := opencode.Format{}.NewBuilder(s, 0)
	for i, raw := range []string{
		`{"opencode":"session","id":"ses_parent","row":{"id":"ses_parent"}}`,
		`{"opencode":"message","id":"msg_1","row":{"id":"msg_1","session_id":"ses_parent"},"data":{"role":"user","time":{"created":1}}}`,
		`{"opencode":"part","id":"prt_1","row":{"id":"prt_1","message_id":"msg_1"},"data":{"type":"text","messageID":"msg_1","text":"look around"}}`,
		`{"opencode":"message","id":"msg_2","row":{"id":"msg_2","session_id":"ses_parent"},"data":{"role":"assistant","time":{"created":2}}}`,
		`{"opencode":"part","id":"prt_2","row":{"id":"prt_2","message_id":"msg_2"},"data":{"type":"tool","messageID":"msg_2","tool":"task","callID":"call_1","state":{"status":"completed","input":{"description":"look","prompt":"list the files","subagent_type":"explore"},"output":"<task id=\"ses_child\" state=\"completed\">\n<task_result>\n3 files\n</task_result>\n</task>","metadata":{"parentSessionId":"ses_parent","sessionId":"ses_child"}}}}`,
		`{"opencode":"part","id":"prt_3","row":{"id":"prt_3","message_id":"msg_2"},"data":{"type":"tool","messageID":"msg_2","tool":"task","callID":"call_2","state":{"status":"error","input":{"description":"fail"},"error":"Subagent failed","metadata":{"sessionId":"ses_child2"}}}}`,
		`{"opencode":"part","id":"prt_4","row":{"id":"prt_4","message_id":"msg_2"},"data":{"type":"tool","messageID":"msg_2","tool":"bash","callID":"call_3","state":{"status":"completed","input":{"command":"ls"},"output":"a","metadata":{"exit":0}}}}`,
	} {
		b.Add(&cairn.Line{No: i + 1, Raw: []byte(raw)})
	}
	_, seq, _ := b.Finish()
	got := map[string]string{}
	for _, bl := range cairn.CollectBlocks(seq) {
		if bl.Kind == cairn.ToolResult {
			got[bl.ToolID] = bl.AgentID
		}
	}
	want := map[string]string{"call_1": "ses_child", "call_2": "ses_child2", "call_3": ""}
	for id, agent := range want {
		if a, ok := got[id]; !ok || a != agent {
			t.Errorf("%s's result names agent %q (found %v), want %q", id, a, ok, agent)
		}
	}
}

package pi_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// TestCairnMessageNoBlock: the messages cairn's extension adds (customType
// "cairn": its start context, notes) are stored but are no block, so no
// revive or compaction of the session carries a stale copy; another
// extension's message is a block.
func TestCairnMessageNoBlock(t *testing.T) {
	raws := [][]byte{
		[]byte(`{"type":"session","version":3,"id":"01a22180-defd-73bc-8443-00000000beef","cwd":"/w"}` + "\n"),
		[]byte(`{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"go"}}` + "\n"),
		[]byte(`{"type":"custom_message","id":"a2","parentId":"a1","customType":"` + pi.ExtensionMessageType + `","content":"CAIRN CONTEXT","display":false}` + "\n"),
		[]byte(`{"type":"custom_message","id":"a3","parentId":"a2","customType":"other","content":"OTHER NOTE","display":false}` + "\n"),
		[]byte(`{"type":"message","id":"a4","parentId":"a3","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}}` + "\n"),
	}
	s := &cairn.Session{ID: "01a22180-defd-73bc-8443-00000000beef", Agent: cairn.AgentPi}
	_, blocks := build(s, toLines(s.ID, raws), 1)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b.Content)
	}
	all := strings.Join(texts, "\n")
	if strings.Contains(all, "CAIRN CONTEXT") || !strings.Contains(all, "OTHER NOTE") || !strings.Contains(all, "done") {
		t.Errorf("blocks:\n%s", all)
	}
}

package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestLineText(t *testing.T) {
	for _, c := range []struct {
		raw, text string
		status    cairn.LineStatus
	}{
		{" {\"a\":1}\r\n", `{"a":1}`, cairn.LineOK},
		{" \t\r\n", "", cairn.LineBlank},
		{"{\"a\":\"\xff\"}\n", "{\"a\":\"\uFFFD\"}", cairn.LineInvalidUTF8},
	} {
		text, status := cairn.LineText([]byte(c.raw))
		if string(text) != c.text || status != c.status {
			t.Errorf("LineText(%q) = %q, %s; want %q, %s", c.raw, text, status, c.text, c.status)
		}
	}
}

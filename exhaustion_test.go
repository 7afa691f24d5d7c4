package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestEmptyWrite(t *testing.T) {
	for _, c := range []struct {
		tool, input string
		want        bool
	}{
		{"Write", `{"file_path":"a.md"}`, true},
		{"Write", `{"file_path":"a.md","content":""}`, true},
		{"Write", `{"file_path":"a.md","content":null}`, true},
		{"Write", `{"file_path":"a.md","content":"x"}`, false},
		{"Edit", `{"file_path":"a.go"}`, true},
		{"Edit", `{"file_path":"a.go","old_string":"x","new_string":""}`, false}, // a deletion
		{"MultiEdit", `{"file_path":"a.go","edits":[]}`, true},
		{"NotebookEdit", `{"notebook_path":"a.ipynb","new_source":"print(1)"}`, false},
		{"Read", `{"file_path":"a.md"}`, false},
		{"Write", `not json`, false},
	} {
		if got := cairn.EmptyWrite(c.tool, c.input); got != c.want {
			t.Errorf("EmptyWrite(%s, %s) = %v, want %v", c.tool, c.input, got, c.want)
		}
	}
}

func TestExhaustionRun(t *testing.T) {
	e, full := cairn.WriteCall{Empty: true, Failed: true}, cairn.WriteCall{}
	for _, c := range []struct {
		calls []cairn.WriteCall
		want  int
	}{
		{nil, 0},
		{[]cairn.WriteCall{e, e, e}, 3},
		{[]cairn.WriteCall{e, e, full, e}, 1},
		{[]cairn.WriteCall{full, e, e}, 2},
	} {
		if got := cairn.ExhaustionRun(c.calls); got != c.want {
			t.Errorf("ExhaustionRun(%v) = %d, want %d", c.calls, got, c.want)
		}
	}
}

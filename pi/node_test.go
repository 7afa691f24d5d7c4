package pi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parsed is parseLine's reading of a line as the tree needs it.
func parsed(raw []byte) node {
	e, typ, _ := parseLine(raw)
	if e == nil {
		return node{}
	}
	return node{typ: typ, id: e.ID, parent: e.ParentID, entry: true}
}

func sameNode(a, b node) bool {
	return a.entry == b.entry && a.typ == b.typ && a.id == b.id && (a.parent == nil) == (b.parent == nil) && (a.parent == nil || *a.parent == *b.parent)
}

// nodeLines are lines whose reading is not the plain case: a header, a
// root, format 1's entries without ids, keys in another order or case,
// escapes, a key given twice, values of other types, no JSON.
var nodeLines = []string{
	`{"type":"session","version":3,"id":"0c7a","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}`,
	`{"type":"session","version":3,"id":"0c7a","timestamp":"t","cwd":"C:\\p","parentSession":"/x/y.jsonl"}`,
	`{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"Hello"}}`,
	`{"type":"message","timestamp":"t","message":{"role":"user","content":"format 1"}}`,
	`{"id":"a2","parentId":"a1","type":"label","targetId":"a1","label":null}`,
	`{"parentId":"a1","timestamp":"t","type":"label","id":"a3"}`,
	`{"type":"label","ID":"a4","parentId":"a3"}`,
	`{"type":"label","Id":"a4","id":"a5","parentId":"a3"}`,
	`{"type":"message","id":"a\u0036","parentId":"a5"}`,
	`{"id":"a6","message":{"content":[{"text":"a \"}{[ quoted\\","type":"text"}],"role":"user"},"parentId":"a5","timestamp":"t","type":"message"}`,
	`{"id":"a6","message":{"content":[{"text":"unclosed"}],"parentId":"a5","type":"message"}`,
	`{"type":"message","id":"a7","parentId":"a6","message":{"content":"caf\u00e9 é"}}`,
	`{"type":"message","id":"é8","parentId":"a7"}`,
	`{"type":"message","id":7,"parentId":"a7"}`,
	`{"type":"message","n":-1.5e3,"ok":true,"no":false,"z":null,"id":"a10","parentId":"a9"}`,
	`{"type":"message","id":"a11"}`,
	`{"type":"message","id":"a11","type":"label","parentId":"a10"}`,
	`  {"type":"message","id":"a12","parentId":"a11"}  ` + "\r\n",
	`{}`,
	`{,"type":"message","id":"a13","parentId":"a12"}`,
	`{"type":"message","id":"a14" "parentId":"a13"}`,
	`[1,2]`,
	`not json`,
	``,
}

// TestReadNode_AsParseLine: readNode reads type, id and parent as
// parseLine does, for every line of the samples pi wrote and for lines
// that take the long way, and reads each entry of the format 2 and 3
// samples from its first keys alone.
func TestReadNode_AsParseLine(t *testing.T) {
	lines := nodeLines
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	fast := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(data), "\n") {
			lines = append(lines, l)
			if n, ok := scanNode([]byte(l)); ok && n.entry && n.id != "" && !strings.Contains(p, "0.27.9") {
				fast++
			}
		}
	}
	for _, l := range lines {
		if got, want := readNode([]byte(l)), parsed([]byte(l)); !sameNode(got, want) {
			t.Errorf("%s\nread %+v, parseLine %+v", l, got, want)
		}
	}
	if _, ok := scanNode([]byte(nodeLines[9])); !ok {
		t.Errorf("keys in another order, the message first, read whole: %s", nodeLines[9])
	}
	if fast < 20 {
		t.Errorf("%d entries of the format 2 and 3 samples read from their first keys, want every one", fast)
	}
}

// TestReadNode_DamagedRest: a line whose type, id and parentId read but
// whose rest is cut short or holds a field of another type is an entry,
// as the tree needs it; parseLine reads none.
func TestReadNode_DamagedRest(t *testing.T) {
	for _, l := range []string{
		`{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"cut sh`,
		`{"type":"message","id":"a2","parentId":"a1"`,
		`{"type":"message","version":"x","id":"a2","parentId":"a1"}`,
	} {
		if parsed([]byte(l)).entry {
			t.Fatalf("parseLine reads %s", l)
		}
		if n := readNode([]byte(l)); !n.entry || n.id != "a2" || n.parent == nil || *n.parent != "a1" {
			t.Errorf("%s\nread %+v", l, n)
		}
	}
}

// FuzzReadNode: on any line that parseLine reads as an entry and that
// names no top-level key twice, readNode reads the same type, id and
// parent.
func FuzzReadNode(f *testing.F) {
	for _, l := range nodeLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := parsed(raw)
		got := readNode(raw)
		if !want.entry || repeatsKey(raw) {
			return
		}
		if !sameNode(got, want) {
			t.Fatalf("%q\nread %+v, parseLine %+v", raw, got, want)
		}
	})
}

// repeatsKey reports whether a JSON object names a top-level key twice,
// in any case (encoding/json takes the last).
func repeatsKey(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(bytes.ToValidUTF8(bytes.TrimSpace(raw), []byte("\uFFFD"))))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k := strings.ToLower(tok.(string))
		if seen[k] {
			return true
		}
		seen[k] = true
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return false
}

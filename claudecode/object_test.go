package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestObject_RoundTrip checks that every line of the sample transcripts
// comes back byte for byte through decodeObject and appendTo, and that
// members match encoding/json's reading.
func TestObject_RoundTrip(t *testing.T) {
	for _, name := range []string{"01", "02", "03", "04"} {
		data, err := os.ReadFile("../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f" + name + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for n, raw := range SplitLines(data) {
			o, err := decodeObject(raw)
			if err != nil {
				t.Fatalf("%s:%d: %v", name, n+1, err)
			}
			if got := o.appendTo(nil); !bytes.Equal(got, raw) {
				t.Fatalf("%s:%d: round trip differs:\n%s\n%s", name, n+1, got, raw)
			}
			var want map[string]json.RawMessage
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if len(want) != len(o.members) {
				t.Fatalf("%s:%d: %d members, want %d", name, n+1, len(o.members), len(want))
			}
			for k, v := range want {
				if !bytes.Equal(o.get(k), v) {
					t.Fatalf("%s:%d: member %s = %s, want %s", name, n+1, k, o.get(k), v)
				}
			}
			if c := o.get("message"); len(c) > 0 {
				m, err := decodeObject(c)
				if err != nil {
					t.Fatal(err)
				}
				if arr := m.get("content"); len(arr) > 0 && arr[0] == '[' {
					parts, ok := splitArray(arr)
					var wantParts []json.RawMessage
					_ = json.Unmarshal(arr, &wantParts)
					if !ok || len(parts) != len(wantParts) {
						t.Fatalf("%s:%d: split %d parts, want %d", name, n+1, len(parts), len(wantParts))
					}
				}
			}
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"a":"x\"y","b":[1,{"c":"]"}],"d":null}`))
	f.Add([]byte(`{"k\u0041":true , "n": -1.5e3 }`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(raw, &want) != nil || want == nil {
			return // not an object ("null" decodes into a nil map)
		}
		o, err := decodeObject(raw)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		for k, v := range want {
			var a, b any
			if json.Unmarshal(v, &a) != nil {
				// A value encoding/json cannot hold (1e700) is compared as
				// written.
				if got := o.get(k); !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(v)) {
					t.Fatalf("%q: member %q = %s, want %s", raw, k, got, v)
				}
				continue
			}
			if json.Unmarshal(o.get(k), &b) != nil || !jsonEqual(a, b) {
				t.Fatalf("%q: member %q = %s, want %s", raw, k, o.get(k), v)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

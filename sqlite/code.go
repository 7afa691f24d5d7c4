package sqlite

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Blocks store their kind and role as a small integer (migration 0016):
// a byte where the text took up to 15 in each of a store's blocks. A kind
// or role this cairn does not know, a newer client's, is stored as its
// text (the columns have no type: SQLite keeps each value as given), so
// nothing is lost and an older store's text reads as ever.

// Kind codes. A partial index (blocks_tool_use) and the queries it serves
// name kindToolUse's number: never renumber.
const (
	kindUserText = 1 + iota
	kindAssistantText
	kindThinking
	kindToolUse
	kindToolResult
	kindMetaText
	kindCompaction
)

// kindCode returns how blocks.kind stores k.
func kindCode(k cairn.BlockKind) any {
	switch k {
	case cairn.UserText:
		return kindUserText
	case cairn.AssistantText:
		return kindAssistantText
	case cairn.Thinking:
		return kindThinking
	case cairn.ToolUse:
		return kindToolUse
	case cairn.ToolResult:
		return kindToolResult
	case cairn.MetaText:
		return kindMetaText
	case cairn.CompactionBlock:
		return kindCompaction
	}
	return string(k)
}

// kindOf reads a kind kindCode stored (an int64 or its text, as the
// driver gives them).
func kindOf(v any) cairn.BlockKind {
	switch v := v.(type) {
	case int64:
		switch v {
		case kindUserText:
			return cairn.UserText
		case kindAssistantText:
			return cairn.AssistantText
		case kindThinking:
			return cairn.Thinking
		case kindToolUse:
			return cairn.ToolUse
		case kindToolResult:
			return cairn.ToolResult
		case kindMetaText:
			return cairn.MetaText
		case kindCompaction:
			return cairn.CompactionBlock
		}
	case string:
		return cairn.BlockKind(v)
	case []byte:
		return cairn.BlockKind(v)
	}
	return ""
}

// Role codes, as kind codes.
const (
	roleUser = 1 + iota
	roleAssistant
	roleSystem
)

// roleCode returns how blocks.role stores role.
func roleCode(role string) any {
	switch role {
	case "user":
		return roleUser
	case "assistant":
		return roleAssistant
	case "system":
		return roleSystem
	}
	return role
}

// roleOf reads a role roleCode stored.
func roleOf(v any) string {
	switch v := v.(type) {
	case int64:
		switch v {
		case roleUser:
			return "user"
		case roleAssistant:
			return "assistant"
		case roleSystem:
			return "system"
		}
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// A codedKind scans blocks.kind into Kind.
type codedKind struct{ Kind *cairn.BlockKind }

func (c codedKind) Scan(v any) error { *c.Kind = kindOf(v); return nil }

// A codedRole scans blocks.role into Role.
type codedRole struct{ Role *string }

func (c codedRole) Scan(v any) error { *c.Role = roleOf(v); return nil }

// Blocks store the ids a harness gave their tool call and message
// (toolu_01…, msg_01…: a prefix, then a number in base 62) as a blob: the
// prefix's index in idPrefixes, the number's digit count, and the number's
// bytes, 19 or 20 bytes where the text took 30 and 28 in most blocks of a
// store. Any other id is stored as its text, as is every id written
// before. Only blocks' ids are coded: messages.message_id is its table's
// key, which rows written before must go on matching.
var idPrefixes = []string{"toolu_", "msg_", "call_", "srvtoolu_"}

// base62 is the digits of the ids' numbers, in order.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// idCode returns how blocks.tool_id and blocks.message_id store id: its
// prefix's index, its tail's length and its tail's number in base 62 as
// big-endian bytes without leading zeros (what big.Int.Bytes gives: the
// stores written before hold that).
func idCode(id string) any {
	for i, p := range idPrefixes {
		tail, ok := strings.CutPrefix(id, p)
		if !ok || tail == "" || len(tail) > 255 {
			continue
		}
		out := append(make([]byte, 0, 2+len(tail)), byte(i), byte(len(tail)))
		n := out[2:2] // the number, little-endian while it is built
		for j := range len(tail) {
			k := strings.IndexByte(base62, tail[j])
			if k < 0 {
				return id
			}
			carry := uint(k)
			for b := range n {
				x := uint(n[b])*62 + carry
				n[b], carry = byte(x), x>>8
			}
			if carry > 0 {
				n = append(n, byte(carry))
			}
		}
		slices.Reverse(n)
		return append(out, n...)
	}
	return id
}

// idOf reads an id idCode stored.
func idOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		if len(v) < 2 || int(v[0]) >= len(idPrefixes) {
			return string(v)
		}
		p := idPrefixes[v[0]]
		out := make([]byte, len(p)+int(v[1]))
		copy(out, p)
		digits(out[len(p):], v[2:])
		return string(out)
	}
	return ""
}

// digits writes the number n (big-endian bytes) as the base-62 digits
// dst has room for, the lowest last: by 64-bit words while n fits in
// three of them (a tool-call id's 24 digits take 18 bytes), else by bytes.
func digits(dst, n []byte) {
	if len(n) <= 24 {
		var w [3]uint64
		for i, b := range n {
			k := len(n) - 1 - i // b's place from the lowest byte
			w[2-k/8] |= uint64(b) << (8 * (k % 8))
		}
		for j := len(dst) - 1; j >= 0; j-- {
			var r uint64
			for i := range w {
				w[i], r = bits.Div64(r, w[i], 62)
			}
			dst[j] = base62[r]
		}
		return
	}
	n = slices.Clone(n)
	for j := len(dst) - 1; j >= 0; j-- {
		var r uint
		for b := range n {
			x := r<<8 | uint(n[b])
			n[b], r = byte(x/62), x%62
		}
		dst[j] = base62[r]
	}
}

// A codedID scans blocks.tool_id or blocks.message_id into ID.
type codedID struct{ ID *string }

func (c codedID) Scan(v any) error { *c.ID = idOf(v); return nil }

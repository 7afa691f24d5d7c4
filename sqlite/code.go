package sqlite

import (
	"math/big"
	"strings"

	"cairn"
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

// idCode returns how blocks.tool_id and blocks.message_id store id.
func idCode(id string) any {
	for i, p := range idPrefixes {
		tail, ok := strings.CutPrefix(id, p)
		if !ok || tail == "" || len(tail) > 255 {
			continue
		}
		n, d := new(big.Int), new(big.Int)
		for j := range len(tail) {
			k := strings.IndexByte(base62, tail[j])
			if k < 0 {
				return id
			}
			n.Mul(n, big.NewInt(62)).Add(n, d.SetInt64(int64(k)))
		}
		return append([]byte{byte(i), byte(len(tail))}, n.Bytes()...)
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
		digits := make([]byte, v[1])
		n, m := new(big.Int).SetBytes(v[2:]), new(big.Int)
		base := big.NewInt(62)
		for j := len(digits) - 1; j >= 0; j-- {
			n.DivMod(n, base, m)
			digits[j] = base62[m.Int64()]
		}
		return idPrefixes[v[0]] + string(digits)
	}
	return ""
}

// A codedID scans blocks.tool_id or blocks.message_id into ID.
type codedID struct{ ID *string }

func (c codedID) Scan(v any) error { *c.ID = idOf(v); return nil }

package sqlite

import "cairn"

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

package pi

import (
	_ "embed"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed extension/cairn.ts
var extensionSource string

// ExtensionMessageType is the customType of the messages cairn's
// extension adds to pi's context (TYPE in extension/cairn.ts).
const ExtensionMessageType = "cairn"

// ExtensionPath is where "cairn install pi" writes cairn's extension: the
// project's .pi/extensions/, which pi discovers by itself, beside any
// extensions of the person's own.
func ExtensionPath(project string) string {
	return filepath.Join(project, ".pi", "extensions", "cairn.ts")
}

// UserExtensionPath is where "cairn install pi --user" writes cairn's
// extension: extensions/ under pi's folder ([Home]), which pi loads in
// every project.
func UserExtensionPath(home string) string {
	return filepath.Join(home, "extensions", "cairn.ts")
}

// Extension is cairn's pi extension running bin: on session_before_compact
// it runs "bin hook --agent pi compact" and supplies cairn's compaction,
// and returns nothing (pi compacts by itself) when cairn fails.
func Extension(bin string) []byte {
	q := strconv.Quote(bin)
	return []byte(strings.Replace(extensionSource, `"@CAIRN@"`, q, 1))
}

//go:build !lean

package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMCP_RedactBeyondLoopback: beyond this machine the MCP server
// redacts, and --redact=false is refused rather than obeyed.
func TestMCP_RedactBeyondLoopback(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	_, stderr, err := runMain(t, store, "mcp", "--http", "0.0.0.0:0", "--redact=false")
	if err == nil || !strings.Contains(err.Error()+stderr, "always redacts") {
		t.Fatalf("mcp --http 0.0.0.0:0 --redact=false: %v %s", err, stderr)
	}
}

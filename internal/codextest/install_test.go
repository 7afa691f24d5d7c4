package codextest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestInstallMCP has the real client read a config.toml that install
// edited: it lists cairn's MCP server (and keeps the provider the file
// already had); after uninstall it lists none.
func TestInstallMCP(t *testing.T) {
	bin := codextest.Binary(t)
	api := fakeapi.NewResponses()
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	path := filepath.Join(h.CodexHome, "config.toml")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited, changed, err := codex.InstallMCP(orig, "/usr/local/bin/cairn")
	if err != nil || !changed {
		t.Fatalf("install: %v, changed %v", err, changed)
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	var servers []struct {
		Name      string `json:"name"`
		Transport struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"transport"`
	}
	out := h.Run(t, bin, "mcp", "list", "--json")
	if err := json.Unmarshal(out, &servers); err != nil {
		t.Fatalf("codex mcp list --json: %v\n%s", err, out)
	}
	if len(servers) != 1 || servers[0].Name != "cairn" || servers[0].Transport.Command != "/usr/local/bin/cairn" ||
		strings.Join(servers[0].Transport.Args, " ") != "mcp" {
		t.Fatalf("codex lists %s", out)
	}
	// The provider the file had still answers.
	h.Exec(t, bin, "hello after install")

	back, _ := codex.UninstallMCP(edited)
	if string(back) != string(orig) {
		t.Fatalf("uninstall left:\n%s\nwant:\n%s", back, orig)
	}
	if err := os.WriteFile(path, back, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := h.Run(t, bin, "mcp", "list", "--json"); strings.Contains(string(out), "cairn") {
		t.Fatalf("codex still lists cairn: %s", out)
	}
}

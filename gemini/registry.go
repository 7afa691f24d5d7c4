package gemini

import (
	"runtime"
	"strings"
)

// registryKey is how the client names a project in projects.json: its
// path as given (resolved, which a cwd already is), lower-cased on Windows,
// whose paths ignore case (ProjectRegistry.normalizePath, 0.61).
func registryKey(project, goos string) string {
	if goos == "windows" {
		return strings.ToLower(project)
	}
	return project
}

// projectKey is registryKey on this OS.
func projectKey(project string) string { return registryKey(project, runtime.GOOS) }

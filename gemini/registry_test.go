package gemini

import "testing"

// TestRegistryKey: projects.json names a Windows project by its lower-cased
// path, as the client's ProjectRegistry.normalizePath does there; elsewhere
// the path as it is (0.61).
func TestRegistryKey(t *testing.T) {
	for _, c := range []struct{ project, goos, want string }{
		{`C:\Users\X\My Proj`, "windows", `c:\users\x\my proj`},
		{`/Users/X/Proj`, "darwin", `/Users/X/Proj`},
		{`/home/x/Proj`, "linux", `/home/x/Proj`},
	} {
		if got := registryKey(c.project, c.goos); got != c.want {
			t.Errorf("registryKey(%q, %s) = %q, want %q", c.project, c.goos, got, c.want)
		}
	}
}

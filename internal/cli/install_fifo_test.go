package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInstall_SettingsNotRegular: a settings file that is a FIFO, or a
// link to /dev/zero, is named and left alone; install returns at once
// instead of waiting on the pipe forever or reading the device until
// memory runs out.
func TestInstall_SettingsNotRegular(t *testing.T) {
	for name, plant := range map[string]func(string) error{
		"FIFO":      makeFIFO,
		"/dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
			if err := plant(filepath.Join(dir, ".claude", "settings.json")); err != nil {
				t.Skip(err)
			}
			var stdout, stderr bytes.Buffer
			m := NewMain(strings.NewReader(""), &stdout, &stderr)
			m.Getwd = func() (string, error) { return dir, nil }
			m.Getenv = func(k string) string {
				if k == "HOME" {
					return dir
				}
				return ""
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- m.Run(context.Background(), []string{"install", "claude"}) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%v in %v: %s%s", err, time.Since(start), stdout.String(), stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("install still running after 30 s")
			}
		})
	}
}

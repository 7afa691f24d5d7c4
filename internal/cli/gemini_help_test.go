package cli

import (
	"strings"
	"testing"
)

// TestReviveHelp_GeminiCleanup pins that revive -h says how a Gemini
// session outlives the cleanup of Gemini CLI 0.61 and what to do with one
// an older cairn wrote.
func TestReviveHelp_GeminiCleanup(t *testing.T) {
	help := strings.Join(strings.Fields(helpOf(t, "revive")), " ")
	for _, want := range []string{"ends with the id's last eight digits", "its cleanup at the next start deletes",
		"export it again before resuming it", "general.sessionRetention.enabled to false"} {
		if !strings.Contains(help, want) {
			t.Errorf("revive -h does not say %q", want)
		}
	}
}

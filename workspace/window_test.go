package workspace_test

import "testing"

// TestReportedWindow: what the status line reported for a session holds
// for its transcript's model, also when an older client's transcript
// leaves out the "[1m]" the status line names; a session that changed
// models since falls back to what was reported for the model.
func TestReportedWindow(t *testing.T) {
	w := MustInit(t)
	if err := w.SetReportedWindow("s1", "claude-opus-4-8[1m]", 1_000_000); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		session, model string
		want           int64
	}{
		{"s1", "claude-opus-4-8", 1_000_000},     // 2.1.197's transcript
		{"s1", "claude-opus-4-8[1m]", 1_000_000}, // as reported
		{"s1", "", 1_000_000},
		{"s1", "claude-sonnet-4-5", 0}, // /model since: nothing known of it
		{"s2", "claude-opus-4-8[1m]", 1_000_000},
		{"s2", "claude-opus-4-8", 0}, // another session: only the exact model's report
	} {
		n, _, err := w.ReportedWindow(c.session, c.model)
		if err != nil || n != c.want {
			t.Errorf("ReportedWindow(%s, %q) = %d, %v; want %d", c.session, c.model, n, err, c.want)
		}
	}
}

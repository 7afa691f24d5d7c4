package cairn_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestReviewReason pins the reason a todo review is due, in words a person
// reads: a list never reviewed does not claim a last review "never".
func TestReviewReason(t *testing.T) {
	now := time.Date(2026, 3, 20, 11, 0, 0, 0, time.UTC)
	day := now.Add(-25 * time.Hour)
	hour := now.Add(-time.Hour)
	for _, c := range []struct {
		last *time.Time
		want string
	}{
		{nil, "the todos were never reviewed"},
		{&day, "the last review (2026-03-19T10:00:00Z) is over 24 h old"},
		{&hour, ""},
	} {
		l := &cairn.TodoList{LastReview: c.last}
		if got := l.ReviewReason(now); got != c.want {
			t.Errorf("ReviewReason(last %v) = %q, want %q", c.last, got, c.want)
		}
	}
}

package loop

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// ShortID is a session id's first eight characters, as notes name it.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// ClipLine returns s on one line, cut to n runes with an ellipsis.
func ClipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Thousands writes n with comma separators: 144,012.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// errorText is the one line a person reads for err: a domain error's
// message, or the wrapped error as it is.
func errorText(err error) string {
	var e *cairn.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

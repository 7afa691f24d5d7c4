// Package uuid makes and checks the random uuids clients name their
// sessions and entries with, for the adapters that write sessions.
package uuid

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"sync"
)

// New returns a fresh random uuid (version 4), in lower case.
func New() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var pattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

// Valid reports whether s is a uuid as [New] writes them, of any version:
// 8-4-4-4-12 lower-case hex digits.
func Valid(s string) bool { return pattern().MatchString(s) }

package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize reads a corpus size as the bench commands take it: 200MB,
// 1GB, 64KB (decimal units) or a count of bytes.
func ParseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: want e.g. 200MB or 1GB", s)
	}
	return int64(f * float64(mult)), nil
}

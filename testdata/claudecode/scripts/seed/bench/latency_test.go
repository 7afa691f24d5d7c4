package bench

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkLoginLatency measures the time to compare two 64-byte tokens,
// the hot path of every console login.
func BenchmarkLoginLatency(b *testing.B) {
	tok := strings.Repeat("a", 64)
	start := time.Now()
	for i := 0; i < b.N; i++ {
		_ = strings.EqualFold(tok, tok)
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/login")
}

//go:build race

package http_test

// raceEnabled: the race detector makes timings meaningless.
const raceEnabled = true

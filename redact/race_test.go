//go:build race

package redact_test

// raceEnabled: the race detector slows regular expressions some tenfold.
const raceEnabled = true

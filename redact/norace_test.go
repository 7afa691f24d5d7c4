//go:build !race

package redact_test

const raceEnabled = false

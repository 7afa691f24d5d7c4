//go:build !race

package http_test

const raceEnabled = false

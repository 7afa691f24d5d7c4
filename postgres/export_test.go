package postgres

// SetRelayoutBlocks sets how many block ids a relayout transaction
// rewrites, for tests.
func SetRelayoutBlocks(n int64) { relayoutBlocks = n }

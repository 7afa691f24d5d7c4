package sqlite

// SetS2Chunks has new chunks written with S2, as before migration 0012,
// block texts still views of their lines, for tests; it returns the
// function that restores the codec.
func SetS2Chunks() (restore func()) {
	c := chunkCodec
	chunkCodec = codecS2
	return func() { chunkCodec = c }
}

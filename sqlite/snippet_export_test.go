package sqlite

// SetS2Chunks has new chunks written with S2, as before migration 0012,
// block texts still views of their lines, for tests; it returns the
// function that restores the codec.
func SetS2Chunks() (restore func()) {
	c := chunkCodec
	chunkCodec = codecS2
	return func() { chunkCodec = c }
}

// SetSpanWhole has a round's page read views longer than n bytes a
// window of w bytes at a time, for tests; it returns the function that
// restores the sizes.
func SetSpanWhole(n, w int) (restore func()) {
	n0, w0 := spanWhole, spanWindow
	spanWhole, spanWindow = n, w
	return func() { spanWhole, spanWindow = n0, w0 }
}

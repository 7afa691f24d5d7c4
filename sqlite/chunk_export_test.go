package sqlite

// SetRowMeta has new chunks written as before codec 2: zstd with a
// line's meta fields one after the other (codecZstd), for tests; it
// returns the function that restores the codec.
func SetRowMeta() (restore func()) {
	c := chunkCodec
	chunkCodec = codecZstd
	return func() { chunkCodec = c }
}

// SetStreamAhead bounds the bytes a rawStream decompresses ahead, for
// tests; it returns the function that restores the bound.
func SetStreamAhead(n int) (restore func()) {
	a := streamAhead
	streamAhead = n
	return func() { streamAhead = a }
}

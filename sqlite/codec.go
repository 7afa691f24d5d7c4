package sqlite

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// A codec is how a chunk's data and meta are compressed and how its meta
// is laid out (chunks.codec, migration 0012). Chunks are never rewritten
// but by the in-place rewrite of [DB.Relayout]: every codec a store may
// hold stays readable.
//
// Measured on the real transcripts of the bench's corpus (55 MB, chunks
// of 256 KiB, one core): S2 kept 18.2 % of the bytes at 1,150 MB/s
// written and 2,100 MB/s read; zstd's fastest level 13.3 % at 420 and
// 1,500 MB/s; its default level 12.7 % at 230 and 1,600 MB/s; its better
// level 12.0 % at 230 and 1,500 MB/s. Chunks of 1 MiB gained another 1.4
// points but read four times the bytes to return one line (a search
// result's snippet). The raw lines are most of the store, and import
// speed is bounded by the writer's transaction rather than by
// compressing (which runs before it, beside another import's writes):
// zstd's fastest level, in 256 KiB chunks (codecZstd).
//
// Measured again for codecPacked on the 6.7 MB of distinct real
// transcripts in ../shared/testdata (the bench corpus is copies of them),
// one core of a quiet machine (TestMeasureCodecs), chunks cut at line
// ends, ratio / MB/s written / MB/s read:
//
//	chunk    level     no dictionary           store dictionary (112 KB)
//	256 KiB  fastest   13.57 %  470  2,196     12.84 %  507    972
//	256 KiB  default   12.94 %  277  2,361     12.16 %  354  1,086
//	256 KiB  better    12.23 %  282  2,058     11.29 %  221  1,174
//	256 KiB  best      11.75 %   49  2,081     10.69 %   30  1,174
//	512 KiB  better    11.53 %  295  2,235     10.81 %  240  1,043
//	1 MiB    better    11.07 %  300  2,857     10.51 %  237  1,286
//
// A dictionary (dict.BuildZstdDict over one real session, measured on
// the others) gains under a point and halves reading speed: each chunk
// read copies the dictionary into the decoder's history first. Larger
// chunks gain 0.7 and 1.2 points and read two and four times the bytes to
// give back one line (a block's view, a search snippet). The better level
// keeps a tenth fewer bytes than the fastest at the same reading speed,
// but in a whole import (192 MB of the bench corpus, 2 busy cores) it
// compressed at 109 MB/s against the fastest's 263: 1.3 s more CPU, a
// fifth of the import's, for 1.3 % of the raw history; an import must
// reach 150 MB/s on 2 cores in all. The default level, measured the same
// way on the 1 GB bench corpus (one import each, in turn), took 28.3 s of
// CPU against the fastest's 28.4 (compressing runs on the importers'
// goroutines, beside the writer) and kept the store 7.1 MB smaller (200.7
// against 207.9 MB: 0.7 % of the raw history). So: zstd's default level,
// 256 KiB chunks, no dictionary; codecPacked changes the meta alone, and
// chunks of either level read the same.
type codec int

const (
	codecS2     codec = 0 // stores written before migration 0012
	codecZstd   codec = 1 // zstd, meta a row per line (encodeMeta)
	codecPacked codec = 2 // zstd, meta a column per field (chunkmeta.go)
)

// chunkCodec is the codec new chunks are written with.
var chunkCodec = codecPacked // a variable for tests

// zstdEncoder and zstdDecoder are made at first use, never at start: a
// hook that only reads pays for neither (AGENTS.md, rule 7). Both are
// safe for concurrent use; the encoder's window is bounded so that a long
// line (one chunk of its own) does not grow its history buffers with it.
//
// Each encodes or decodes on as many goroutines at once as it has
// encoders or decoders, which klauspost/compress makes GOMAXPROCS of by
// default, whatever the cores: each encoder's tables take 1.3 MB from the
// start and its history 1 MB more once used. So they are sized by the
// work (see [encoders], [cores]), not by GOMAXPROCS: an import of 205 MB
// with GOMAXPROCS=16 on 2 cores held 40 MB of encoders against 5 with
// GOMAXPROCS=2, a live heap of 60–68 MB against 23–28 under the import's
// soft memory limit (internal/cli's batchGC, 80 MiB), and collected 334
// times against 59: 15.0 s of CPU against 8.7.
var (
	zstdEncoder = sync.OnceValue(newEncoder)
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(cores()), zstd.WithDecoderMaxMemory(1<<32))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// smallChunk is the size of input below which [compressWith] compresses
// with smallEncoder, zstd's fastest level, one encoder: a hook's import
// compresses a chunk of a few lines, the first a process compresses, and
// the default level's larger tables, touched for the first time, cost
// it more than the compression (a 1,600-byte chunk in a new process: 0.6
// to 0.8 ms at the default level, 0.26 to 0.43 ms at the fastest, 102 and
// 103 bytes). Any zstd decoder reads either: the codec is the same.
const smallChunk = 32 << 10

var smallEncoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(smallChunk),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return e
})

func newEncoder() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1<<20),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(encoders()))
	if err != nil {
		panic(err)
	}
	return e
}

// cores is how many goroutines CPU-bound work is spread over: GOMAXPROCS,
// but never more than the machine's cores (GOMAXPROCS may be set higher,
// and goroutines past the cores only take turns, each holding its
// buffers).
func cores() int { return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU())) }

// maxEncoders bounds the chunks compressed at once. Compressing runs on
// the importers' goroutines before the writer's transaction, at about
// 280 MB/s a core (the table above), and an import is bound by its
// writer at under 150 MB/s: more encoders hold memory and feed nothing.
const maxEncoders = 4

// encoders is how many chunks are compressed at once.
func encoders() int { return min(cores(), maxEncoders) }

// compress returns b compressed with chunkCodec.
func compress(b []byte) []byte { return compressWith(chunkCodec, b) }

// compressWith returns b compressed with c.
//
// A long line's compressed bytes are written into scratch memory outside
// the Go heap and copied out at their size, so that the room asked for
// the worst case does not double the heap the collector lets grow beside
// a long line (compressing a line of 43 MB raised the next collection's
// goal by 100 MB).
func compressWith(c codec, b []byte) []byte {
	if c == codecS2 {
		if len(b) < scratchCompress {
			return s2.Encode(nil, b)
		}
		room, free := scratch(s2.MaxEncodedLen(len(b)))
		defer free()
		return bytes.Clone(s2.Encode(room, b))
	}
	if len(b) < smallChunk {
		return smallEncoder().EncodeAll(b, nil)
	}
	e := zstdEncoder()
	if len(b) < scratchCompress {
		return e.EncodeAll(b, nil)
	}
	room, free := scratch(len(b) + len(b)>>6 + 1<<10)
	defer free()
	return bytes.Clone(e.EncodeAll(b, room[:0]))
}

// scratchCompress is the size of input past which [compress] writes into
// scratch memory.
const scratchCompress = 1 << 20

// decompress returns b, compressed with c, decompressed.
func decompress(c codec, b []byte) ([]byte, error) {
	switch c {
	case codecS2:
		return s2.Decode(nil, b)
	case codecZstd, codecPacked:
		return zstdDecoder().DecodeAll(b, nil)
	}
	return nil, fmt.Errorf("unknown codec %d (written by a newer cairn?)", c)
}

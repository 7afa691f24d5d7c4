package sqlite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
)

// readLines returns the lines of the file at path, each with its
// terminator.
func readLines(t *testing.T, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b) - 1
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// chunkFiles cuts each file's lines into chunks of at most size bytes,
// as splitChunks does.
func chunkFiles(files [][][]byte, size int) [][]byte {
	var out [][]byte
	for _, lines := range files {
		var cur []byte
		for _, l := range lines {
			if len(cur) > 0 && len(cur)+len(l) > size {
				out = append(out, cur)
				cur = nil
			}
			cur = append(cur, l...)
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
	}
	return out
}

// TestMeasureCodecs prints the table codec.go's choice rests on: zstd's
// levels × chunk sizes × a dictionary trained from one session, measured
// on the others (ratio, MB/s written and read, best of a few runs). It
// runs only when asked, over the transcripts under $CAIRN_MEASURE_CODECS:
//
//	CAIRN_MEASURE_CODECS=../../shared/testdata/transcripts GOMAXPROCS=1 go test -v -run TestMeasureCodecs ./sqlite
func TestMeasureCodecs(t *testing.T) {
	root := os.Getenv("CAIRN_MEASURE_CODECS")
	if root == "" {
		t.Skip("CAIRN_MEASURE_CODECS names no folder of transcripts to measure on")
	}
	var train, test [][][]byte
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		if strings.Contains(p, "258c7280") { // the dictionary's session and its sub-agents
			train = append(train, readLines(t, p))
		} else {
			test = append(test, readLines(t, p))
		}
		return nil
	})
	levels := []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression}
	for _, size := range []int{256 << 10, 512 << 10, 1 << 20} {
		chunks := chunkFiles(test, size)
		raw := 0
		for _, c := range chunks {
			raw += len(c)
		}
		trainChunks := chunkFiles(train, 64<<10)
		for _, useDict := range []bool{false, true} {
			for _, lvl := range levels {
				opts := []zstd.EOption{zstd.WithEncoderLevel(lvl), zstd.WithWindowSize(1 << 20), zstd.WithLowerEncoderMem(true), zstd.WithEncoderCRC(false)}
				dopts := []zstd.DOption{zstd.WithDecoderConcurrency(1)}
				dsize := 0
				if useDict {
					d, err := dict.BuildZstdDict(trainChunks, dict.Options{MaxDictSize: 112 << 10, HashBytes: 6, ZstdLevel: lvl})
					if err != nil {
						t.Fatal(err)
					}
					dsize = len(d)
					opts = append(opts, zstd.WithEncoderDict(d))
					dopts = append(dopts, zstd.WithDecoderDicts(d))
				}
				enc, _ := zstd.NewWriter(nil, opts...)
				dec, _ := zstd.NewReader(nil, dopts...)
				var zs [][]byte
				best := time.Hour
				for r := 0; r < 3; r++ {
					zs = zs[:0]
					start := time.Now()
					for _, c := range chunks {
						zs = append(zs, enc.EncodeAll(c, nil))
					}
					best = min(best, time.Since(start))
				}
				z := 0
				for _, c := range zs {
					z += len(c)
				}
				dbest := time.Hour
				buf := make([]byte, 0, 2<<20)
				for r := 0; r < 5; r++ {
					start := time.Now()
					for _, c := range zs {
						var err error
						buf, err = dec.DecodeAll(c, buf[:0])
						if err != nil {
							t.Fatal(err)
						}
					}
					dbest = min(dbest, time.Since(start))
				}
				t.Logf("| %4d KiB | %-8s | dictionary %5v %6d | %6.2f %% | %4.0f MB/s written | %5.0f MB/s read |", size>>10, lvl, useDict, dsize,
					100*float64(z)/float64(raw), float64(raw)/1e6/best.Seconds(), float64(raw)/1e6/dbest.Seconds())
			}
		}
	}
}

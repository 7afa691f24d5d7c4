// Command startupfloor links the third-party packages the lean cairn
// (the build installed as cairn) links: the SQLite driver, S2, the JSON,
// terminal, tokenizer and keyword-matching packages; and prints hello. It
// starts as any program linking them must: their package initialisation
// runs before main. cairnbench times it beside cairn --help and a Go hello
// world, to tell what of cairn's start-up is cairn's own.
package main

import (
	"os"

	_ "github.com/BobuSumisu/aho-corasick"
	_ "github.com/go-json-experiment/json"
	_ "github.com/klauspost/compress/s2"
	_ "github.com/pkoukk/tiktoken-go-loader/assets"
	_ "golang.org/x/term"
	_ "modernc.org/sqlite"
)

func main() { os.Stdout.WriteString("hello\n") }

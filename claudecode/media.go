package claudecode

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// A mediaSource is where an image or document part's bytes are: inline
// ("base64", "text"), at a URL, or an uploaded file.
type mediaSource struct {
	Type      string         `json:"type"`
	MediaType string         `json:"media_type"`
	Data      jsontext.Value `json:"data"` // raw, so its size is read without decoding it
	URL       string         `json:"url"`
	FileID    string         `json:"file_id"`
}

// mediaName names an image or document part for people and search, where
// its bytes cannot go: "[image: image/png, 34.2 KB]", its media type and
// the size of its bytes (decoded from base64), or where it is.
func mediaName(c *contentBlock) string {
	src := c.Source
	if src == nil {
		return "[" + c.Type + "]"
	}
	var fig []string
	if src.MediaType != "" {
		fig = append(fig, src.MediaType)
	}
	switch {
	case len(src.Data) >= 2 && src.Data[0] == '"':
		n := len(src.Data) - 2 - bytes.Count(src.Data, []byte{'\\'})
		if src.Type == "base64" {
			n = base64Size(src.Data[1:len(src.Data)-1], n)
		}
		fig = append(fig, byteSize(n))
	case src.URL != "":
		fig = append(fig, src.URL)
	case src.FileID != "":
		fig = append(fig, src.FileID)
	}
	if len(fig) == 0 {
		return "[" + c.Type + "]"
	}
	return "[" + c.Type + ": " + strings.Join(fig, ", ") + "]"
}

// base64Size is the number of bytes n base64 characters (data, still
// JSON-quoted inside) decode to.
func base64Size(data []byte, n int) int {
	pad := 0
	for i := len(data) - 1; i >= 0 && pad < 2 && data[i] == '='; i-- {
		pad++
	}
	return max(n*3/4-pad, 0)
}

// byteSize is n bytes as people read a file's size: 812 B, 34.2 KB, 1.5 MB.
func byteSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MB"
}

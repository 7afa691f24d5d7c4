package claudecode

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"

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

// ImageTypes are the media types of the images [LineImage] returns: the
// raster formats the Messages API takes, none of which a browser runs
// script in.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// LineImage returns the n'th image (from 0) of a raw transcript line, as
// the reader names them in its blocks: the message's content parts in
// order, a tool result's own parts where the result stands. It returns
// the image's media type and its bytes, decoded, when the image is inline
// base64 of one of [ImageTypes] whose bytes are what the type says, at
// most max bytes; else an error: ENOTFOUND when the line has no n'th
// image, EINVALID when it is not one to show.
func LineImage(raw []byte, n, max int) (string, []byte, error) {
	var e struct {
		Message struct {
			Content jsontext.Value `json:"content"`
		} `json:"message"`
	}
	if !unmarshalLine(raw, &e) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "The line is not JSON.")
	}
	var found *mediaSource
	i := 0
	var walk func(content jsontext.Value) bool
	walk = func(content jsontext.Value) bool {
		for _, c := range elements[contentBlock](content) {
			switch c.Type {
			case "image":
				if i == n {
					found = c.Source
					return true
				}
				i++
			case "tool_result":
				if walk(c.Content) {
					return true
				}
			}
		}
		return false
	}
	if !walk(e.Message.Content) {
		return "", nil, cairn.Errorf(cairn.ENOTFOUND, "The line has no image %d.", n)
	}
	src := found
	if src == nil || src.Type != "base64" || !slices.Contains(ImageTypes, src.MediaType) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "Image %d is not an inline PNG, JPEG, GIF or WebP image.", n)
	}
	var data string
	if !unmarshal(src.Data, &data) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "Image %d has no data.", n)
	}
	if base64.StdEncoding.DecodedLen(len(data)) > max+3 {
		return "", nil, cairn.Errorf(cairn.EINVALID, "Image %d is larger than %s.", n, byteSize(max))
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) > max {
		return "", nil, cairn.Errorf(cairn.EINVALID, "Image %d is not valid base64 of at most %s.", n, byteSize(max))
	}
	if !isImage(b, src.MediaType) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "Image %d says %s but its bytes are not.", n, src.MediaType)
	}
	return src.MediaType, b, nil
}

// isImage reports whether b starts as an image of media type t does, so
// that bytes of another kind (HTML, SVG) are never served as one. (Not
// net/http's sniffer: the lean build links no net/http.)
func isImage(b []byte, t string) bool {
	switch t {
	case "image/png":
		return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		return bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff})
	case "image/gif":
		return bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))
	case "image/webp":
		return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}
	return false
}

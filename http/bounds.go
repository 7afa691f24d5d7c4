package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Caps of what one request may ask for, beyond the body's [MaxBodyBytes]
// and the header's 64 KiB: the work of every route grows with the store,
// never with what a request names. Each is checked before the route's
// handler runs (bounded), a request past one answered 400, or 413 when
// what it names is more than the viewer does at once.
const (
	// MaxIDBytes bounds each part of a path: the ids and numbers in it
	// (a session, a frame, a round, a line, an image).
	MaxIDBytes = 256
	// MaxParamBytes bounds a query parameter's value and a body's text
	// fields (a project's folder, a fidelity, an engagement, a split map).
	MaxParamBytes = 4096
	// MaxQueryWords bounds the words of a search (each is looked up in
	// the index, a prefix as up to 1,024 terms) and of a tag suggestion
	// (each word is a search of its own).
	MaxQueryWords = 32
	// MaxRequestRounds bounds the rounds a tag or untag names: they are
	// written in one transaction, which holds the store's writer (10,000
	// took 4 s, 5,000 2.5 s, and over 30 s under the race detector).
	MaxRequestRounds = 2_000
	// MaxBlocksFrom bounds where a page of a round's blocks may begin.
	MaxBlocksFrom = 1 << 30
)

// boundedBody is the fields of the bodies the caps read: those of
// [TagRequest], [SuggestRequest] and [SurgeryRequest].
type boundedBody struct {
	Rounds     []int  `json:"rounds"`
	Words      string `json:"words"`
	As         string `json:"as"`
	Session    string `json:"session"`
	Engagement string `json:"engagement"`
	Frame      string `json:"frame"`
	Fidelity   string `json:"fidelity"`
	Map        string `json:"map"`
	Rest       string `json:"rest"`
	Before     string `json:"before"`
}

// bounded answers r 400 or 413 and reports false when it asks for more
// than the caps let one request; a body it reads is put back for the
// handler.
func bounded(w http.ResponseWriter, r *http.Request) bool {
	refuse := func(status int, format string, args ...any) bool {
		writeJSON(w, status, &ErrorResponse{Error: fmt.Sprintf(format, args...)})
		return false
	}
	for _, v := range strings.Split(r.URL.Path, "/") {
		if len(v) > MaxIDBytes {
			return refuse(http.StatusBadRequest, "A part of the path is %d bytes long, more than %d.", len(v), MaxIDBytes)
		}
	}
	q := r.URL.Query()
	for name, values := range q {
		for _, v := range values {
			if len(v) > MaxParamBytes {
				return refuse(http.StatusBadRequest, "Parameter %s is %d bytes long, more than %d.", name, len(v), MaxParamBytes)
			}
		}
	}
	if n := len(strings.Fields(q.Get("q"))); n > MaxQueryWords {
		return refuse(http.StatusBadRequest, "A search of %d words: search for at most %d.", n, MaxQueryWords)
	}
	if v := q.Get("blocks_from"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > MaxBlocksFrom {
			return refuse(http.StatusBadRequest, "blocks_from %d: want at most %d.", n, MaxBlocksFrom)
		}
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return true
	}
	data, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil {
		return refuse(http.StatusRequestEntityTooLarge, "The request's body is more than %d bytes.", MaxBodyBytes)
	}
	var b boundedBody
	if json.Unmarshal(data, &b) != nil {
		return true // the handler says what is wrong with it
	}
	for name, v := range map[string]string{"words": b.Words, "as": b.As, "session": b.Session, "engagement": b.Engagement,
		"frame": b.Frame, "fidelity": b.Fidelity, "map": b.Map, "rest": b.Rest, "before": b.Before} {
		if len(v) > MaxParamBytes {
			return refuse(http.StatusBadRequest, "Field %s is %d bytes long, more than %d.", name, len(v), MaxParamBytes)
		}
	}
	if n := len(strings.Fields(b.Words)); n > MaxQueryWords {
		return refuse(http.StatusBadRequest, "Suggestions for %d words: give at most %d.", n, MaxQueryWords)
	}
	if len(b.Rounds) > MaxRequestRounds {
		return refuse(http.StatusRequestEntityTooLarge, "%d rounds in one request, more than the viewer writes at once (%d): use the CLI, cairn tag.", len(b.Rounds), MaxRequestRounds)
	}
	return true
}

// MaxEventStreams bounds the event streams open at once (a page open
// holds one for as long as it is open, and its connection): a stream
// beyond it closes the oldest, whose page opens it again a second later,
// so that streams never take every connection [Server.MaxConns] lets in.
const MaxEventStreams = 16

// streams are the open event streams' cancels, oldest first.
type streams struct {
	mu   sync.Mutex
	open []*context.CancelFunc
}

// add returns r with a context that ends when the stream is closed for a
// newer one, and the func that removes it once served.
func (st *streams) add(r *http.Request) (*http.Request, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	c := &cancel
	st.mu.Lock()
	st.open = append(st.open, c)
	var oldest *context.CancelFunc
	if len(st.open) > MaxEventStreams {
		oldest, st.open = st.open[0], st.open[1:]
	}
	st.mu.Unlock()
	if oldest != nil {
		(*oldest)()
	}
	return r.WithContext(ctx), func() {
		cancel()
		st.mu.Lock()
		st.open = slices.DeleteFunc(st.open, func(o *context.CancelFunc) bool { return o == c })
		st.mu.Unlock()
	}
}

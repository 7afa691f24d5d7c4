package http

import (
	"context"
	"fmt"
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

// bounded answers r 400 and reports false when its path or query asks for
// more than the caps let one request. A body's caps are checked where it
// is decoded, once, on the request type itself (readJSON, [capped]).
func bounded(w http.ResponseWriter, r *http.Request) bool {
	refuse := func(format string, args ...any) bool {
		writeJSON(w, http.StatusBadRequest, &ErrorResponse{Error: fmt.Sprintf(format, args...)})
		return false
	}
	for _, v := range strings.Split(r.URL.Path, "/") {
		if len(v) > MaxIDBytes {
			return refuse("A part of the path is %d bytes long, more than %d.", len(v), MaxIDBytes)
		}
	}
	q := r.URL.Query()
	for name, values := range q {
		for _, v := range values {
			if len(v) > MaxParamBytes {
				return refuse("Parameter %s is %d bytes long, more than %d.", name, len(v), MaxParamBytes)
			}
		}
	}
	if n := len(strings.Fields(q.Get("q"))); n > MaxQueryWords {
		return refuse("A search of %d words: search for at most %d.", n, MaxQueryWords)
	}
	if v := q.Get("blocks_from"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > MaxBlocksFrom {
			return refuse("blocks_from %d: want at most %d.", n, MaxBlocksFrom)
		}
	}
	return true
}

// A capped request body says whether it asks for more than the caps let
// one request; readJSON asks it once it is decoded.
type capped interface {
	caps() error
}

// A capError is a request past a cap, with the status it is answered:
// 400, or 413 when it names more than the viewer does at once.
type capError struct {
	status  int
	message string
}

func (e *capError) Error() string { return e.message }

func tooMuch(format string, args ...any) error {
	return &capError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// capFields checks a body's text fields, by their JSON names.
func capFields(fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if len(fields[i+1]) > MaxParamBytes {
			return tooMuch("Field %s is %d bytes long, more than %d.", fields[i], len(fields[i+1]), MaxParamBytes)
		}
	}
	return nil
}

func (r *TagRequest) caps() error {
	if err := capFields("engagement", r.Engagement, "frame", r.Frame); err != nil {
		return err
	}
	if len(r.Rounds) > MaxRequestRounds {
		return &capError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%d rounds in one request, more than the viewer writes at once (%d): use the CLI, cairn tag.", len(r.Rounds), MaxRequestRounds)}
	}
	return nil
}

func (r *SuggestRequest) caps() error {
	if err := capFields("words", r.Words, "as", r.As, "session", r.Session); err != nil {
		return err
	}
	if n := len(strings.Fields(r.Words)); n > MaxQueryWords {
		return tooMuch("Suggestions for %d words: give at most %d.", n, MaxQueryWords)
	}
	return nil
}

func (r *SurgeryRequest) caps() error {
	return capFields("fidelity", r.Fidelity, "map", r.Map, "rest", r.Rest, "engagement", r.Engagement, "before", r.Before)
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

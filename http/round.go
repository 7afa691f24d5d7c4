package http

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/surgery"
)

// PageSize is how many rounds one page of a session's timeline holds when
// the request does not say.
const PageSize = 200

func (s *Server) registerRoundRoutes() {
	s.mux.HandleFunc("GET /api/sessions/{id}/rounds", s.handleRounds)
	s.mux.HandleFunc("GET /api/sessions/{id}/rounds/{seq}", s.handleRound)
	s.mux.HandleFunc("GET /api/sessions/{id}/lines/{line}/images/{n}", s.handleImage)
	s.mux.HandleFunc("GET /api/sessions/{id}/lines/{line}/patch", s.handlePatch)
	s.mux.HandleFunc("GET /api/sessions/{id}/branches", s.handleBranches)
}

// A RoundLine is a round without its blocks, as one line of the timeline:
// the round (with its tool calls counted, tool_calls) and its index cell.
type RoundLine struct {
	*cairn.Round
	Roles string `json:"roles"`
	Index string `json:"index"` // tool calls, then the first words: the index line's last cell
}

// RoundsResponse is the body of GET /api/sessions/{id}/rounds: one page of
// the timeline. Next is the seq the next page starts at, -1 after the
// last page.
type RoundsResponse struct {
	SessionID string       `json:"session_id"`
	Rounds    []*RoundLine `json:"rounds"`
	Next      int          `json:"next"`
}

// handleRounds handles GET /api/sessions/{id}/rounds?from=SEQ&limit=N: the
// rounds from seq on, N of them (default [PageSize]).
func (s *Server) handleRounds(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	from, err := intParam(q.Get("from"), 0, 0, 1<<30)
	if err != nil {
		Error(w, r, err)
		return
	}
	limit, err := intParam(q.Get("limit"), PageSize, 1, 5000)
	if err != nil {
		Error(w, r, err)
		return
	}
	sess, err := s.Sessions.FindSessionByID(ctx, r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	// Seqs are consecutive, so a page is a seq range; fetch one more round
	// to learn whether another page follows.
	to := from + limit
	rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, FromSeq: from, ToSeq: to, ToolCalls: true})
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &RoundsResponse{SessionID: sess.ID, Rounds: []*RoundLine{}, Next: -1}
	for _, rd := range rounds {
		if rd.Seq >= to {
			resp.Next = to
			continue
		}
		resp.Rounds = append(resp.Rounds, &RoundLine{Round: rd, Roles: rd.Roles(), Index: export.Primary(rd)})
	}
	writeJSON(w, http.StatusOK, resp)
}

// RoundResponse is the body of GET /api/sessions/{id}/rounds/{seq}: one
// round with its blocks at the fidelity asked for, and those blocks cut
// into the round's prompt and its steps by [cairn.Steps], so the page and
// surgery agree on what a step is. Each block is sent once, in Blocks: the
// prompt is Blocks[:Prompt], a step names its run of them by index
// (BlockFrom, BlockTo), as a round's steps are consecutive runs of its
// blocks. Blocks and Steps are always arrays, empty for a round without
// blocks (round 0 often has none).
type RoundResponse struct {
	Round    *cairn.Round   `json:"round"`
	Fidelity string         `json:"fidelity"`
	Blocks   []*cairn.Block `json:"blocks"`
	Prompt   int            `json:"prompt"` // how many of Blocks come before the first step
	Steps    []*StepView    `json:"steps"`

	// A round's blocks come a page at a time (a message of a million
	// blocks must not make one response of hundreds of megabytes):
	// Blocks are blocks BlocksFrom.. of BlocksTotal, and NextBlocks,
	// when not 0, is the blocks_from of the next page.
	BlocksFrom  int `json:"blocks_from"`
	BlocksTotal int `json:"blocks_total"`
	NextBlocks  int `json:"next_blocks,omitempty"`
}

// A StepView is a step and where its blocks are in the response's Blocks:
// Blocks[BlockFrom:BlockTo], in round order, its assistant text and
// thinking, its tool calls and the results that answer them.
type StepView struct {
	*cairn.Step
	BlockFrom int `json:"block_from"`
	BlockTo   int `json:"block_to"`
}

// PromptBlocks returns the blocks of r's prompt.
func (r *RoundResponse) PromptBlocks() []*cairn.Block { return r.Blocks[:r.Prompt] }

// StepBlocks returns the blocks of r's step i (0-based).
func (r *RoundResponse) StepBlocks(i int) []*cairn.Block {
	return r.Blocks[r.Steps[i].BlockFrom:r.Steps[i].BlockTo]
}

// newRoundResponse cuts rd's blocks into its prompt and its steps, each a
// run of indexes into the blocks the response holds once.
func newRoundResponse(rd *cairn.Round, fid string) *RoundResponse {
	bare := *rd
	bare.Blocks = nil
	resp := &RoundResponse{Round: &bare, Fidelity: fid, Blocks: orEmpty(rd.Blocks), Steps: []*StepView{}}
	steps := cairn.Steps(rd.Blocks, rd.LastLine)
	resp.Prompt = len(rd.Blocks)
	at := 0
	for i, st := range steps {
		from := slices.Index(rd.Blocks[at:], st.Blocks[0]) + at
		if i == 0 {
			resp.Prompt = from
		}
		at = from + len(st.Blocks)
		resp.Steps = append(resp.Steps, &StepView{Step: st, BlockFrom: from, BlockTo: at})
	}
	return resp
}

// Limits of one page of a round's blocks: how many, and how many bytes of
// content. A single block longer than the byte limit is cut to it, marked.
// The store reads only the page's blocks, so a page costs about its bytes
// whatever the round's size.
const (
	MaxPageBlocks = 1000
	MaxPageBytes  = 2 << 20
)

// handleRound handles GET /api/sessions/{id}/rounds/{seq}?fidelity=…&blocks_from=N:
// the round with the page of its blocks that starts at the N'th. A
// fidelity applies to the page's blocks: a tool result whose call is on
// an earlier page stays when calls are left out.
func (s *Server) handleRound(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	seq, err := strconv.Atoi(r.PathValue("seq"))
	if err != nil || seq < 0 {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Round %q: want a round number.", r.PathValue("seq")))
		return
	}
	fid := r.URL.Query().Get("fidelity")
	render, err := fidelity(fid)
	if err != nil {
		Error(w, r, err)
		return
	}
	from := 0
	if v := r.URL.Query().Get("blocks_from"); v != "" {
		if from, err = strconv.Atoi(v); err != nil || from < 0 {
			Error(w, r, cairn.Errorf(cairn.EINVALID, "blocks_from %q: want a block index.", v))
			return
		}
	}
	sess, err := s.Sessions.FindSessionByID(ctx, r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	rd, total, err := s.Rounds.FindRoundPage(ctx, sess.ID, seq, cairn.BlockPage{From: from, Limit: MaxPageBlocks, Bytes: MaxPageBytes})
	if err != nil {
		Error(w, r, err)
		return
	}
	if fid == "" {
		fid = "full"
	}
	next := from + len(rd.Blocks)
	if len(rd.Blocks) == 0 || next >= total {
		next = 0
	}
	for i, b := range rd.Blocks {
		if b.Size > len(b.Content) {
			c := *b
			// The ellipsis right after the text, so that redaction drops
			// a secret the cut left part of (redact.MinCut).
			c.Content += fmt.Sprintf("…\n[cut: %d more bytes; `cairn show` prints the whole block]", b.Size-len(b.Content))
			rd.Blocks[i] = &c
		}
	}
	resp := newRoundResponse(render(rd), fid)
	resp.BlocksFrom, resp.BlocksTotal, resp.NextBlocks = min(from, total), total, next
	writeJSON(w, http.StatusOK, resp)
}

// fidelity returns what renders a round at the fidelity named by s: full
// (""), partial, text, or per kind, as --fidelity reads it.
func fidelity(s string) (func(*cairn.Round) *cairn.Round, error) {
	f, err := cairn.ParseFidelity(s)
	if err != nil {
		return nil, err
	}
	return func(r *cairn.Round) *cairn.Round { return surgery.Apply(r, f) }, nil
}

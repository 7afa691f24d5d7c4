package http

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"cairn"
	"cairn/assemble"
	"cairn/export"
	"cairn/surgery"
)

// An Exported is a session an action wrote for an agent to resume or, for
// a preview, would write (then without ID, Path and Resume).
type Exported struct {
	ID        string   `json:"id,omitempty"`
	Path      string   `json:"path,omitempty"`
	Operation string   `json:"operation"`
	Label     string   `json:"label,omitempty"` // a split child's engagement
	Parents   []string `json:"parents"`
	Full      int      `json:"full"`             // rounds in full
	Index     int      `json:"index"`            // rounds as index lines
	Resume    string   `json:"resume,omitempty"` // the command that resumes it

	// Tokens estimates what the session costs in the agent's context;
	// SourceTokens what the sessions it was cut from cost in full, by the
	// same estimate ([EstimateTokens]).
	Tokens       int `json:"tokens"`
	SourceTokens int `json:"source_tokens"`
	// Warning says why the action may not be worth it: nothing shrinks.
	Warning string `json:"warning,omitempty"`
	// Existing, in a preview, is the child already written from the same
	// rounds: writing again is refused.
	Existing string `json:"existing,omitempty"`
}

// ExportFunc writes a materialization as a session the agent's client
// resumes, registers it in the store with its lineage, and says where it
// is. cmd/cairn provides the Claude Code writer the CLI uses.
type ExportFunc func(ctx context.Context, m *cairn.Materialization) (*Exported, error)

func (s *Server) registerSurgeryRoutes() {
	s.mux.HandleFunc("POST /api/sessions/{id}/split", s.handleSplit)
	s.mux.HandleFunc("POST /api/sessions/{id}/extract", s.handleExtract)
	s.mux.HandleFunc("POST /api/sessions/{id}/revive", s.handleRevive)
}

func (s *Server) surgery() surgery.Store {
	return surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines, Engagements: s.Engagements}
}

// SurgeryRequest is the body of the surgical actions; each uses the
// fields its CLI command takes.
type SurgeryRequest struct {
	Fidelity string `json:"fidelity,omitempty"` // full (default), partial, text, or per kind

	// split: the map, as "cairn split" reads it ("5-9=console"); rounds
	// it leaves out go to Rest when set, else are shared.
	Map  string `json:"map,omitempty"`
	Rest string `json:"rest,omitempty"`

	// extract: the engagement; revive: the engagement to compress.
	Engagement string `json:"engagement,omitempty"`

	// revive: compress the rounds before this round number or time.
	Before string `json:"before,omitempty"`

	// Preview asks what the action would write, with its token estimate,
	// without writing anything.
	Preview bool `json:"preview,omitempty"`
}

// SurgeryResponse lists the sessions an action wrote, or would write.
type SurgeryResponse struct {
	Preview bool        `json:"preview,omitempty"`
	Results []*Exported `json:"results"`
}

// handleSplit handles POST /api/sessions/{id}/split, as "cairn split":
// one child session per engagement of the map.
func (s *Server) handleSplit(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		sm, err := surgery.ParseSplitMap(req.Map)
		if err != nil {
			return nil, err
		}
		if req.Rest != "" {
			sess, err := s.Sessions.FindSessionByID(ctx, id)
			if err != nil {
				return nil, err
			}
			rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, FromSeq: 1})
			if err != nil {
				return nil, err
			}
			for _, rd := range rounds {
				if _, ok := sm[rd.Seq]; !ok {
					sm[rd.Seq] = req.Rest
				}
			}
		}
		return surgery.Split(ctx, s.surgery(), id, sm, f)
	})
}

// handleExtract handles POST /api/sessions/{id}/extract, as "cairn
// extract-engagement": the engagement's rounds in full.
func (s *Server) handleExtract(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		if req.Engagement == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "Name the engagement to extract.")
		}
		m, err := surgery.ExtractEngagement(ctx, s.surgery(), id, req.Engagement, f)
		return []*cairn.Materialization{m}, err
	})
}

// handleRevive handles POST /api/sessions/{id}/revive, as "cairn revive":
// older work compressed, a session to resume.
func (s *Server) handleRevive(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		m, err := surgery.Revive(ctx, s.surgery(), id, req.Before, req.Engagement, f)
		return []*cairn.Materialization{m}, err
	})
}

// surgical reads a surgery request, runs op and exports what it made, or
// with preview says what it would write. An action whose output is a child
// this server already wrote from the same rounds, and that is still in the
// store, is refused: clicking twice does not make two children.
func (s *Server) surgical(w http.ResponseWriter, r *http.Request, op func(context.Context, string, *SurgeryRequest, cairn.Fidelity) ([]*cairn.Materialization, error)) {
	ctx := r.Context()
	var req SurgeryRequest
	if err := readJSON(r, &req); err != nil {
		Error(w, r, err)
		return
	}
	f, err := cairn.ParseFidelity(req.Fidelity)
	if err != nil {
		Error(w, r, err)
		return
	}
	ms, err := op(ctx, r.PathValue("id"), &req, f)
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &SurgeryResponse{Preview: req.Preview, Results: []*Exported{}}
	keys := make([]string, len(ms))
	figures := make([]*Exported, len(ms))
	for i, m := range ms {
		keys[i] = materializationKey(m)
		id := s.writtenAs(ctx, keys[i])
		if id != "" && !req.Preview {
			Error(w, r, cairn.Errorf(cairn.ECONFLICT, "Session %s is already this %s: the same rounds at the same fidelity. Open it, or change the selection.", id, m.Operation))
			return
		}
		if figures[i], err = s.figures(ctx, m); err != nil {
			Error(w, r, err)
			return
		}
		figures[i].Existing = id
	}
	if req.Preview {
		resp.Results = figures
		writeJSON(w, http.StatusOK, resp)
		return
	}
	if s.Export == nil {
		Error(w, r, cairn.Errorf(cairn.EINTERNAL, "No exporter configured."))
		return
	}
	for i, m := range ms {
		e, err := s.Export(ctx, m)
		if err != nil {
			Error(w, r, err)
			return
		}
		e.Operation, e.Label, e.Full, e.Index = m.Operation, m.Label, len(m.FullPieces()), len(m.IndexRounds())
		e.Tokens, e.SourceTokens, e.Warning = figures[i].Tokens, figures[i].SourceTokens, figures[i].Warning
		s.remember(keys[i], e.ID)
		if err := s.labelChild(ctx, e.ID, m); err != nil {
			Error(w, r, err)
			return
		}
		resp.Results = append(resp.Results, e)
	}
	writeJSON(w, http.StatusOK, resp)
}

// figures says what m would write: its rounds in full and as index lines,
// its token estimate against its sources' in full, and a warning when
// nothing shrinks.
func (s *Server) figures(ctx context.Context, m *cairn.Materialization) (*Exported, error) {
	e := &Exported{Operation: m.Operation, Label: m.Label, Full: len(m.FullPieces()), Index: len(m.IndexRounds()), Parents: []string{}}
	for _, p := range m.Pieces {
		if p.Full {
			e.Tokens += EstimateTokens(p.Round.Blocks...)
		} else {
			e.Tokens += EstimateText(export.Primary(p.Round))
		}
	}
	for _, src := range m.Sources {
		e.Parents = append(e.Parents, src.ID)
		rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: src.ID, WithBlocks: true})
		if err != nil {
			return nil, err
		}
		for _, rd := range rounds {
			e.SourceTokens += EstimateTokens(rd.Blocks...)
		}
	}
	if e.Index == 0 && e.Tokens >= e.SourceTokens*9/10 {
		e.Warning = fmt.Sprintf("Nothing would shrink: all %d rounds stay in full (about %d tokens, %d%% of the session).", e.Full, e.Tokens, percent(e.Tokens, e.SourceTokens))
	}
	return e, nil
}

func percent(a, b int) int {
	if b == 0 {
		return 100
	}
	return a * 100 / b
}

// EstimateTokens estimates what blocks cost in an agent's context.
//
// It is the viewer's one token estimate, for surgery's previews: today
// assemble's four-bytes-a-token rule over the blocks' text. When the CLI's
// surgery estimate lands, point this function at it, so the page and the
// CLI show the same figures.
func EstimateTokens(blocks ...*cairn.Block) int {
	n := 0
	for _, b := range blocks {
		n += assemble.Estimate.Count(b.Content)
	}
	return n
}

// EstimateText is [EstimateTokens] for a text, such as an index line.
func EstimateText(text string) int { return assemble.Estimate.Count(text) }

// materializationKey identifies what m would write: the operation, its
// label, fidelity and sources, and each round with how it is kept, up to
// the source's last line (a session that grew makes a different child).
func materializationKey(m *cairn.Materialization) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%+v\n", m.Operation, m.Label, m.Fidelity)
	for _, src := range m.Sources {
		fmt.Fprintf(h, "%s %d\n", src.ID, src.Lines)
	}
	for _, p := range m.Pieces {
		fmt.Fprintf(h, "%s %d %v %d\n", p.Round.SessionID, p.Round.Seq, p.Full, p.Round.LastLine)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writtenAs returns the session this server wrote for key, if it is still
// in the store.
func (s *Server) writtenAs(ctx context.Context, key string) string {
	s.mu.Lock()
	id := s.written[key]
	s.mu.Unlock()
	if id == "" {
		return ""
	}
	if _, err := s.Sessions.FindSessionByID(ctx, id); err != nil {
		return ""
	}
	return id
}

func (s *Server) remember(key, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == nil {
		s.written = map[string]string{}
	}
	s.written[key] = id
}

// labelChild tags the rounds of a split or extracted child with the
// engagement they were cut as, so the child is labelled in lists and
// lineage like the rounds it came from.
func (s *Server) labelChild(ctx context.Context, id string, m *cairn.Materialization) error {
	label := m.Label
	if label == "" && m.Operation == cairn.OpExtractEngagement && len(m.Args) > 0 {
		label = m.Args[len(m.Args)-1]
	}
	if label == "" || s.Tags == nil {
		return nil
	}
	rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, FromSeq: 1})
	if err != nil || len(rounds) == 0 {
		return err
	}
	seqs := make([]int, len(rounds))
	for i, rd := range rounds {
		seqs[i] = rd.Seq
	}
	return s.Tags.TagRounds(ctx, id, seqs, label, "")
}

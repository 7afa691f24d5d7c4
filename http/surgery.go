package http

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
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

	// Plan says which rounds go where, for a preview to say in words:
	// its numbers read as in the source session.
	Plan *Plan `json:"plan,omitempty"`

	// Tokens is [surgery.Estimate] of the very materialization the action
	// writes: the tokens the client sends when it resumes it, the figure
	// the CLI prints as "size". Budget is what it was fitted in (the CLI's
	// default: half the model's window) and Percent Tokens of it.
	Tokens  int64 `json:"tokens"`
	Budget  int64 `json:"budget"`
	Percent int64 `json:"percent"`
	// BudgetRule says how the default budget was set, in the words the
	// CLI's help and advise use ([surgery.BudgetRule]).
	BudgetRule string `json:"budget_rule"`
	// SourceTokens is what the client loads for the source session today,
	// by the same estimate ([surgery.Resume]; a merge's sources summed).
	SourceTokens int64 `json:"source_tokens"`
	// Warning says why the action may not be worth it: nothing shrinks.
	Warning string `json:"warning,omitempty"`
	// Existing, in a preview, is the child already in the store with the
	// same recipe ([cairn.Materialization.Recipe]), whoever wrote it, and
	// ExistingResume the command that resumes it: writing again is
	// refused.
	Existing       string `json:"existing,omitempty"`
	ExistingResume string `json:"existing_resume,omitempty"`
}

// A Plan is what an action keeps of its source's rounds: whole, in part
// (the prompt and the last steps, the steps before them as index lines),
// as one index line each, in runs the budget could not give a line each
// (Dropped of them), and how many the source has, so that what is left
// out is the rest. Ledger counts what is kept verbatim whatever the
// budget does (prompts, the latest todo list, errors, files changed).
type Plan struct {
	Whole        []int          `json:"whole"`
	Part         []int          `json:"part"`
	Indexed      []int          `json:"indexed"`
	Dropped      int            `json:"dropped,omitempty"`
	SourceRounds int            `json:"source_rounds"`
	Ledger       int            `json:"ledger,omitempty"`
	Fidelity     cairn.Fidelity `json:"fidelity"`
}

// planOf reads m's plan, but for SourceRounds.
func planOf(m *cairn.Materialization) *Plan {
	p := &Plan{Whole: []int{}, Part: []int{}, Indexed: []int{}, Dropped: m.Dropped, Ledger: len(m.Ledger), Fidelity: m.Fidelity}
	for _, pc := range m.Pieces {
		switch {
		case !pc.Full:
			p.Indexed = append(p.Indexed, pc.Round.Seq)
		case len(pc.Keep) > 0:
			p.Part = append(p.Part, pc.Round.Seq)
		default:
			p.Whole = append(p.Whole, pc.Round.Seq)
		}
	}
	return p
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

// surgery is the store the actions cut from, set as the CLI's surgical
// commands set it when they write a session (claude or codex): lines only,
// fitted in the default budget, half the model's window, off-path lines
// left out.
func (s *Server) surgery() surgery.Store {
	return surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines, Engagements: s.Engagements,
		LinesOnly: true, Limits: surgery.Limits{Budget: surgery.AutoBudget}, OffPath: s.OffPath}
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
// with preview says what it would write. An action whose output has the
// recipe of a child already in the store (written by this server, another
// one or the CLI) is refused: clicking twice does not make two children.
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
	if s.tooLarge(w, r, "cuts", "cairn split, extract-engagement or revive") {
		return
	}
	ms, err := op(ctx, r.PathValue("id"), &req, f)
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &SurgeryResponse{Preview: req.Preview, Results: []*Exported{}}
	figures := make([]*Exported, len(ms))
	loaded := map[string]int64{}
	for i, m := range ms {
		if figures[i], err = s.figures(ctx, m, loaded); err != nil {
			Error(w, r, err)
			return
		}
		if e := figures[i]; e.Existing != "" && !req.Preview {
			Error(w, r, cairn.Errorf(cairn.ECONFLICT, "Session %s is already this %s: the same cut of the same rounds at the same fidelity and budget. Resume it: %s",
				e.Existing, m.Operation, e.ExistingResume))
			return
		}
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
		fg := figures[i]
		e.Operation, e.Label, e.Full, e.Index = m.Operation, m.Label, fg.Full, fg.Index
		e.Tokens, e.Budget, e.Percent, e.SourceTokens, e.Warning, e.BudgetRule, e.Plan = fg.Tokens, fg.Budget, fg.Percent, fg.SourceTokens, fg.Warning, fg.BudgetRule, fg.Plan
		if err := s.labelChild(ctx, e.ID, m); err != nil {
			Error(w, r, err)
			return
		}
		resp.Results = append(resp.Results, e)
	}
	writeJSON(w, http.StatusOK, resp)
}

// figures says what m would write: its rounds in full and as index lines,
// [surgery.Estimate] of it against its budget and against what the client
// loads for its sources today (loaded caches those by session), a warning
// when nothing shrinks, and the child already written with its recipe.
func (s *Server) figures(ctx context.Context, m *cairn.Materialization, loaded map[string]int64) (*Exported, error) {
	e := &Exported{Operation: m.Operation, Label: m.Label, Full: len(m.FullPieces()), Index: len(m.IndexRounds()), Parents: []string{},
		Tokens: surgery.Estimate(m), Budget: m.Budget, BudgetRule: surgery.BudgetRule, Plan: planOf(m)}
	if e.Budget > 0 {
		e.Percent = 100 * e.Tokens / e.Budget
	}
	for _, src := range m.Sources {
		e.Parents = append(e.Parents, src.ID)
		sess, err := s.Sessions.FindSessionByID(ctx, src.ID)
		if err != nil {
			return nil, err
		}
		e.Plan.SourceRounds += sess.Rounds
		n, ok := loaded[src.ID]
		if !ok {
			orig, err := surgery.Resume(ctx, s.surgery(), src.ID)
			if err != nil {
				return nil, err
			}
			n = surgery.Estimate(orig)
			loaded[src.ID] = n
		}
		e.SourceTokens += n
	}
	if e.Tokens >= e.SourceTokens {
		e.Warning = fmt.Sprintf("Nothing would shrink: ~%d tokens, and the client loads ~%d for the session as it is today (%d rounds in full, %d as index lines).",
			e.Tokens, e.SourceTokens, e.Full, e.Index)
	}
	found, _, err := s.Sessions.FindSessions(ctx, cairn.SessionFilter{Recipe: m.Recipe(), Subagents: true, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(found) > 0 {
		e.Existing, e.ExistingResume = found[0].ID, s.resumeCommand(found[0])
	}
	return e, nil
}

// resumeCommand returns the command that resumes a stored session.
func (s *Server) resumeCommand(sess *cairn.Session) string {
	if s.Resume != nil {
		return s.Resume(sess)
	}
	return "claude --resume " + sess.ID
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

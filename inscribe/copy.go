package inscribe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/cairn-dev/cairn"
)

// A FullStore is a whole store as [Copy] reads and writes it.
type FullStore interface {
	cairn.SessionStore
	cairn.InscriptionStore
	cairn.LineStore
}

// A CopyReport gives the figures of a [Copy].
type CopyReport struct {
	Sessions    int   `json:"sessions"`    // sessions in the source
	Copied      int   `json:"copied"`      // sessions written to the target
	Unchanged   int   `json:"unchanged"`   // sessions the target already held, byte for byte
	Generations int   `json:"generations"` // generations of lines copied
	Lines       int   `json:"lines"`       // lines of every generation, copied or already there
	Bytes       int64 `json:"bytes"`       // their raw bytes
	Verified    int   `json:"verified"`    // lines whose SHA-256 matched in the target
	Rounds      int   `json:"rounds"`      // rounds the target indexes
	Redacted    int   `json:"redacted"`    // lines whose secrets were replaced (CopyRedacted)
}

// Copy copies every session of src into dst: its lineage, every line of
// every generation with its raw bytes, and its source position, then
// rebuilds the index of its current generation with the session agent's
// format. A session dst already holds at the same position is left alone
// and one stopped between generations is carried on, so an interrupted
// copy can be run again. Afterwards every line of every
// copied session is verified by comparing SHA-256 hashes of its raw bytes
// in src and dst. Returns ECONFLICT if dst holds a session at a different
// position and EINVALID for a session of an agent formats does not know.
func Copy(ctx context.Context, src, dst FullStore, formats map[string]cairn.Transcript, progress func(done, total int)) (*CopyReport, error) {
	return CopyRedacted(ctx, src, dst, formats, nil, progress)
}

// CopyRedacted is [Copy] with every line passed through redact (when not
// nil) on its way into dst, as a shared store should receive it: dst
// holds the redacted lines and an index built from them, and is verified
// against them; the source position is copied as it is, since it
// describes the transcript file, so later imports into dst carry on.
func CopyRedacted(ctx context.Context, src, dst FullStore, formats map[string]cairn.Transcript, redact func([]byte) []byte, progress func(done, total int)) (*CopyReport, error) {
	sessions, _, err := src.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		return nil, err
	}
	rep := &CopyReport{Sessions: len(sessions)}
	for i, sess := range sessions {
		if err := copySession(ctx, src, dst, formats, redact, sess, rep); err != nil {
			return rep, fmt.Errorf("copy %s: %w", sess.ID, err)
		}
		if progress != nil {
			progress(i+1, len(sessions))
		}
	}
	return rep, nil
}

func copySession(ctx context.Context, src, dst FullStore, formats map[string]cairn.Transcript, redact func([]byte) []byte, sess *cairn.Session, rep *CopyReport) error {
	pos, err := src.FindSource(ctx, sess.ID)
	if err != nil {
		return err
	}
	lines, err := src.FindAllLines(ctx, sess.ID)
	if err != nil {
		return err
	}
	for i, l := range lines {
		rep.Lines++
		rep.Bytes += int64(len(l.Raw))
		if redact != nil {
			if raw := redact(l.Raw); !bytes.Equal(raw, l.Raw) {
				c := *l
				c.Raw = raw
				lines[i] = &c
				rep.Redacted++
			}
		}
	}
	// done is the last generation dst already holds whole: a copy stopped
	// between the generations of a session carries on after it.
	done := -1
	have, err := dst.FindSource(ctx, sess.ID)
	switch {
	case err == nil && samePosition(have, pos):
		rep.Unchanged++
		return verify(ctx, dst, sess.ID, lines, rep)
	case err == nil && have.Generation < pos.Generation:
		done = have.Generation
	case err == nil:
		return cairn.Errorf(cairn.ECONFLICT, "The target already holds session %s at another position (generation %d, %d bytes; the source has generation %d, %d bytes).",
			sess.ID, have.Generation, have.Offset, pos.Generation, pos.Offset)
	case cairn.ErrorCode(err) != cairn.ENOTFOUND:
		return err
	}
	format := formats[sess.Agent]
	if format == nil {
		return cairn.Errorf(cairn.EINVALID, "Session %s is from %q, a format this cairn cannot index.", sess.ID, sess.Agent)
	}

	// Older generations first, lines only; each starts a generation.
	identity := *sess
	var current []*cairn.Line
	for start := 0; start < len(lines); {
		gen := lines[start].Generation
		end := start
		for end < len(lines) && lines[end].Generation == gen {
			end++
		}
		part := lines[start:end]
		start = end
		rep.Generations++
		if gen <= done {
			continue
		} else if gen == pos.Generation {
			current = part
			continue
		}
		in := &cairn.Inscription{Session: &identity, Reset: true, Lines: part,
			Source: cairn.Source{SessionID: sess.ID, Path: pos.Path, Generation: gen, Lines: len(part)}}
		if err := dst.Inscribe(ctx, in); err != nil {
			return err
		}
	}

	// The current generation with its index, rebuilt as reindex would,
	// and the source position, so the next import carries on from it.
	in, err := Rebuild(format)(&identity, current)
	if err != nil {
		return err
	}
	in.Source, in.Reset = *pos, true
	if err := dst.Inscribe(ctx, in); err != nil {
		return err
	}
	if len(sess.Parents) > 0 || sess.Operation != "" {
		if err := dst.SetLineage(ctx, sess.ID, sess.Lineage, sess.Parents, sess.Operation, sess.Recipe); err != nil {
			return err
		}
	}
	rep.Copied++
	return verify(ctx, dst, sess.ID, lines, rep)
}

func samePosition(a, b *cairn.Source) bool {
	return a.Generation == b.Generation && a.Offset == b.Offset && a.Lines == b.Lines &&
		bytes.Equal(a.HeadHash, b.HeadHash) && bytes.Equal(a.TailHash, b.TailHash) && bytes.Equal(a.Sum, b.Sum)
}

// verify compares the hash of every line dst holds for a session with the
// lines read from the source.
func verify(ctx context.Context, dst FullStore, id string, want []*cairn.Line, rep *CopyReport) error {
	got, err := dst.FindAllLines(ctx, id)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("verify: the target holds %d lines, the source %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Generation != w.Generation || g.No != w.No || sha256.Sum256(g.Raw) != sha256.Sum256(w.Raw) {
			return fmt.Errorf("verify: generation %d line %d differs from the source", w.Generation, w.No)
		}
		rep.Verified++
	}
	if s, err := dst.FindSessionByID(ctx, id); err == nil {
		rep.Rounds += s.Rounds
	}
	return nil
}

// A TaskStore is the task side of a store: frames, the tags of rounds,
// the mission and its phases.
type TaskStore interface {
	cairn.FrameStore
	cairn.MissionStore
	cairn.RoundStore
	cairn.TagStore
	cairn.SessionStore
}

// A TaskReport gives the figures of a [CopyTasks].
type TaskReport struct {
	Frames     int  `json:"frames"`      // frames copied
	FrameTags  int  `json:"frame_tags"`  // rounds tagged with a frame
	Engaged    int  `json:"engaged"`     // rounds tagged with an engagement
	Phases     int  `json:"phases"`      // mission phases copied
	HadMission bool `json:"had_mission"` // whether the source has a mission
	// EngagementPhases counts the engagement phases copied (set by the
	// caller of [CopyEngagementPhases]).
	EngagementPhases int `json:"engagement_phases"`
}

// CopyTasks copies the frame tree, the frame and engagement tags of rounds
// and the mission with its phases from src into dst, after [Copy] copied
// the sessions. Frames dst already holds (by ID) and phases it already has are
// left alone, so it can be run again; a copied frame starts again at
// version 1.
func CopyTasks(ctx context.Context, src, dst TaskStore) (*TaskReport, error) {
	rep := &TaskReport{}
	frames, err := src.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range frames { // in creation order: parents first
		if _, err := dst.FindFrameByID(ctx, f.ID); err == nil {
			continue
		} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
			return rep, err
		}
		if err := dst.ApplyFrameChange(ctx, &cairn.FrameChange{Create: []*cairn.Frame{f}}); err != nil {
			return rep, fmt.Errorf("frame %s: %w", f.ID, err)
		}
		rep.Frames++
	}
	for _, f := range frames {
		rounds, err := src.FindRounds(ctx, cairn.RoundFilter{FrameID: f.ID})
		if err != nil {
			return rep, err
		}
		refs := make([]cairn.RoundRef, len(rounds))
		for i, r := range rounds {
			refs[i] = cairn.RoundRef{SessionID: r.SessionID, Seq: r.Seq}
		}
		if err := dst.TagFrameRounds(ctx, f.ID, refs); err != nil {
			return rep, err
		}
		rep.FrameTags += len(refs)
	}
	sessions, _, err := src.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		return rep, err
	}
	for _, sess := range sessions {
		rounds, err := src.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, Tagged: true})
		if err != nil {
			return rep, err
		}
		for _, r := range rounds {
			if err := dst.TagRounds(ctx, r.SessionID, []int{r.Seq}, r.EngagementID, r.FrameID); err != nil {
				return rep, fmt.Errorf("tag %s round %d: %w", r.SessionID, r.Seq, err)
			}
			rep.Engaged++
		}
	}

	m, err := src.FindMission(ctx)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return rep, nil
	} else if err != nil {
		return rep, err
	}
	rep.HadMission = true
	if _, err := dst.FindMission(ctx); cairn.ErrorCode(err) == cairn.ENOTFOUND {
		if err := dst.SetMission(ctx, m); err != nil {
			return rep, err
		}
	} else if err != nil {
		return rep, err
	}
	phases, err := src.FindPhases(ctx)
	if err != nil {
		return rep, err
	}
	for _, p := range phases {
		if err := dst.AddPhase(ctx, p); cairn.ErrorCode(err) == cairn.ECONFLICT {
			continue
		} else if err != nil {
			return rep, err
		}
		rep.Phases++
	}
	return rep, nil
}

// CopyEngagementPhases copies every engagement's phases from src into dst,
// replacing those dst has for the same engagements (the workspace file is
// their source either way), and returns how many it copied.
func CopyEngagementPhases(ctx context.Context, src, dst cairn.EngagementStore) (int, error) {
	phases, err := src.FindEngagementPhases(ctx, "")
	if err != nil {
		return 0, err
	}
	byID := map[string][]cairn.EngagementPhase{}
	var ids []string
	for _, p := range phases {
		if _, ok := byID[p.EngagementID]; !ok {
			ids = append(ids, p.EngagementID)
		}
		byID[p.EngagementID] = append(byID[p.EngagementID], p)
	}
	for _, id := range ids {
		if err := dst.SetEngagementPhases(ctx, id, byID[id]); err != nil {
			return 0, fmt.Errorf("engagement %s: %w", id, err)
		}
	}
	return len(phases), nil
}

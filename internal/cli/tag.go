package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runTag(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "suggest" {
		return m.runTagSuggest(ctx, args[1:])
	}
	var sf storeFlags
	fs := m.newFlagSet("tag", "[flags] ENGAGEMENT SESSION ROUNDS", `
Tag rounds with an engagement (a workstream). Tags live in the store's index,
never in the transcripts, and can be changed at any time. ROUNDS is numbers
and ranges: 3,5-9.

  cairn tag console-work 5c0375b4 3,5-9
  cairn tag suggest "console work"        # full-text candidates; --apply tags them
  cairn tag --window surgery/merge        # rounds inside a phase's window; --apply tags them

--window ENGAGEMENT[/PHASE] lists the rounds of every session (or
--session's) that started inside the engagement's recorded phase windows
(cairn engagement phase; the windows of .cairn/engagement.md), for review;
--apply tags them with ENGAGEMENT. Rounds tagged with another engagement
are listed and left alone unless --retag.
  cairn untag 5c0375b4 7
  cairn rounds --engagement console-work  # the engagement across sessions
  cairn matrix                            # engagement × agent`)
	sf.register(fs, false)
	frame := fs.String("frame", "", "also record this frame id on the rounds")
	window := fs.String("window", "", "ENGAGEMENT[/PHASE]: the rounds inside its recorded phase windows")
	apply := fs.Bool("apply", false, "--window: tag the candidates")
	retag := fs.Bool("retag", false, "--window: also take rounds tagged with another engagement")
	session := fs.String("session", "", "--window: only this session")
	asJSON := fs.Bool("json", false, "--window: print JSON")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if *window != "" {
		if len(pos) != 0 {
			fs.Usage()
			return usageError("tag --window ENGAGEMENT[/PHASE] takes no other arguments")
		}
		return m.tagWindow(ctx, sf.store, *window, *session, *frame, *apply, *retag, *asJSON)
	}
	if len(pos) != 3 {
		fs.Usage()
		return usageError("tag takes ENGAGEMENT, SESSION and ROUNDS (or: tag suggest WORDS)")
	}
	return m.onRounds(ctx, sf.store, pos[1], pos[2], func(st *store, sess *cairn.Session, seqs []int) error {
		if err := st.tags.TagRounds(ctx, sess.ID, seqs, pos[0], *frame); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "tagged %s rounds %s as %s\n", sess.ID, surgery.Ranges(seqs), pos[0])
		return nil
	})
}

// onRounds runs fn on the rounds named by spec (3,5-9) of the session
// named by ref.
func (m *Main) onRounds(ctx context.Context, storeFlag, ref, spec string, fn func(st *store, sess *cairn.Session, seqs []int) error) error {
	seqs, err := surgery.ParseRounds(spec)
	if err != nil {
		return err
	}
	st, err := m.openStore(storeFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	sess, err := st.sessions.FindSessionByID(ctx, ref)
	if err != nil {
		return err
	}
	return fn(st, sess, seqs)
}

func (m *Main) runUntag(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("untag", "[flags] SESSION ROUNDS", `
Clear the engagement of rounds (ROUNDS: 3,5-9). Their frame stays.

  cairn untag 5c0375b4 7`)
	sf.register(fs, false)
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("untag takes SESSION and ROUNDS")
	}
	return m.onRounds(ctx, sf.store, pos[0], pos[1], func(st *store, sess *cairn.Session, seqs []int) error {
		if err := st.tags.UntagRounds(ctx, sess.ID, seqs); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "untagged %s rounds %s\n", sess.ID, surgery.Ranges(seqs))
		return nil
	})
}

func (m *Main) runTagSuggest(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("tag suggest", "[flags] WORDS", `
List rounds whose user or assistant text matches any of WORDS, best first,
as candidates for an engagement; review them, then run again with --apply to
tag them (or tag a chosen few with "cairn tag"). The engagement is --as, by
default WORDS joined with '-': "console work" → console-work.

  cairn tag suggest "console work"
  cairn tag suggest --session 5c0375b4 --apply "console work"`)
	sf.register(fs, true)
	as := fs.String("as", "", "engagement id (default: WORDS joined with '-')")
	session := fs.String("session", "", "only this session")
	limit := fs.Int("limit", 50, "at most this many candidates")
	apply := fs.Bool("apply", false, "tag the candidates")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		fs.Usage()
		return usageError("tag suggest takes WORDS")
	}
	query := strings.Join(pos, " ")
	words := strings.Fields(query)
	id := *as
	if id == "" {
		id = surgery.EngagementID(query)
	}
	open := m.readStore
	if *apply {
		open = m.openStore
	}
	st, err := open(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sessionID := ""
	if *session != "" {
		sess, err := st.sessions.FindSessionByID(ctx, *session)
		if err != nil {
			return err
		}
		sessionID = sess.ID
	}
	cands, err := surgery.Suggest(ctx, st.searcher, query, sessionID, *limit)
	if err != nil {
		return err
	}
	if *apply {
		bySession := map[string][]int{}
		for _, c := range cands {
			bySession[c.Hit.SessionID] = append(bySession[c.Hit.SessionID], c.Hit.RoundSeq)
		}
		for sid, seqs := range bySession {
			if err := st.tags.TagRounds(ctx, sid, seqs, id, ""); err != nil {
				return err
			}
		}
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"engagement": id, "applied": *apply, "candidates": cands})
	}
	if len(cands) == 0 {
		fmt.Fprintf(m.Stdout, "No round mentions %q.\n", query)
		return nil
	}
	for _, c := range cands {
		snippet := strings.NewReplacer(cairn.HighlightStart, "»", cairn.HighlightEnd, "«", "\n", " ").Replace(c.Hit.Snippet)
		fmt.Fprintf(m.Stdout, "%s  %03d  %d/%d  %s\n", c.Hit.SessionID, c.Hit.RoundSeq, c.Matched, len(words), snippet)
	}
	if *apply {
		fmt.Fprintf(m.Stdout, "\ntagged %d rounds as %s\n", len(cands), id)
	} else {
		fmt.Fprintf(m.Stdout, "\n%d candidates for %s. Review them, then: cairn tag suggest --apply", len(cands), id)
		if *as != "" {
			fmt.Fprintf(m.Stdout, " --as %s", id)
		}
		if *session != "" {
			fmt.Fprintf(m.Stdout, " --session %s", *session)
		}
		fmt.Fprintf(m.Stdout, " %q\n", query)
	}
	return nil
}

// tagWindow lists, and with apply tags, the rounds inside an engagement's
// phase windows.
func (m *Main) tagWindow(ctx context.Context, storeFlag, spec, session, frame string, apply, retag, asJSON bool) error {
	st, err := m.openStore(storeFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	sessionID := ""
	if session != "" {
		sess, err := st.sessions.FindSessionByID(ctx, session)
		if err != nil {
			return err
		}
		sessionID = sess.ID
	}
	id, cands, err := surgery.WindowRounds(ctx, st.rounds, st.engagements, spec, sessionID)
	if err != nil {
		return err
	}
	bySession := map[string][]int{}
	var order []string
	taken, kept := 0, 0
	for _, c := range cands {
		if c.Tagged != "" && c.Tagged != id && !retag {
			kept++
			continue
		}
		if _, ok := bySession[c.Round.SessionID]; !ok {
			order = append(order, c.Round.SessionID)
		}
		bySession[c.Round.SessionID] = append(bySession[c.Round.SessionID], c.Round.Seq)
		taken++
	}
	if apply {
		for _, sid := range order {
			if err := st.tags.TagRounds(ctx, sid, bySession[sid], id, frame); err != nil {
				return err
			}
		}
	}
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"engagement": id, "window": spec, "applied": apply,
			"candidates": orEmpty(cands), "taken": taken, "kept": kept})
	}
	if len(cands) == 0 {
		fmt.Fprintf(m.Stdout, "No round started inside the windows of %s.\n", spec)
		return nil
	}
	for _, c := range cands {
		note := ""
		switch {
		case c.Tagged == id:
			note = "  (already " + id + ")"
		case c.Tagged != "" && !retag:
			note = "  (tagged " + c.Tagged + ": left alone; --retag takes it)"
		case c.Tagged != "":
			note = "  (was " + c.Tagged + ")"
		}
		fmt.Fprintf(m.Stdout, "%s  %03d  %s  %s  %s%s\n", c.Round.SessionID, c.Round.Seq, c.Round.StartedAt.UTC().Format("2006-01-02T15:04Z"),
			c.Phase.Key(nil), clipLine(c.Round.UserPreview, 60), note)
	}
	if apply {
		fmt.Fprintf(m.Stdout, "\ntagged %d rounds as %s\n", taken, id)
	} else {
		fmt.Fprintf(m.Stdout, "\n%d candidates for %s inside %s. Review them, then: cairn tag --window %s --apply", taken, id, spec, spec)
		if session != "" {
			fmt.Fprintf(m.Stdout, " --session %s", session)
		}
		if retag {
			fmt.Fprint(m.Stdout, " --retag")
		}
		fmt.Fprintln(m.Stdout)
	}
	return nil
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runEngagement(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("engagement", "start ID [--phase NAME] [--note TEXT] | phase NAME | stop | show | list", `
The engagement state, .cairn/engagement.md: which workstream is active,
its phases and where it stands, readable by any actor that enters the
workspace. Rounds recorded while an engagement is active are tagged with
its ID.

An engagement moves through named phases: it starts in one ("start"
unless --phase names it), "phase NAME" records a transition now, and
stopping ends the last. The phases are the time windows of the matrix's
rows (cairn matrix) and of retroactive tagging (cairn tag --window).
They are kept in the file, which you may edit ("- TIME NAME" lines under
"## Phases", oldest first), and mirrored into the store on every command
here, so a team's shared store sees them.

  start ID   make ID the active engagement; on the active one, add --note
             (and with --phase, record a transition)
  phase NAME record the active engagement's transition to phase NAME
  stop       end the active engagement (and its last phase)
  show       print it, with its phases
  list       every engagement the file records, with its phases

Examples:
  cairn engagement start surgery --note "compress-before first, then merge"
  cairn engagement phase merge
  cairn engagement start surgery --note "compress-before done"
  cairn engagement show
  cairn engagement list --json
  cairn engagement stop`)
	wf.register(fs)
	note := fs.String("note", "", "start: a note on where the work stands")
	phase := fs.String("phase", "", "start: the first phase's name (default start); on the active one, a transition")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("engagement needs start, phase, stop, show or list")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	var e *cairn.Engagement
	switch verb := fs.Arg(0); {
	case verb == "start" && fs.NArg() == 2:
		e, err = w.StartEngagementIn(fs.Arg(1), *phase, *note)
	case verb == "phase" && fs.NArg() == 2:
		e, err = w.StartEngagementPhase(fs.Arg(1))
	case verb == "stop" && fs.NArg() == 1:
		e, err = w.StopEngagement()
	case verb == "show" && fs.NArg() == 1:
		if e, err = w.FindEngagement(); err == nil && e == nil {
			if *asJSON {
				_, err = fmt.Fprintln(m.Stdout, "null")
				return err
			}
			fmt.Fprintln(m.Stdout, "No engagement yet. Start one with: cairn engagement start ID")
			return nil
		}
	case verb == "list" && fs.NArg() == 1:
		all, err := m.syncEngagements(ctx, w)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(m.Stdout).Encode(map[string]any{"engagements": engagementsJSON(all)})
		}
		if len(all) == 0 {
			fmt.Fprintln(m.Stdout, "No engagement yet. Start one with: cairn engagement start ID")
		}
		for _, e := range all {
			m.printEngagement(e)
		}
		return nil
	default:
		fs.Usage()
		return usageError("engagement start ID | phase NAME | stop | show | list")
	}
	if err != nil {
		return err
	}
	if _, err := m.syncEngagements(ctx, w); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(engagementsJSON([]*cairn.Engagement{e})[0])
	}
	m.printEngagement(e)
	return nil
}

// printEngagement prints an engagement: status, phases, notes.
func (m *Main) printEngagement(e *cairn.Engagement) {
	status := "active"
	if !e.Active {
		status = "stopped"
		if e.Stopped != nil {
			status += " at " + e.Stopped.UTC().Format(time.RFC3339)
		}
	}
	fmt.Fprintf(m.Stdout, "Engagement %s: %s (started %s by %s)\n", e.ID, status, e.Started.UTC().Format(time.RFC3339), e.Session)
	if len(e.Phases) > 1 || len(e.Phases) == 1 && e.Phases[0].Name != cairn.FirstEngagementPhase {
		fmt.Fprintln(m.Stdout, "Phases:")
		for _, p := range e.Phases {
			end := "now"
			if !p.EndedAt.IsZero() {
				end = p.EndedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(m.Stdout, "  %d %s  %s → %s\n", p.Seq, p.Name, p.StartedAt.UTC().Format(time.RFC3339), end)
		}
	}
	if len(e.Notes) > 0 {
		fmt.Fprintf(m.Stdout, "Notes:\n  %s\n", strings.Join(e.Notes, "\n  "))
	}
}

// engagementsJSON shapes engagements for --json.
func engagementsJSON(all []*cairn.Engagement) []map[string]any {
	out := []map[string]any{}
	for _, e := range all {
		v := map[string]any{"id": e.ID, "active": e.Active, "session": e.Session, "started": e.Started,
			"phases": e.Phases, "notes": orEmpty(e.Notes)}
		if e.Stopped != nil {
			v["stopped"] = *e.Stopped
		}
		out = append(out, v)
	}
	return out
}

// syncEngagements mirrors the phases of every engagement the workspace's
// file records into the store, so hand edits reach it too, and returns
// the engagements.
func (m *Main) syncEngagements(ctx context.Context, w *workspace.Workspace) ([]*cairn.Engagement, error) {
	all, err := w.FindEngagements()
	if err != nil || len(all) == 0 {
		return all, err
	}
	st, err := m.openStore("")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// An ID started again later has the phases of every run.
	byID := map[string][]cairn.EngagementPhase{}
	var ids []string
	for _, e := range all {
		if _, ok := byID[e.ID]; !ok {
			ids = append(ids, e.ID)
		}
		byID[e.ID] = append(byID[e.ID], e.Phases...)
	}
	for _, id := range ids {
		phases := byID[id]
		sort.SliceStable(phases, func(i, j int) bool { return phases[i].StartedAt.Before(phases[j].StartedAt) })
		for i := range phases {
			phases[i].Seq = i + 1
		}
		if err := st.engagements.SetEngagementPhases(ctx, id, phases); err != nil {
			return nil, err
		}
	}
	return all, nil
}

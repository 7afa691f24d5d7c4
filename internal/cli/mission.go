package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runMission(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("mission", "[flags] [set TEXT | progress TEXT]", `
Show the mission, or set it. The mission, its current phase and task and
the workspace are the core every context starts with (about 2,000
characters): enough for an agent to work from. Keep the progress summary
short (at most 500 characters); details belong in files.

In a workspace the mission is also two plain files at its root, which
agents and people read and edit: mission.json (mission, status, current
phase, updated_at) and mission_progress.txt (the progress summary). Every
mission and phase command, and each session's start, keeps them in step
with the store: an edit you make by hand is read back into the store
(leave updated_at as it is), a malformed mission.json is refused with its
line and column and left untouched.

Examples:
  cairn mission set "Ship the task-tracker MVP to staging by Friday" --workspace ~/src/tracker
  cairn mission progress "Auth done; projects API done; tasks API half done."
  cairn mission --json`)
	sf.register(fs, true)
	workspace := fs.String("workspace", "", "the workspace folder (with set)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	open := m.readStore
	if verb := fs.Arg(0); verb == "set" || verb == "progress" {
		open = m.openStore
	}
	st, err := open(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	files := sf.store == "" // the workspace's own store: its files follow it
	if _, err := m.syncMission(ctx, st, files); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return err
	}
	switch verb := fs.Arg(0); verb {
	case "set", "progress":
		if fs.NArg() != 2 {
			fs.Usage()
			return usageError("mission %s takes one TEXT", verb)
		}
		mis, err := st.missions.FindMission(ctx)
		if cairn.ErrorCode(err) == cairn.ENOTFOUND && verb == "set" {
			mis, err = &cairn.Mission{}, nil
		}
		if err != nil {
			return err
		}
		if verb == "set" {
			mis.Text = fs.Arg(1)
		} else {
			mis.Progress = fs.Arg(1)
		}
		if *workspace != "" {
			mis.Workspace = *workspace
		} else if mis.Workspace == "" {
			if mis.Workspace, err = m.Getwd(); err != nil {
				return err
			}
		}
		if err := st.missions.SetMission(ctx, mis); err != nil {
			return err
		}
		if mis, err = m.syncMission(ctx, st, files); err != nil {
			return err
		}
		return m.printMission(sf.json, mis)
	case "", "show":
		mis, err := st.missions.FindMission(ctx)
		if err != nil {
			return err
		}
		return m.printMission(sf.json, mis)
	default:
		fs.Usage()
		return usageError("unknown mission verb %q: use set, progress or show", verb)
	}
}

func (m *Main) printMission(asJSON bool, mis *cairn.Mission) error {
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(mis)
	}
	fmt.Fprintf(m.Stdout, "MISSION: %s\n", mis.Text)
	if p := mis.Phase; p != nil {
		fmt.Fprintf(m.Stdout, "PHASE: %s (%d, %s)\nTASK: %s\n", p.Name, p.Seq, p.Reason, p.Task)
		if len(p.Outputs) > 0 {
			fmt.Fprintf(m.Stdout, "OUTPUTS: %s\n", strings.Join(p.Outputs, ", "))
		}
	}
	fmt.Fprintf(m.Stdout, "WORKSPACE: %s\n", mis.Workspace)
	if mis.Progress != "" {
		fmt.Fprintf(m.Stdout, "PROGRESS: %s\n", mis.Progress)
	}
	return nil
}

// syncMission keeps the workspace's mission.json and mission_progress.txt
// in step with the store (see [workspace.Workspace.SyncMission]) and
// returns the mission as it now stands. Without files, outside a
// workspace, or with no mission anywhere, it returns the store's mission
// (ENOTFOUND if none is set).
func (m *Main) syncMission(ctx context.Context, st *store, files bool) (*cairn.Mission, error) {
	stored, err := st.missions.FindMission(ctx)
	if err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return nil, err
	}
	if !files {
		return stored, err
	}
	w, werr := m.openWorkspace(wsFlags{})
	if cairn.ErrorCode(werr) == cairn.ENOTFOUND {
		return stored, err
	} else if werr != nil {
		return nil, werr
	}
	mis, serr := w.SyncMission(stored, func(edit *cairn.Mission) (*cairn.Mission, error) {
		if edit.Workspace == "" {
			edit.Workspace = w.Root
		}
		if err := st.missions.SetMission(ctx, edit); err != nil {
			return nil, err
		}
		return st.missions.FindMission(ctx)
	})
	if serr != nil {
		return nil, serr
	}
	if mis == nil {
		return nil, err
	}
	return mis, nil
}

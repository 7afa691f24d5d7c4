package workspace

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// mission.json and mission_progress.txt are the mission as plain files at
// the workspace's root, as seed 004 lays them out:
//
//	{
//	  "mission": "Create 100-page AI regulation report, EU+US focus",
//	  "status": "active",
//	  "workspace": "/session_20260106_162934/",
//	  "phase": {"seq": 2, "name": "SYNTHESIS", "task": "…", "outputs": ["filtered_corpus/a.md"], "reason": "next", "started_at": "…"},
//	  "updated_at": "2026-01-06T16:29:34Z"
//	}
//
// The store holds the mission too (a team shares it); [Workspace.SyncMission]
// keeps both in step under the workspace lock. updated_at is the version:
// a file whose updated_at is the store's but whose mission, workspace or
// progress differ was edited by hand, and its edit goes to the store; a
// file older than the store is rewritten from it. status and fields cairn
// does not know are the file's own and kept. The phase is written by
// "cairn phase next" and "phase recover"; a hand edit of it is overwritten.

var missionSchema = &schema{kind: "object", fields: []field{
	{"mission", true, str},
	{"status", false, str},
	{"workspace", false, str},
	{"phase", false, &schema{kind: "object", nullable: true, fields: []field{
		{"seq", true, &schema{kind: "integer"}},
		{"name", true, str},
		{"task", false, str},
		{"outputs", false, strs},
		{"reason", false, str},
		{"started_at", false, timestamp},
	}}},
	{"updated_at", false, timestamp},
}}

// missionFile is what mission.json holds.
type missionFile struct {
	Mission   string       `json:"mission"`
	Status    string       `json:"status"`
	Workspace string       `json:"workspace"`
	Phase     *cairn.Phase `json:"phase"`
	UpdatedAt time.Time    `json:"updated_at"`

	raw map[string]json.RawMessage // every field, unknown ones included
}

// missionOrder is the order cairn writes mission.json's fields in.
var missionOrder = []string{"mission", "status", "workspace", "phase", "updated_at"}

// MissionVersion is the time a mission last changed: its text or progress
// (UpdatedAt) or its phase.
func MissionVersion(m *cairn.Mission) time.Time {
	v := m.UpdatedAt
	if m.Phase != nil && m.Phase.StartedAt.After(v) {
		v = m.Phase.StartedAt
	}
	return v.UTC()
}

// ReadMission reads mission.json and mission_progress.txt into a mission,
// nil if mission.json does not exist. Returns EINVALID naming line and
// column for a malformed file, which is left as it is.
func (w *Workspace) ReadMission() (*cairn.Mission, error) {
	f, err := w.readMissionFile()
	if err != nil || f == nil {
		return nil, err
	}
	progress, err := readFile(w.path(cairn.MissionProgressFile))
	if err != nil {
		return nil, err
	}
	return &cairn.Mission{Text: f.Mission, Workspace: f.Workspace, Progress: strings.TrimSpace(string(progress)),
		Phase: f.Phase, UpdatedAt: f.UpdatedAt}, nil
}

func (w *Workspace) readMissionFile() (*missionFile, error) {
	data, err := readFile(w.path(cairn.MissionFile))
	if err != nil || data == nil {
		return nil, err
	}
	f := &missionFile{}
	if err := decodeJSON(cairn.MissionFile, data, missionSchema, f); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &f.raw); err != nil {
		return nil, err
	}
	f.UpdatedAt = f.UpdatedAt.UTC()
	return f, nil
}

// SyncMission brings the mission files and the store in step, under the
// workspace lock. stored is the store's mission (nil if none is set); set
// records a mission in the store and returns it as stored. A hand edit of
// the files (same version as the store, different text, workspace or
// progress; or files and no stored mission) goes to the store; otherwise
// the files are rewritten from the store when they differ or are missing.
// It returns the mission as it now stands, nil if there is none. Returns
// EINVALID, naming line and column, for a malformed mission.json, and the
// store's error for a hand edit it refuses (such as progress over 500
// characters); the files are then left as they are.
func (w *Workspace) SyncMission(stored *cairn.Mission, set func(*cairn.Mission) (*cairn.Mission, error)) (*cairn.Mission, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, err := w.readMissionFile()
	if err != nil {
		return nil, err
	}
	var onFile *cairn.Mission
	if f != nil {
		progress, err := readFile(w.path(cairn.MissionProgressFile))
		if err != nil {
			return nil, err
		}
		onFile = &cairn.Mission{Text: f.Mission, Workspace: f.Workspace, Progress: strings.TrimSpace(string(progress))}
	}
	switch {
	case onFile == nil && stored == nil:
		return nil, nil
	case stored == nil || onFile != nil && !f.UpdatedAt.Before(MissionVersion(stored)) &&
		(onFile.Text != stored.Text || onFile.Workspace != stored.Workspace || onFile.Progress != stored.Progress):
		edit := onFile
		if stored != nil {
			edit.Phase = stored.Phase
		}
		if stored, err = set(edit); err != nil {
			return nil, err
		}
	}
	return stored, w.writeMission(f, stored)
}

// writeMission writes both files from m, keeping mission.json's status and
// unknown fields; a file already saying the same is not rewritten.
func (w *Workspace) writeMission(old *missionFile, m *cairn.Mission) error {
	fields := map[string]json.RawMessage{}
	status := json.RawMessage(`"active"`)
	if old != nil {
		for k, v := range old.raw {
			fields[k] = v
		}
		if v, ok := old.raw["status"]; ok {
			status = v
		}
	}
	var err error
	set := func(k string, v any) {
		if err == nil {
			fields[k], err = json.Marshal(v)
		}
	}
	set("mission", m.Text)
	fields["status"] = status
	set("workspace", m.Workspace)
	set("phase", m.Phase)
	set("updated_at", MissionVersion(m))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString("{\n")
	keys := append([]string{}, missionOrder...)
	var extra []string
	for k := range fields {
		if !contains(missionOrder, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	keys = append(keys, extra...)
	for i, k := range keys {
		name, _ := json.Marshal(k)
		var val bytes.Buffer
		if err := json.Indent(&val, fields[k], "  ", "  "); err != nil {
			return err
		}
		buf.WriteString("  " + string(name) + ": " + val.String())
		if i < len(keys)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	if err := writeIfChanged(w.path(cairn.MissionFile), buf.Bytes()); err != nil {
		return err
	}
	progress := ""
	if m.Progress != "" {
		progress = m.Progress + "\n"
	}
	return writeIfChanged(w.path(cairn.MissionProgressFile), []byte(progress))
}

func writeIfChanged(path string, data []byte) error {
	if old, err := readFile(path); err == nil && old != nil && bytes.Equal(old, data) {
		return nil
	}
	return writeFile(path, data)
}

package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
)

// Mirror brings the canonical logs of every session in an opencode data
// folder up to date under mirrorDir (one <session id>.jsonl each) and
// returns their paths, for the importer to read like any transcript.
//
// opencode keeps a session as rows (or files) it updates in place, where
// cairn keeps append-only lines; a log bridges the two. It only grows:
// the session's record first, then each settled message and its parts, in
// order; a document that changed after it was written (a title set, a
// summary added) is appended again, so each line stays as it was read and
// the importer reads only the new bytes. A reply still being written waits
// for the next import. Mirrors of one folder take turns (a lock file).
//
// A session none of whose rows changed since the last mirror (the marks
// kept in .marks: counts and latest time_updated, which opencode sets on
// every write) is not read again.
//
// dataDir may be a store file itself ([IsStore]). What does not read (a
// damaged store, a session's file cut short) is left out, its marks kept
// as they were, and returned as the error ([*Unreadable]s, joined) with
// the paths of every session that was read: one part's damage never
// keeps the others back.
func Mirror(ctx context.Context, dataDir, mirrorDir string) ([]string, error) {
	return MirrorAt(ctx, dataDir, mirrorDir, time.Now())
}

// MirrorAt is [Mirror] at the time now, which says which sessions are
// [Quiet].
func MirrorAt(ctx context.Context, dataDir, mirrorDir string, now time.Time) ([]string, error) {
	return mirror(ctx, dataDir, mirrorDir, now, "")
}

// MirrorSession is [Mirror] of one session: what the plugin runs when a
// reply of that session finished. Returns ENOTFOUND if the store has no
// such session.
func MirrorSession(ctx context.Context, dataDir, mirrorDir, id string) (string, error) {
	paths, err := mirror(ctx, dataDir, mirrorDir, time.Now(), id)
	if len(paths) == 0 && err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", cairn.Errorf(cairn.ENOTFOUND, "No session %s in opencode's store at %s.", id, dataDir)
	}
	return paths[0], nil
}

func mirror(ctx context.Context, dataDir, mirrorDir string, now time.Time, only string) ([]string, error) {
	if err := os.MkdirAll(mirrorDir, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(mirrorDir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		return nil, err
	}
	marksPath := filepath.Join(mirrorDir, ".marks")
	marks := map[string]string{}
	if b, err := os.ReadFile(marksPath); err == nil {
		_ = json.Unmarshal(b, &marks) // a damaged file only costs a full read
	}
	logs, problems, err := readStore(ctx, dataDir, now, func(id, mark string) bool {
		if only != "" && id != only {
			return true
		}
		if mark == "" || marks[id] != mark {
			return false
		}
		_, err := os.Stat(filepath.Join(mirrorDir, id+".jsonl"))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if only != "" {
		problems = slices.DeleteFunc(problems, func(e error) bool {
			u, ok := e.(*Unreadable)
			return ok && u.Session != "" && u.Session != only
		})
	}
	var paths []string
	changed := false
	for _, l := range logs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if only != "" && l.ID != only {
			continue
		}
		path := filepath.Join(mirrorDir, l.ID+".jsonl")
		paths = append(paths, path)
		if l.Skipped {
			continue
		}
		if err := appendLog(path, l); err != nil {
			return nil, err
		}
		if l.Mark != "" && marks[l.ID] != l.Mark {
			marks[l.ID], changed = l.Mark, true
		}
	}
	if changed {
		b, _ := json.Marshal(marks)
		tmp := marksPath + ".tmp"
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, marksPath); err != nil {
			return nil, err
		}
	}
	return paths, errors.Join(problems...)
}

// appendLog appends to path the records of l it does not hold yet, or
// holds in another version.
func appendLog(path string, l *Log) error {
	last := map[string][]byte{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			if r, _ := parseRecord(sc.Bytes()); r != nil {
				last[r.Kind+"\x00"+r.ID] = append([]byte(nil), sc.Bytes()...)
			}
		}
		err := sc.Err()
		f.Close()
		if err != nil {
			return err
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	var out bytes.Buffer
	add := func(r *Record) {
		line := r.Line()
		if prev, ok := last[r.Kind+"\x00"+r.ID]; !ok || !bytes.Equal(prev, line[:len(line)-1]) {
			out.Write(line)
		}
	}
	fresh := len(last) == 0
	if fresh {
		add(l.Session)
	}
	for _, it := range l.Items[:l.Settled] {
		add(it)
	}
	if !fresh {
		add(l.Session)
	}
	if out.Len() == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(out.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

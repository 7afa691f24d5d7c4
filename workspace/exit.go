package workspace

import (
	"strings"

	"github.com/cairn-dev/cairn"
)

// Exit is checkpoint-on-exit, for a session that ends: it writes c on the
// board of the situation the session is in (where its trace last went,
// else here) and records a move that stays there, with trigger
// "exit: why", so the trace shows where the session stopped and why. The
// checkpoint is automatic (Auto: why): it replaces the session's earlier
// one, and the board keeps the last [cairn.AutoCheckpoints] of them.
// Both happen under one lock and are written together ([writeFiles]);
// an end run again with nothing new writes neither. Returns the
// situation, ENOTFOUND if its folder is gone and EINVALID if c says
// nothing.
func (w *Workspace) Exit(here string, c *cairn.Checkpoint, why string) (string, error) {
	unlock, err := w.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	at, edits, err := w.exit(here, c, why)
	if err != nil {
		return "", err
	}
	return at, writeFiles(edits...)
}

// exit is Exit for a caller that holds the lock: the situation, and the
// board and trace for the caller to write.
func (w *Workspace) exit(here string, c *cairn.Checkpoint, why string) (string, []edit, error) {
	at, err := w.Current(here)
	if err != nil {
		return "", nil, err
	}
	if c.Auto == "" {
		c.Auto = "exit"
		if why = strings.TrimSpace(why); why != "" {
			c.Auto += ": " + why
		}
	}
	board, err := w.checkpoint(at, c)
	if err != nil {
		return "", nil, err
	}
	trigger := cairn.ExitTrigger
	if why = strings.TrimSpace(why); why != "" {
		trigger += ": " + why
	}
	trace, err := w.appendMove(w.Session, &cairn.Move{Time: c.Time, From: at, To: at, Trigger: trigger})
	if err != nil {
		return "", nil, err
	}
	return at, []edit{board, trace}, nil
}

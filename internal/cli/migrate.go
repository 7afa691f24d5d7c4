package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
)

func (m *Main) runMigrate(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("migrate", "--to STORE [--from STORE] [flags] | --in-place [--from STORE]", `
Copy a whole store into another: typically your workspace's SQLite file into
the PostgreSQL store your team shares, so that agents on every machine see
the same sessions. A store is a file path or a postgres:// URL.

Every session is copied with its lineage and every line of every generation
byte for byte; the target then rebuilds rounds, blocks, usage and the search
index from those lines. The frame tree, the rounds tagged with frames, and
the mission with its phases follow. Afterwards each line's SHA-256 is compared between
the two stores, and the figures are printed. The source is only read.

Run it again at any time: sessions the target already holds unchanged are
skipped. A session the target holds at another position (imported there
separately) stops the copy: import the transcript into the target instead.

--in-place rewrites one store, written by an older cairn, into the layout
this one writes. SQLite: raw lines recompressed (zstd chunks, a quarter
smaller than S2's) with each line's meta packed (a sixth of its size),
each line checked by its SHA-256 and its meta before its old bytes are
replaced, and block texts that copied their line read from it instead;
the file then shrinks (VACUUM, which needs free disk the size of the new
file; --no-vacuum leaves the freed pages for later imports), as it does
when a twentieth of it is free pages (opening a store migrates its search
index in place, and the old index's pages stay free in the file).
PostgreSQL: the copy of each block's searchable text beside its content
and its search vector is dropped; a plain VACUUM lets later imports reuse
the space (VACUUM FULL blocks, run by an administrator, gives it back, but
locks the table while it runs). The store stays readable throughout, and
imports may run beside it; killed, it carries on where it stopped when run
again.

Examples:
  cairn migrate --to postgres://cairn@db.internal/cairn
  cairn migrate --from .cairn/cairn.db --to postgres://cairn:secret@localhost:5432/cairn?sslmode=disable
  cairn migrate --from postgres://cairn@db.internal/cairn --to backup.db
  cairn migrate --in-place
  cairn migrate --in-place --from ~/old/cairn.db --json`)
	fs.StringVar(&sf.store, "from", "", "the store to copy (default: --store's default: $CAIRN_STORE, else .cairn/cairn.db in the workspace)")
	to := fs.String("to", "", "the store to copy into: a postgres:// URL or a file (required)")
	fs.BoolVar(&sf.json, "json", false, "print the figures as JSON")
	inPlace := fs.Bool("in-place", false, "rewrite the store (--from) in place into this cairn's layout, instead of copying it")
	noVacuum := fs.Bool("no-vacuum", false, "with --in-place: do not give the freed space back to the file system (SQLite)")
	red := fs.Bool("redact", false, "copy lines with their secrets replaced by [REDACTED:rule] (gitleaks' rules and cairn's): the target never holds them; the source is unchanged")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if *inPlace {
		if *to != "" || *red || fs.NArg() > 0 {
			fs.Usage()
			return usageError("migrate --in-place takes --from STORE at most: no --to, --redact or arguments")
		}
		return m.relayout(ctx, sf, !*noVacuum)
	}
	if *noVacuum {
		return usageError("--no-vacuum goes with --in-place")
	}
	if *to == "" || fs.NArg() > 0 {
		fs.Usage()
		return usageError("migrate takes --to STORE and no arguments")
	}
	from, err := m.storePath(sf.store)
	if err != nil {
		return err
	}
	if from == *to {
		return usageError("--from and --to are the same store")
	}
	src, err := openStoreWith(from, sqliteOpen{told: m.Stderr})
	if err != nil {
		return fmt.Errorf("open %s: %w", from, err)
	}
	defer src.Close()
	dst, err := openStoreWith(*to, sqliteOpen{told: m.Stderr})
	if err != nil {
		return fmt.Errorf("open the target: %w", err)
	}
	defer dst.Close()

	var progress func(done, total int)
	if isTerminal(m.Stderr) && !sf.json {
		progress = func(done, total int) { fmt.Fprintf(m.Stderr, "\r\033[Kcopying %d/%d sessions", done, total) }
	}
	start := time.Now()
	formats := map[string]cairn.Transcript{cairn.AgentClaudeCode: claudecode.Format{}, cairn.AgentCodex: codex.Format{}}
	redactLine, err := lineRedactor(*red)
	if err != nil {
		return err
	}
	rep, err := inscribe.CopyRedacted(ctx, src.full(), dst.full(), formats, redactLine, progress)
	if progress != nil {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	var tasks *inscribe.TaskReport
	if err == nil {
		tasks, err = inscribe.CopyTasks(ctx, src.tasks(), dst.tasks())
	}
	if err == nil {
		tasks.EngagementPhases, err = inscribe.CopyEngagementPhases(ctx, src.engagements, dst.engagements)
	}
	if rep == nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(struct {
			*inscribe.CopyReport
			Tasks *inscribe.TaskReport `json:"tasks,omitempty"`
		}{rep, tasks}); e != nil {
			return e
		}
		return err
	}
	fmt.Fprintf(m.Stdout, "%d sessions: %d copied, %d already there; %d generations, %d lines, %.1f MB of raw bytes; "+
		"%d lines verified by SHA-256; %d rounds indexed (%.2fs)\n",
		rep.Sessions, rep.Copied, rep.Unchanged, rep.Generations, rep.Lines, float64(rep.Bytes)/1e6,
		rep.Verified, rep.Rounds, time.Since(start).Seconds())
	if tasks != nil {
		fmt.Fprintf(m.Stdout, "%d frames copied, %d rounds tagged with frames, %d with engagements, %d mission phases copied, %d engagement phases\n",
			tasks.Frames, tasks.FrameTags, tasks.Engaged, tasks.Phases, tasks.EngagementPhases)
	}
	return err
}

// fullStore presents an open store as an [inscribe.FullStore].
type fullStore struct {
	cairn.SessionStore
	cairn.InscriptionStore
	cairn.LineStore
}

func (st *store) full() fullStore { return fullStore{st.sessions, st.inscription, st.lines} }

// taskStore presents an open store as an [inscribe.TaskStore].
type taskStore struct {
	cairn.FrameStore
	cairn.MissionStore
	cairn.RoundStore
	cairn.TagStore
	cairn.SessionStore
}

func (st *store) tasks() taskStore {
	return taskStore{st.frames, st.missions, st.rounds, st.tags, st.sessions}
}

// relayouter is a store that rewrites itself in place into the layout
// this cairn writes.
type relayouter interface {
	Relayout(ctx context.Context, vacuum bool, progress func(done, total int)) (*cairn.RelayoutReport, error)
}

// relayout runs `cairn migrate --in-place` on the store sf names.
func (m *Main) relayout(ctx context.Context, sf storeFlags, vacuum bool) error {
	loc, err := m.storePath(sf.store)
	if err != nil {
		return err
	}
	st, err := openStoreWith(loc, sqliteOpen{told: m.Stderr})
	if err != nil {
		return fmt.Errorf("open %s: %w", loc, err)
	}
	defer st.Close()
	r, ok := st.Closer.(relayouter)
	if !ok {
		return cairn.Errorf(cairn.EINVALID, "The store %s cannot be rewritten in place.", loc)
	}
	var progress func(done, total int)
	if isTerminal(m.Stderr) && !sf.json {
		progress = func(done, total int) { fmt.Fprintf(m.Stderr, "\r\033[Krewriting %d/%d sessions", done, total) }
	}
	start := time.Now()
	rep, err := r.Relayout(ctx, vacuum, progress)
	if progress != nil {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if rep == nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(rep); e != nil {
			return e
		}
		return err
	}
	fmt.Fprintf(m.Stdout, "%d sessions: %d rewritten, %d already in this layout; %d chunks of lines rewritten, %d lines verified by SHA-256; "+
		"%d blocks rewritten to keep their text once; %.1f MB → %.1f MB (%.2fs)\n",
		rep.Sessions, rep.Relaid, rep.Sessions-rep.Relaid, rep.Chunks, rep.Lines, rep.Views,
		float64(rep.Before)/1e6, float64(rep.After)/1e6, time.Since(start).Seconds())
	return err
}

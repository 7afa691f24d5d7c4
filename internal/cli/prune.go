package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

func (m *Main) runPrune(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("prune", "[flags]", `
Drop from the store the sessions last active before a cutoff: their lines,
rounds, blocks, search entries and tags. cairn keeps every session forever
unless you ask; this is how you ask. Sub-agents go with their parent. A
dropped session is remembered by id, so "cairn import" skips its file
unless the file changes afterwards (the session goes on: it is read again
whole). Frames, boards and the workspace's files are untouched.

--keep sets the store's keep setting, which "cairn import" then applies
after every import (and "cairn stats" shows); --keep forever clears it.
--older-than drops once without changing the setting. With neither, prune
applies the setting. An SQLite file does not shrink: its freed pages are
reused by later imports ("cairn stats --parts" shows them).

Examples:
  cairn prune --older-than 180d --dry-run
  cairn prune --keep 90d
  cairn prune --keep forever`)
	sf.register(fs, true)
	keep := fs.String("keep", "", "set the keep setting: DAYS (90, 90d) or forever, then apply it")
	older := fs.String("older-than", "", "drop sessions last active more than DAYS ago (90, 90d), once")
	dry := fs.Bool("dry-run", false, "list what would be dropped, drop nothing")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("prune takes no arguments, got %q", fs.Arg(0))
	}
	if *keep != "" && *older != "" {
		return usageError("--keep and --older-than are exclusive: --keep sets the store's setting, --older-than drops once")
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	days, set := 0, false
	switch {
	case *keep != "":
		if days, err = parseDays("--keep", *keep, true); err != nil {
			return err
		}
		set = true
	case *older != "":
		if days, err = parseDays("--older-than", *older, false); err != nil {
			return err
		}
	default:
		if days, err = st.keep.KeepDays(ctx); err != nil {
			return err
		}
		if days == 0 {
			fmt.Fprintln(m.Stdout, "The store keeps every session: nothing to drop (--keep DAYS sets a keep setting, --older-than DAYS drops once).")
			return nil
		}
	}
	if set && !*dry {
		if err := st.keep.SetKeepDays(ctx, days); err != nil {
			return err
		}
	}
	now := m.now()
	dropped, err := inscribe.Prune(ctx, st.sessions, st.keep, cairn.KeepCutoff(now, days), now, *dry)
	if err != nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			KeepDays int              `json:"keep_days"`
			DryRun   bool             `json:"dry_run"`
			Dropped  []*cairn.Session `json:"dropped"`
		}{days, *dry, dropped})
	}
	if set && !*dry {
		if days == 0 {
			fmt.Fprintln(m.Stdout, "The store now keeps every session.")
		} else {
			fmt.Fprintf(m.Stdout, "The store now keeps sessions active in the last %s; cairn import applies it.\n", plural(days, "day"))
		}
	}
	if days == 0 {
		return nil
	}
	writeDropped(m, dropped, cairn.KeepCutoff(now, days), *dry)
	return nil
}

// writeDropped names the sessions a prune dropped, or would drop.
func writeDropped(m *Main, dropped []*cairn.Session, cutoff time.Time, dry bool) {
	verb := "Dropped"
	if dry {
		verb = "Would drop"
	}
	for _, s := range dropped {
		fmt.Fprintf(m.Stdout, "  %s  %s  %s\n", s.LastActive().UTC().Format(time.DateOnly), s.ID, s.Title)
	}
	fmt.Fprintf(m.Stdout, "%s %s last active before %s.\n", verb, plural(len(dropped), "session"), cutoff.UTC().Format(time.DateOnly))
}

// parseDays reads a number of days, "90" or "90d"; with forever, also
// "forever" (0).
func parseDays(flagName, v string, forever bool) (int, error) {
	if forever && v == "forever" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
	if err != nil || n <= 0 {
		want := "a number of days such as 90 or 90d"
		if forever {
			want += ", or forever"
		}
		return 0, usageError("%s must be %s, got %q", flagName, want, v)
	}
	return n, nil
}

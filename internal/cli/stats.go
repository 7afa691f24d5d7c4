package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runStats(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("stats", "[flags]", `
What the store holds and what it takes on disk: sessions by harness, rounds,
blocks and raw lines, the transcripts' bytes they came from, the oldest and
newest activity, the store's size against those bytes, and its keep setting
(cairn prune). --parts also says where the bytes go (raw lines, blocks, the
search index, …), which reads every page of an SQLite store: seconds on one
of gigabytes.

Examples:
  cairn stats
  cairn stats --parts --json`)
	sf.register(fs, true)
	parts := fs.Bool("parts", false, "measure where the store's bytes go")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("stats takes no arguments, got %q", fs.Arg(0))
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := st.stats.Stats(ctx, *parts)
	if err != nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	writeStats(m.Stdout, s)
	return nil
}

// writeStats prints s for a person.
func writeStats(w io.Writer, s *cairn.StoreStats) {
	fmt.Fprintf(w, "Store   %s (%s)\n", s.Location, s.Backend)
	agents := make([]string, 0, len(s.ByAgent))
	for a, n := range s.ByAgent {
		agents = append(agents, fmt.Sprintf("%s %s", a, thousands(int64(n))))
	}
	sort.Strings(agents)
	by := ""
	if len(agents) > 0 {
		by = "; " + strings.Join(agents, ", ")
	}
	fmt.Fprintf(w, "Holds   %s (%s%s), %s rounds, %s blocks, %s raw lines\n",
		plural(s.Sessions, "session"), plural(s.Subagents, "sub-agent"), by, thousands(s.Rounds), thousands(s.Blocks), thousands(s.Lines))
	fmt.Fprintf(w, "        from %s of transcripts", byteSize(s.RawBytes))
	if !s.Oldest.IsZero() {
		fmt.Fprintf(w, ", last active %s to %s", s.Oldest.UTC().Format(time.DateOnly), s.Newest.UTC().Format(time.DateOnly))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Takes   %s on disk", byteSize(s.Bytes))
	if s.RawBytes > 0 {
		fmt.Fprintf(w, " (%.0f %% of the transcripts)", 100*float64(s.Bytes)/float64(s.RawBytes))
	}
	fmt.Fprintln(w)
	if len(s.Parts) > 0 {
		parts := make([]string, len(s.Parts))
		for i, p := range s.Parts {
			parts[i] = p.Name + " " + byteSize(p.Bytes)
		}
		fmt.Fprintf(w, "        %s\n", strings.Join(parts, " · "))
	}
	if s.KeepDays == 0 {
		fmt.Fprint(w, "Keeps   every session (cairn prune --keep DAYS lets older ones go)")
	} else {
		fmt.Fprintf(w, "Keeps   sessions active in the last %s (cairn prune --keep forever keeps every one)", plural(s.KeepDays, "day"))
	}
	if s.Dropped > 0 {
		fmt.Fprintf(w, "; %s dropped on purpose", plural(s.Dropped, "session"))
	}
	fmt.Fprintln(w)
}

// byteSize is n bytes in the largest decimal unit that leaves a whole
// number before the point.
func byteSize(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// plural returns n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(int64(n)) + " " + noun + "s"
}

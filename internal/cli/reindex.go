package cli

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

func (m *Main) runReindex(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("reindex", "[flags]", `
Rebuild every session's rounds, blocks, usage and search index from the
stored lines. The lines themselves are never changed. Tags on rounds are
kept. Run it after upgrading cairn, or if the index looks wrong.`)
	sf.register(fs, false)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	defer m.batchGC()()
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	var total int
	progress := func(done, n int) {
		total = n
		if isTerminal(m.Stderr) {
			fmt.Fprintf(m.Stderr, "\r\033[Kreindexing %d/%d sessions", done, n)
		}
	}
	both := reindexStore{st.sessions, st.inscription}
	if err := inscribe.Reindex(ctx, both, st.name, inscribe.Rebuild(transcripts{}), progress); err != nil {
		return err
	}
	if isTerminal(m.Stderr) {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	fmt.Fprintf(m.Stdout, "Reindexed %d sessions.\n", total)
	return nil
}

// reindexStore is what reindex reads and writes of a store, a
// [inscribe.Sweeper] when its inscriptions are.
type reindexStore struct {
	cairn.SessionStore
	cairn.InscriptionStore
}

// Sweep implements [inscribe.Sweeper].
func (r reindexStore) Sweep(ctx context.Context) error { return sweep(ctx, r.InscriptionStore) }

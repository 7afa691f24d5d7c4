//go:build !lean

package cli

import (
	"time"

	"github.com/cairn-dev/cairn/postgres"
)

// lean is false in the complete build: it has every command and store
// (see build.go for the lean one).
const lean = false

// openPostgres opens a shared store with the given timeouts (0: the
// defaults).
func openPostgres(location string, connect, statement time.Duration) (*store, error) {
	db := postgres.NewDB(location)
	db.ConnectTimeout, db.StatementTimeout = connect, statement
	if err := db.Open(); err != nil {
		return nil, err
	}
	return &store{
		Closer: db, name: "the PostgreSQL store " + db.Name(), sessions: postgres.NewSessionStore(db), rounds: postgres.NewRoundStore(db), lines: postgres.NewLineStore(db),
		inscription: postgres.NewInscriptionStore(db), searcher: postgres.NewSearcher(db),
		frames: postgres.NewFrameStore(db), missions: postgres.NewMissionStore(db), tags: postgres.NewTagStore(db),
		engagements: postgres.NewEngagementStore(db),
		keep:        postgres.NewKeepStore(db), stats: postgres.NewStatsStore(db),
	}, nil
}

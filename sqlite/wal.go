package sqlite

import (
	"context"
	"os"
)

// A process that exits without closing its store (a hook: closing
// checkpoints and syncs, [DB.Close]) leaves the WAL to the next process,
// which opens it as a crash leaves it: SQLite rebuilds the WAL's index by
// reading every frame since the WAL last began again, and counts none of
// them as copied into the store. So the WAL never began again (a writer
// begins it again only when every frame is copied as its transaction
// begins): on the 1 GB bench store it held 8,820 frames (36 MB) after a
// few hundred hooks, every hook read all of it at open (35 to 90 ms of a
// SessionEnd that stored nothing, 10 to 20 ms once it was checkpointed)
// and every commit past 1,000 frames copied all of it again.
//
// walLimit bounds it. Before its first write transaction, a DB whose WAL
// file is larger copies the WAL into the store (a passive checkpoint,
// which waits for no reader and is skipped when another process holds
// them), so that the transaction begins the WAL again, and the writer's
// journal_size_limit cuts the file back to walLimit as it does. Each
// process then reads at most walLimit and what the processes since wrote.
const walLimit = 1 << 20

// checkpointLongWAL copies a WAL file longer than walLimit into the store
// before this DB's first write transaction; once per DB, best effort (a
// checkpoint that fails leaves the WAL as it was).
func (db *DB) checkpointLongWAL(ctx context.Context) {
	db.walOnce.Do(func() {
		if info, err := os.Stat(db.Path + "-wal"); err != nil || info.Size() <= walLimit {
			return
		}
		_, _ = db.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	})
}

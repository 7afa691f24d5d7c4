package inscribe

import (
	"context"
	"os"
	"time"
)

// WatchInterval is how often [Importer.Watch] looks at the files when the
// caller does not say: often enough that a running session grows on a
// page within a second.
const WatchInterval = 300 * time.Millisecond

// Watch imports the transcripts under paths whenever one changes (a new
// file, a new size or modification time), until ctx ends, and calls
// changed with the report of each file that added lines or rounds. The
// first pass imports what changed since the last import, as Import does.
// A file that fails is reported through changed with its error and tried
// again when it changes next; a file [Import] skips (a link out of the
// folders, a FIFO, a device) is reported as skipped, once, and never read.
// A path that does not exist yet (Claude Code's folder before the client
// first runs) is watched for: its files are imported once it appears.
// Watch itself fails only if paths cannot be listed at all.
func (im *Importer) Watch(ctx context.Context, paths []string, interval time.Duration, changed func(*FileReport, []Problem)) error {
	if interval <= 0 {
		interval = WatchInterval
	}
	type stamp struct {
		size int64
		mod  time.Time
	}
	seen := map[string]stamp{}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		files, err := transcriptFiles(existing(paths), im.Folders, im.document)
		if err != nil {
			return err
		}
		for _, f := range files {
			if f.skip != "" {
				if old, ok := seen[f.path]; !ok || old.size != -1 {
					seen[f.path] = stamp{size: -1}
					changed(&FileReport{Path: f.path, Status: StatusSkipped, Error: f.skip}, nil)
				}
				continue
			}
			info, err := os.Stat(f.path)
			if err != nil {
				continue // removed since it was listed
			}
			st := stamp{info.Size(), info.ModTime()}
			if old, ok := seen[f.path]; ok && old == st {
				continue
			}
			seen[f.path] = st
			fr, problems := im.importFile(ctx, f.path, f.within, nil)
			if ctx.Err() != nil {
				return nil
			}
			if fr.Error != "" || fr.Stored > 0 || len(problems) > 0 {
				changed(fr, problems)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// existing returns the paths that exist, in order.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

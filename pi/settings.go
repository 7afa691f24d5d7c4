package pi

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// pi's compaction defaults (0.73.1's SettingsManager): compact when a
// request would leave less than ReserveTokens of the window, keeping about
// KeepRecentTokens of the latest entries.
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// Compaction is pi's compaction setting: whether it compacts by itself,
// the room it keeps below the model's window, and how much of the latest
// context it keeps.
type Compaction struct {
	Enabled          bool
	ReserveTokens    int64
	KeepRecentTokens int64
}

// CompactAt is where pi compacts a context of window tokens: past window
// less the reserve (0 when it does not compact by itself, or the window is
// unknown).
func (c Compaction) CompactAt(window int64) int64 {
	if !c.Enabled || window <= c.ReserveTokens {
		return 0
	}
	return window - c.ReserveTokens
}

// CompactionSettings reads pi's compaction setting as pi does: the
// "compaction" object of the project's .pi/settings.json over that of the
// agent folder's settings.json (home, [Home]), key by key, pi's defaults
// for what neither sets. A file missing or unreadable sets nothing.
func CompactionSettings(home, cwd string) Compaction {
	c := Compaction{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens}
	for _, path := range []string{filepath.Join(home, "settings.json"), filepath.Join(cwd, ".pi", "settings.json")} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var s struct {
			Compaction struct {
				Enabled          *bool  `json:"enabled"`
				ReserveTokens    *int64 `json:"reserveTokens"`
				KeepRecentTokens *int64 `json:"keepRecentTokens"`
			} `json:"compaction"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		if v := s.Compaction.Enabled; v != nil {
			c.Enabled = *v
		}
		if v := s.Compaction.ReserveTokens; v != nil {
			c.ReserveTokens = *v
		}
		if v := s.Compaction.KeepRecentTokens; v != nil {
			c.KeepRecentTokens = *v
		}
	}
	return c
}

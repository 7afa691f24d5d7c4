package workspace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// ConfigFile is .cairn/config: settings of the workspace, one "key =
// value" a line, "#" starting a comment. People edit it; cairn changes
// only the lines of the keys it sets.
const ConfigFile = "config"

// A Config is what .cairn/config sets.
type Config struct {
	// Pressure are the context occupancies, in percent, at which the
	// UserPromptSubmit hook tells the agent its context is filling up,
	// once per crossing.
	Pressure []int
	// ContextWindow is the model's window in tokens; 0 lets the client's
	// model decide.
	ContextWindow int64
}

// DefaultPressure are the thresholds when the config names none.
var DefaultPressure = []int{70, 85}

// Config keys.
const (
	ConfigPressure      = "pressure"       // 70,85
	ConfigContextWindow = "context_window" // 200000
)

// ReadConfig returns the workspace's config, with defaults for what it
// does not set. Returns EINVALID naming the line for a key it does not
// know or a value it cannot read.
func (w *Workspace) ReadConfig() (*Config, error) {
	data, err := readFile(w.private(ConfigFile))
	if err != nil {
		return nil, err
	}
	c := &Config{Pressure: DefaultPressure}
	for i, line := range strings.Split(string(data), "\n") {
		key, value, ok := configLine(line)
		if !ok {
			continue
		}
		if err := c.set(key, value); err != nil {
			return nil, cairn.Errorf(cairn.EINVALID, "%s/%s:%d: %s", Dir, ConfigFile, i+1, cairn.ErrorMessage(err))
		}
	}
	return c, nil
}

// configLine splits a line into key and value; ok is false for a blank
// line or a comment.
func configLine(line string) (key, value string, ok bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return "", "", false
	}
	key, value, _ = strings.Cut(line, "=")
	return strings.TrimSpace(key), strings.TrimSpace(value), true
}

func (c *Config) set(key, value string) error {
	switch key {
	case ConfigPressure:
		p, err := ParsePressure(value)
		if err != nil {
			return err
		}
		c.Pressure = p
	case ConfigContextWindow:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1000 {
			return cairn.Errorf(cairn.EINVALID, "context_window %q is not a number of tokens (such as 200000).", value)
		}
		c.ContextWindow = n
	default:
		return cairn.Errorf(cairn.EINVALID, "unknown key %q (known: %s, %s).", key, ConfigPressure, ConfigContextWindow)
	}
	return nil
}

// ParsePressure reads thresholds such as "70,85": percentages between 1
// and 99, returned in rising order. "off" or "" means none.
func ParsePressure(value string) ([]int, error) {
	if v := strings.TrimSpace(value); v == "" || v == "off" {
		return []int{}, nil
	}
	var out []int
	for _, f := range strings.Split(value, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "%")))
		if err != nil || n < 1 || n > 99 {
			return nil, cairn.Errorf(cairn.EINVALID, "pressure %q: give percentages from 1 to 99, such as 70,85 (or off).", value)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// SetConfig sets key to value in .cairn/config under the lock: the key's
// line is replaced (or one is added), every other line is kept. Returns
// EINVALID, writing nothing, if the value is not valid.
func (w *Workspace) SetConfig(key, value string) error {
	if err := new(Config).set(key, value); err != nil {
		return err
	}
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	data, err := readFile(w.private(ConfigFile))
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = []string{"# cairn settings of this workspace: key = value"}
	}
	entry := fmt.Sprintf("%s = %s", key, value)
	found := false
	for i, line := range lines {
		if k, _, ok := configLine(line); ok && k == key {
			lines[i], found = entry, true
		}
	}
	if !found {
		lines = append(lines, entry)
	}
	return writeFile(w.private(ConfigFile), []byte(strings.Join(lines, "\n")+"\n"))
}

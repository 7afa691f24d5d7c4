package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// frameFlags are the flags the frame commands share.
type frameFlags struct {
	storeFlags
	wsFlags
	owner string
}

func (f *frameFlags) register(m *Main, fs *flag.FlagSet) {
	f.storeFlags.register(fs, true)
	f.wsFlags.register(fs)
	fs.StringVar(&f.owner, "as", m.Getenv("CAIRN_AGENT"), "who is working: an agent or person's name (default $CAIRN_AGENT)")
}

// stack returns the frame operations over st.
func (st *store) stack() *cairn.Stack { return &cairn.Stack{Frames: st.frames} }

// listFlag is a flag that may be given many times, or once with commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// printChange reports a frame change: the frames written, then warnings.
func (m *Main) printChange(asJSON bool, verb string, c *cairn.FrameChange) error {
	frames := append(append([]*cairn.Frame{}, c.Create...), c.Update...)
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"frames": frames, "warnings": orEmpty(c.Warnings)})
	}
	for _, f := range frames {
		fmt.Fprintf(m.Stdout, "%s %s %s [%s]\n", verb, f.ID, f.Title, f.Status)
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(m.Stderr, "warning:", w)
	}
	return nil
}

// frameOrCurrent returns id, or the ID of owner's current frame when id
// is "".
func (st *store) frameOrCurrent(ctx context.Context, id, owner string) (string, error) {
	if id != "" {
		return id, nil
	}
	f, err := st.stack().Current(ctx, owner)
	if err != nil {
		return "", err
	}
	return f.ID, nil
}

package loop

import "fmt"

// measuredPressure is the pressure note of a client that measures its own
// context and says so to cairn (pi, opencode: [Event.Occupancy]): when
// that measure has crossed a threshold of .cairn/config since the last
// prompt, the figure at the client's own compaction point and atFull,
// what the client does at 100 %, for the agent, and the figure for the
// person.
func (l *Loop) measuredPressure(in Event, client, atFull string) (Reply, error) {
	occ := in.Occupancy
	if occ == nil || in.Session == "" {
		return Reply{}, nil
	}
	cfg, err := l.Workspace.ReadConfig()
	if err != nil || len(cfg.Pressure) == 0 {
		return Reply{}, err
	}
	crossed, err := l.Workspace.Crossed(in.Session, occ.Percent(), cfg.Pressure)
	if err != nil || crossed == 0 {
		return Reply{}, err
	}
	agent := fmt.Sprintf("cairn: your context is %d%% of the way to where %s compacts it (%s of %s tokens; window %s; past the %d%% mark). %s",
		occ.Percent(), client, Thousands(occ.Tokens), Thousands(occ.Window.CompactAt), Thousands(occ.Window.Size), crossed, atFull)
	person := fmt.Sprintf("cairn: context %d%% of the way to %s's compaction (%s of %s tokens)", occ.Percent(), client, Thousands(occ.Tokens), Thousands(occ.Window.CompactAt))
	return Reply{Agent: agent + beforeThat(in.Session, true), Person: person}, nil
}

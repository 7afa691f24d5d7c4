package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/pi"
)

// checkPi checks pi: the client on PATH, cairn's extension where pi loads
// extensions from when started here (the working folder's .pi/extensions,
// then its agent folder's extensions, $PI_CODING_AGENT_DIR or
// ~/.pi/agent), and the extension's command answering a compaction as
// the extension asks for one. A pi not found with no extension installed
// is only said.
func (m *Main) checkPi(ctx context.Context) []finding {
	v := m.clientVersion("pi", "pi")
	out := []finding{v}
	ext, cmd, f := m.checkPiExtension()
	if ext == "" && v.Status != statusOK {
		return out
	}
	out = append(out, f)
	if ext == "" {
		return out
	}
	return append(out, m.checkPiHook(ctx, cmd))
}

// piExtensionCommand finds the command in cairn's extension source: the
// quoted string pi.Extension put in place of its placeholder.
var piExtensionCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^const CAIRN = ("(?:[^"\\]|\\.)*");`)
})

// checkPiExtension finds cairn's extension where pi loads it and reads
// the command it runs. It returns the extension's path ("" when none is
// loaded) and command, and the finding: an extension that is not what
// this cairn writes for its command is out of date.
func (m *Main) checkPiExtension() (string, string, finding) {
	f := finding{Check: "pi extension"}
	wd, err := m.Getwd()
	if err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return "", "", f
	}
	candidates := []string{pi.ExtensionPath(wd), pi.UserExtensionPath(pi.Home(m.Getenv, m.Getenv("HOME")))}
	for i, path := range candidates {
		data, err := readSettings(path)
		if err != nil {
			continue
		}
		match := piExtensionCommand().FindSubmatch(data)
		cmd, err := strconv.Unquote(string(bytesOrNil(match, 1)))
		if err != nil || !bytes.Equal(data, pi.Extension(cmd)) {
			f.Status, f.Detail, f.Fix = statusWarn, m.rel(path)+" is not the extension this cairn writes", "cairn install pi"
			if i == 1 {
				f.Fix += " --user"
			}
			return path, cmd, f
		}
		f.Status, f.Detail = statusOK, fmt.Sprintf("%s (runs %s)", m.rel(path), cmd)
		return path, cmd, f
	}
	f.Status, f.Detail, f.Fix = statusWarn, "not installed (.pi/extensions here or in "+filepath.Dir(candidates[1])+")", "cairn install pi"
	if root, err := m.projectRoot(); err == nil && root != wd {
		if _, err := os.Stat(pi.ExtensionPath(root)); err == nil {
			f.Detail, f.Fix = pi.ExtensionPath(root)+" is installed, but pi loads .pi/extensions of the folder it starts in, "+wd, "cd "+root
		}
	}
	return "", "", f
}

func bytesOrNil(match [][]byte, i int) []byte {
	if len(match) <= i {
		return nil
	}
	return match[i]
}

// piProbeSession is a pi session (format 3) of one prompt and its answer,
// which the hook probe asks cairn to compact.
const piProbeSession = `{"type":"session","version":3,"id":"01a22180-defd-73bc-8443-00000000d0c7","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}
{"type":"message","id":"d0c70001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"cairn doctor"}],"timestamp":1767225601000}}
{"type":"message","id":"d0c70002","parentId":"d0c70001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"checked"}],"api":"anthropic-messages","provider":"doctor","model":"doctor","usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":11},"stopReason":"stop","timestamp":1767225602000}}
`

// checkPiHook runs the extension's command as the extension does at
// session_before_compact, on a session of one exchange in a scratch
// folder with a scratch store (nothing of the person's read or written),
// and checks it answers a compaction: a summary and the entry to keep.
func (m *Main) checkPiHook(ctx context.Context, command string) finding {
	f := finding{Check: "pi hook runs"}
	path := command
	if filepath.Base(command) == command {
		found, ok := m.lookPath(command)
		if !ok {
			f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("the extension runs %q, not found on PATH: pi compacts without cairn", command), npmInstall
			return f
		}
		path = found
	}
	dir, err := os.MkdirTemp("", "cairn-doctor-pi-")
	if err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return f
	}
	defer os.RemoveAll(dir)
	session := filepath.Join(dir, "2026-01-01T00-00-00-000Z_01a22180-defd-73bc-8443-00000000d0c7.jsonl")
	if err := os.WriteFile(session, []byte(piProbeSession), 0o600); err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return f
	}
	in, _ := json.Marshal(piCompaction{SessionFile: session, Cwd: dir, Window: 200000, ReserveTokens: 16384, FirstKeptEntryID: "d0c70002",
		Leaf: loop.PiLeaf{ID: "d0c70002", Type: "message", Role: "assistant", StopReason: "stop"}})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "hook", "--agent", "pi", "compact")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+m.Getenv("PATH"), "HOME="+m.Getenv("HOME"), "CAIRN_STORE="+filepath.Join(dir, "cairn.db"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	stdout, err := cmd.Output()
	took := time.Since(start)
	var reply piCompactionReply
	if err == nil {
		err = json.Unmarshal(stdout, &reply)
	}
	if err == nil && (reply.Summary == "" || reply.FirstKeptEntryID == "") {
		err = fmt.Errorf("no summary or kept entry in %s", clipLine(string(stdout), 200))
	}
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("%s hook --agent pi compact: %v: %s (pi compacts without cairn)", path, err, clipLine(stderr.String(), 200)), npmInstall
		return f
	}
	f.Status, f.Detail = statusOK, fmt.Sprintf("%s hook --agent pi compact: a %d-byte summary in %d ms", path, len(reply.Summary), took.Milliseconds())
	return f
}

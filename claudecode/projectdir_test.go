package claudecode

import (
	"strings"
	"testing"
)

// TestProjectDirName: the project folder the real client names for a
// working directory, on every OS; the wants are what the client's own
// function (2.1.197 and 2.1.330: replace /[^a-zA-Z0-9]/g, cut at 200,
// "-" + Math.abs(hash).toString(36)) returns for each path, run in node.
func TestProjectDirName(t *testing.T) {
	for _, c := range []struct{ cwd, want string }{
		{`/home/u/proj`, `-home-u-proj`},
		{`C:\Users\x\proj`, `C--Users-x-proj`},
		{`\\server\share\proj`, `--server-share-proj`},
		{`/home/u/my proj/ünï/😀x`, `-home-u-my-proj--n----x`},
		{`C:\Users\` + strings.Repeat("a", 250) + `\repo`, `C--Users-` + strings.Repeat("a", 191) + `-ovzudn`},
		{"/" + strings.Repeat("日本", 120), strings.Repeat("-", 200) + "-4qr053"},
		{"/tmp/" + strings.Repeat("x", 195) + "😀yy", "-tmp-" + strings.Repeat("x", 195) + "-22ckzw"},
	} {
		if got := ProjectDirName(c.cwd); got != c.want {
			t.Errorf("ProjectDirName(%q)\n = %q\nwant %q", c.cwd, got, c.want)
		}
	}
}

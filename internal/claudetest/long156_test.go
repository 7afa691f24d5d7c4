package claudetest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// Sessions 156 to 159: the shapes issue 41 names, each in its own scratch
// project with real shell commands run by the client.
//
//	156  many short rounds, then /compact shortly before the end: what
//	     the client would send for it is a small remnant
//	157  one prompt and hundreds of steps (an auto-compaction half way)
//	158  forty short rounds, no compaction
//	159  a fork of a session auto-compacted mid-round: the file starts
//	     with the client's summary and works before its first typed prompt
const (
	longEndCompact = "7a11c0de-0000-4000-8000-000000000156"
	longOnePrompt  = "7a11c0de-0000-4000-8000-000000000157"
	longForty      = "7a11c0de-0000-4000-8000-000000000158"
	longForkSource = "7a11c0de-0000-4000-8000-000000000160" // made to be forked; not kept
	longFork       = "7a11c0de-0000-4000-8000-000000000159"

	notesRoot  = "/tmp/cairn-long/notes"
	sweepRoot  = "/tmp/cairn-long/sweep"
	fortyRoot  = "/tmp/cairn-long/forty"
	forkedRoot = "/tmp/cairn-long/forked"
)

// shortSummary is the fake's answer to a compaction request in these
// sessions (it names no turn's match text).
const shortSummary = `<analysis>
The user gave a sequence of small tasks on a shell project; each was done with a file written and a command run.
</analysis>

<summary>
1. Primary Request and Intent: small tasks one after another on the project's scripts and notes.
2. Key Technical Concepts: POSIX sh, awk, wc, grep.
3. Files and Code Sections: the files under the project root, one per task.
4. Errors and fixes: a few commands failed and were fixed.
5. Pending Tasks: none stated.
6. Current Work: the latest task.
7. Optional Next Step: wait for the next task.
</summary>`

// shortTask scripts round i of a session of short rounds in root: a file
// written, a command run on it (every fifth fails first and is fixed by
// an Edit), a decision said every seventh, then an answer.
func shortTask(root, topic string, i int) [][]fakeapi.Block {
	r := &longRun{root: root}
	rel := fmt.Sprintf("%s/%s_%02d.sh", topic, topic, i)
	script := fmt.Sprintf("#!/bin/sh\n# %s step %d: counts the words of its input\nset -eu\nawk '{ n += NF } END { print \"%s_%02d\", n }' \"$@\"\n", topic, i, topic, i)
	if i%5 == 0 {
		script = strings.Replace(script, "END {", "END", 1)
	}
	if i%7 == 3 {
		r.say("Decision for task %d: keep %s in plain awk, since the project allows nothing else.", i, rel)
	}
	r.do(r.write(rel, script))
	check := fmt.Sprintf("sh %s %s && wc -l %s", rel, rel, rel)
	r.do(bash(check, "Run the script on itself"))
	if i%5 == 0 {
		r.think("The awk program lost its brace in task %d; fix it and run again.", i)
		r.do(r.edit(rel, "} END print", "} END { print"))
		r.do(bash(check, "Run it again"))
	}
	return r.answer("Task %d done: %s counts the words of its input (checked on itself).", i, rel)
}

func shortPrompt(topic string, i int) string {
	return fmt.Sprintf("Task %d of the %s series: write %s/%s_%02d.sh, an awk word counter tagged %s_%02d, and run it on itself.", i, topic, topic, topic, i, topic, i)
}

// sweepSteps scripts one prompt's long run over n modules in root: each
// written, read back, checked, edited and checked again (five steps);
// the check fails on every ninth until its edit; then an answer.
func sweepSteps(root string, n int) [][]fakeapi.Block {
	r := &longRun{root: root}
	for i := 1; i <= n; i++ {
		rel := fmt.Sprintf("mods/mod_%03d.awk", i)
		body := fmt.Sprintf("# module %d: sums column %d\n{ s += $%d }\nEND { printf \"mod_%03d %%d\\n\", s }\n", i, 1+i%3, 1+i%3, i)
		if i%9 == 0 {
			body = strings.Replace(body, "END {", "END", 1)
		}
		if i%11 == 0 {
			r.say("Module %d: I'll keep the column rule as it is rather than parse headers.", i)
		}
		r.do(r.write(rel, body))
		r.do(r.read(rel))
		run := fmt.Sprintf("printf '1 2 3\\n4 5 6\\n' | awk -f %s", rel)
		r.do(bash(run, "Run the module"))
		if i%9 == 0 {
			r.do(r.edit(rel, "END printf", "END { printf"))
		} else {
			r.do(r.edit(rel, "# module", "# checked module"))
		}
		r.do(bash(run+" && grep -c checked "+rel+" || true", "Check the module again"))
	}
	return r.answer("All %d modules under mods/ are written, run and checked; the ninths lost a brace and were fixed.", n)
}

// generateMore makes sessions 156 to 159, those -long asks for, and
// returns the ids to keep.
func generateMore(t *testing.T, bin string) []string {
	var ids []string
	env := shapeEnv
	runIn := func(api *fakeapi.Server, root string, args ...string) {
		t.Helper()
		res := claudetest.RunEnv(t, env, bin, longHome, root, api.URL, append(args, shapeFlags...)...)
		if res.IsError {
			t.Fatalf("claude %v: %+v", args, res)
		}
	}
	newAPI := func(turns ...fakeapi.Turn) *fakeapi.Server {
		api := fakeapi.New(turns...)
		api.SetSummary(shortSummary)
		api.SetUsage(func(n int) int { return n / fakeapi.BytesPerToken })
		return api
	}
	if wantLong(longEndCompact) {
		if err := seed(notesRoot, map[string]string{"README": "Scripts, one per task, POSIX sh and awk only.\n"}); err != nil {
			t.Fatal(err)
		}
		var turns []fakeapi.Turn
		for i := 1; i <= 24; i++ {
			turns = append(turns, fakeapi.Turn{Match: shortPrompt("notes", i), Steps: shortTask(notesRoot, "notes", i)})
		}
		last := &longRun{root: notesRoot}
		last.do(bash("ls notes | wc -l", "Count the scripts"))
		turns = append(turns, fakeapi.Turn{Match: "How many scripts are there", Steps: last.answer("24 scripts under notes/.")})
		api := newAPI(turns...)
		for i := 1; i <= 24; i++ {
			args := []string{"--resume", longEndCompact, "-p", shortPrompt("notes", i)}
			if i == 1 {
				args[0] = "--session-id"
			}
			runIn(api, notesRoot, args...)
		}
		runIn(api, notesRoot, "--resume", longEndCompact, "-p", "/compact")
		runIn(api, notesRoot, "--resume", longEndCompact, "-p", "How many scripts are there now?")
		api.Close()
		ids = append(ids, longEndCompact)
	}
	if wantLong(longOnePrompt) {
		if err := seed(sweepRoot, map[string]string{"README": "awk modules, one per file under mods/.\n"}); err != nil {
			t.Fatal(err)
		}
		steps := sweepSteps(sweepRoot, 60)
		api := newAPI(fakeapi.Turn{Match: "Write the sixty awk modules", Steps: steps})
		api.SetRefuse(refuseAt(len(steps) / 2))
		runIn(api, sweepRoot, "--session-id", longOnePrompt, "-p", "Write the sixty awk modules mods/mod_001.awk to mod_060.awk on your own: each written, read back, run on a sample, edited and run again. Never edit README.")
		api.Close()
		ids = append(ids, longOnePrompt)
	}
	if wantLong(longForty) {
		if err := seed(fortyRoot, map[string]string{"README": "Scripts, one per task, POSIX sh and awk only.\n"}); err != nil {
			t.Fatal(err)
		}
		var turns []fakeapi.Turn
		for i := 1; i <= 40; i++ {
			turns = append(turns, fakeapi.Turn{Match: shortPrompt("tally", i), Steps: shortTask(fortyRoot, "tally", i)})
		}
		api := newAPI(turns...)
		for i := 1; i <= 40; i++ {
			args := []string{"--resume", longForty, "-p", shortPrompt("tally", i)}
			if i == 1 {
				args[0] = "--session-id"
			}
			runIn(api, fortyRoot, args...)
		}
		api.Close()
		ids = append(ids, longForty)
	}
	if wantLong(longFork) {
		if err := seed(forkedRoot, map[string]string{"README": "awk modules, one per file under mods/.\n"}); err != nil {
			t.Fatal(err)
		}
		steps := sweepSteps(forkedRoot, 24)
		last := &longRun{root: forkedRoot}
		last.do(bash("ls mods | wc -l && grep -L checked mods/*.awk | wc -l", "Count the modules and unchecked ones"))
		api := newAPI(
			fakeapi.Turn{Match: "Write the twenty-four awk modules", Steps: steps},
			fakeapi.Turn{Match: "What is left to check", Steps: last.answer("Nothing: 24 modules, every one checked.")},
		)
		// Late in the run: the client compacts and carries on, so what it
		// loads from then on starts with its summary and the steps after.
		api.SetRefuse(refuseAt(len(steps) * 3 / 4))
		runIn(api, forkedRoot, "--session-id", longForkSource, "-p", "Write the twenty-four awk modules mods/mod_001.awk to mod_024.awk on your own: each written, read back, run on a sample, edited and run again.")
		runIn(api, forkedRoot, "--resume", longForkSource, "--fork-session", "--session-id", longFork, "-p", "What is left to check?")
		api.Close()
		ids = append(ids, longFork)
	}
	return ids
}

// forkHead reports how the fork's file begins, for the generator's log.
func forkHead(t *testing.T) {
	p := filepath.Join(claudecode.ProjectsDir(longHome), claudecode.ProjectDirName(forkedRoot), longFork+".jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	lines := claudecode.SplitLines(data)
	for i, l := range lines[:min(len(lines), 4)] {
		t.Logf("fork line %d: %.200s", i+1, l)
	}
}

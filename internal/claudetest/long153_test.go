package claudetest_test

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// Session 153: /compact at a round's end, then "continue". Weather
// station scripts in POSIX sh and awk: round 1 cleans and aggregates the
// readings (an awk syntax error fixed, a check that fails until a
// station's separator is handled), the user compacts, says "continue",
// and the agent carries on with the charts and the pipeline (rsync is
// missing and stays missing); a last short question.
const (
	meteoRoot    = "/tmp/cairn-long/meteo"
	meteoPrompt1 = "Build the meteo toolkit in bin/: clean, aggregate and chart the station readings in data/raw/. Only use POSIX sh and awk, never modify anything under data/raw/, and keep every output under out/."
	meteoPrompt2 = "continue"
	meteoPrompt3 = "Which station had the strongest wind, and how long does bin/all.sh take end to end?"
)

const meteoSummary = `<analysis>
The user asked for a weather-station toolkit in POSIX sh and awk; I worked through cleaning and statistics and started the charts.
</analysis>

<summary>
1. Primary Request and Intent: scripts in bin/ that clean, aggregate and chart the readings in data/raw/ (time,temp_c,humidity,wind_kmh, one file per station); only POSIX sh and awk; data/raw/ must never be modified; outputs under out/.
2. Key Technical Concepts: awk with -F, humidity outside 0-100 dropped, one station (zugspitze) separated by semicolons.
3. Files and Code Sections: bin/clean.sh, bin/stats.sh, bin/check.sh, bin/chart.sh, out/clean/*.csv, out/stats/*.txt, out/charts/*.txt.
4. Errors and fixes: an awk syntax error in stats.sh (missing brace), fixed; check.sh failed on zugspitze (0 rows, semicolons), fixed in clean.sh.
5. Pending Tasks: charts for the remaining stations, bin/all.sh running everything, publishing out/.
6. Current Work: charts, three of eight stations done.
7. Optional Next Step: chart the next station.
</summary>`

var meteoStations = []string{"brocken", "feldberg", "zugspitze", "helgoland", "arkona", "wendelstein", "fichtelberg", "kahler_asten"}

// meteoReading is station s's reading number i of a day: temperature in
// tenths of a degree, humidity, wind.
func meteoReading(s, i int) (temp, hum, wind int) {
	temp = -40 + s*23 + (i*(37+s))%160
	hum = 35 + (i*11+s*7)%66
	if (s == 1 || s == 4 || s == 6) && i%17 == 5 {
		hum = -1 - i%9
	}
	wind = 5 + (i*13+s*29)%(40+s*9)
	return
}

func meteoSeed() map[string]string {
	files := map[string]string{"data/README": "Raw readings as exported by the stations, every 15 minutes on 2026-10-14. Read only: the exporter overwrites them.\n"}
	for s, name := range meteoStations {
		sep := ","
		if name == "zugspitze" {
			sep = ";"
		}
		var b strings.Builder
		b.WriteString(strings.Join([]string{"time", "temp_c", "humidity", "wind_kmh"}, sep) + "\n")
		for i := 0; i < 96; i++ {
			t, h, w := meteoReading(s, i)
			fmt.Fprintf(&b, "2026-10-14T%02d:%02d%s%d.%d%s%d%s%d\n", i/4, i%4*15, sep, t/10, iabs(t%10), sep, h, sep, w)
		}
		files["data/raw/station_"+name+".csv"] = b.String()
	}
	return files
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

const meteoClean = `#!/bin/sh
# clean.sh FILE: drop readings whose humidity is outside 0-100 or that
# lack a field; print the rest, comma-separated, header first.
set -eu
awk -F, 'NR == 1 { print; next }
NF == 4 && $3 >= 0 && $3 <= 100 { print }' "$1"
`

const meteoStats = `#!/bin/sh
# stats.sh FILE: min, max and mean temperature, and the strongest wind.
set -eu
awk -F, 'NR > 1 {
	if (min == "" || $2 < min) min = $2
	if (max == "" || $2 > max) max = $2
	sum += $2; n++
	if ($4 > wind) wind = $4
END { printf "%s rows=%d min=%.1f max=%.1f mean=%.2f wind_max=%d\n", FILENAME, n, min, max, sum / n, wind }' "$1"
`

const meteoCheck = `#!/bin/sh
# check.sh: every station must keep at least 80 of its 96 readings.
fail=0
for f in data/raw/station_*.csv; do
	name=$(basename "$f")
	raw=$(($(wc -l < "$f") - 1))
	kept=$(($(wc -l < "out/clean/$name") - 1))
	if [ "$kept" -lt 80 ]; then
		echo "FAIL: $name keeps $kept of $raw readings"
		fail=1
	else
		echo "ok: $name keeps $kept of $raw readings"
	fi
done
exit $fail
`

const meteoChart = `#!/bin/sh
# chart.sh FILE: hourly mean temperature as a bar of '#', one per degree above -5.
set -eu
awk -F, 'NR > 1 { h = substr($1, 12, 2); s[h] += $2; n[h]++ }
END { for (h = 0; h < 24; h++) { k = sprintf("%02d", h); m = s[k] / n[k]; bar = ""; for (i = -5; i < m; i++) bar = bar "#"; printf "%s %6.1f %s\n", k, m, bar } }' "$1"
`

// meteoRound1 is about 60 tool calls, ending with three charts of eight
// made and the rest on the todo list.
func meteoRound1() [][]fakeapi.Block {
	r := &longRun{root: meteoRoot}
	plan := []string{"Look at the raw readings", "Write bin/clean.sh", "Write bin/stats.sh", "Write bin/check.sh", "Clean and aggregate every station", "Chart every station", "Write bin/all.sh", "Publish out/"}
	state := func(done, active int) fakeapi.Block {
		var items []string
		for i, p := range plan {
			switch {
			case i < done:
				items = append(items, "+ "+p)
			case i == active:
				items = append(items, "> "+p)
			default:
				items = append(items, "- "+p)
			}
		}
		return todos(items...)
	}
	r.think("POSIX sh and awk only, data/raw/ is read-only, outputs under out/. Plan first, then look at the data.").do(state(0, 0))
	r.do(bash("ls data/raw | wc -l && wc -l data/raw/*.csv && head -3 data/raw/station_brocken.csv", "Look at the raw readings"))
	r.do(bash("awk -F, 'NR > 1 && ($3 < 0 || $3 > 100)' data/raw/*.csv | wc -l && head -2 data/raw/station_zugspitze.csv", "Count bad humidity readings"))
	r.say("Some stations report negative humidity (sensor glitches). I'll drop those rows rather than clamp them to 0, because a clamped reading would look real in the means.").
		do(state(1, 1), r.write("bin/clean.sh", meteoClean))
	r.do(r.write("bin/stats.sh", meteoStats), state(2, 2))
	r.do(bash("mkdir -p out/clean out/stats && sh bin/clean.sh data/raw/station_brocken.csv > out/clean/station_brocken.csv && sh bin/stats.sh out/clean/station_brocken.csv", "Clean and aggregate brocken"))
	r.think("awk complains about the END line: the per-row block is never closed before END. Add the closing brace.").
		say("stats.sh has an awk syntax error: the row block is not closed before `END`. Fixing it.").
		do(r.read("bin/stats.sh"))
	r.do(r.edit("bin/stats.sh", "\tif ($4 > wind) wind = $4\nEND", "\tif ($4 > wind) wind = $4\n}\nEND"))
	r.do(bash("sh bin/stats.sh out/clean/station_brocken.csv", "Re-run the statistics"))
	r.do(r.write("bin/check.sh", meteoCheck), state(3, 3))
	for _, name := range meteoStations {
		r.do(bash(fmt.Sprintf("sh bin/clean.sh data/raw/station_%s.csv > out/clean/station_%s.csv && wc -l < out/clean/station_%s.csv", name, name, name), "Clean "+name))
	}
	for _, name := range meteoStations {
		r.do(bash(fmt.Sprintf("awk -F'[,;]' 'NR > 1 && ($3 < 0 || $3 > 100)' data/raw/station_%s.csv | wc -l", name), "Bad humidity rows at "+name))
	}
	r.do(bash("sh bin/check.sh", "Check what the cleaning kept"))
	r.think("zugspitze keeps 0 rows: its file uses ';' as the separator, so NF is 1 for every line. Normalise the separator in clean.sh (tr ';' ',') rather than special-casing the station, because any station's exporter may switch.").
		say("The check fails for zugspitze: its export is semicolon-separated. I'll convert `;` to `,` in clean.sh instead of special-casing one station, since any exporter may switch.").
		do(r.read("bin/clean.sh"))
	r.do(r.edit("bin/clean.sh", "awk -F, 'NR == 1 { print; next }\nNF == 4 && $3 >= 0 && $3 <= 100 { print }' \"$1\"", "tr ';' ',' < \"$1\" | awk -F, 'NR == 1 { print; next }\nNF == 4 && $3 >= 0 && $3 <= 100 { print }'"))
	r.do(bash("sh bin/clean.sh data/raw/station_zugspitze.csv > out/clean/station_zugspitze.csv && sh bin/check.sh", "Re-clean zugspitze and re-check"))
	r.do(state(4, 4), bash("git diff --stat 2>/dev/null; md5sum data/raw/*.csv | wc -l", "Make sure data/raw is untouched"))
	for i, name := range meteoStations {
		if i%3 == 1 {
			r.say("Statistics for %d of %d stations written.", i, len(meteoStations))
		}
		r.do(bash(fmt.Sprintf("sh bin/stats.sh out/clean/station_%s.csv | tee out/stats/station_%s.txt", name, name), "Aggregate "+name))
		if i%2 == 0 {
			r.do(r.read(fmt.Sprintf("out/stats/station_%s.txt", name)))
		}
	}
	r.do(bash("cat out/stats/*.txt | sort -t= -k4 -n -r | head -3 && du -sh out", "Rank stations by max temperature"))
	r.do(state(5, 5), r.write("bin/chart.sh", meteoChart))
	for _, name := range meteoStations[:3] {
		r.do(bash(fmt.Sprintf("mkdir -p out/charts && sh bin/chart.sh out/clean/station_%s.csv | tee out/charts/station_%s.txt | head -12", name, name), "Chart "+name))
		r.do(bash(fmt.Sprintf("wc -l out/charts/station_%s.txt && awk '{print length($3)}' out/charts/station_%s.txt | sort -n | tail -1", name, name), "Check the chart of "+name))
	}
	r.do(state(5, 5))
	return r.answer("Progress so far:\n\n- `bin/clean.sh` drops readings with humidity outside 0–100 and accepts `;` exports (zugspitze); `bin/check.sh` passes for all 8 stations.\n- `bin/stats.sh` (min, max, mean temperature, strongest wind): `out/stats/` has one file per station.\n- `bin/chart.sh`: hourly bars for brocken, feldberg and zugspitze in `out/charts/`.\n\nLeft: charts for the other 5 stations, `bin/all.sh`, and publishing `out/`. `data/raw/` was only read.")
}

const meteoAll = `#!/bin/sh
# all.sh: clean, aggregate and chart every station, then check.
set -eu
mkdir -p out/clean out/stats out/charts
for f in data/raw/station_*.csv; do
	name=$(basename "$f" .csv)
	sh bin/clean.sh "$f" > "out/clean/$name.csv"
	sh bin/stats.sh "out/clean/$name.csv" > "out/stats/$name.txt"
	sh bin/chart.sh "out/clean/$name.csv" > "out/charts/$name.txt"
done
sh bin/check.sh
`

const meteoPublish = `#!/bin/sh
# publish.sh: copy out/ to the team's share.
set -eu
rsync -a --delete out/ /tmp/cairn-long/meteo-share/
echo "published $(find out -type f | wc -l) files"
`

// meteoRound2 is the "continue" after /compact: about 40 tool calls.
func meteoRound2() [][]fakeapi.Block {
	r := &longRun{root: meteoRoot}
	r.think("Continuing from the summary: charts for the remaining five stations, then bin/all.sh, then publishing. Re-read chart.sh first since the context was compacted.").
		say("Continuing with the charts of the remaining five stations.").
		do(r.read("bin/chart.sh"), todos("+ Look at the raw readings", "+ Write bin/clean.sh", "+ Write bin/stats.sh", "+ Write bin/check.sh", "+ Clean and aggregate every station", "> Chart every station", "- Write bin/all.sh", "- Publish out/"))
	for i, name := range meteoStations[3:] {
		if i == 2 {
			r.say("Two more charts to go after %s.", name)
		}
		r.do(bash(fmt.Sprintf("sh bin/chart.sh out/clean/station_%s.csv > out/charts/station_%s.txt && tail -6 out/charts/station_%s.txt", name, name, name), "Chart "+name))
		r.do(bash(fmt.Sprintf("awk '$2 > 10' out/charts/station_%s.txt | wc -l", name), "Hours above 10 degrees at "+name))
		r.do(r.read(fmt.Sprintf("out/stats/station_%s.txt", name)))
	}
	for _, name := range meteoStations[3:] {
		r.do(bash(fmt.Sprintf("sort -t, -k4 -n out/clean/station_%s.csv | tail -3", name), "Windiest readings at "+name))
	}
	r.do(bash("ls out/charts | wc -l && du -ch out/charts/* | tail -1", "Count the charts"))
	r.do(todos("+ Look at the raw readings", "+ Write bin/clean.sh", "+ Write bin/stats.sh", "+ Write bin/check.sh", "+ Clean and aggregate every station", "+ Chart every station", "> Write bin/all.sh", "- Publish out/"),
		r.write("bin/all.sh", meteoAll))
	r.do(bash("rm -rf out && time sh bin/all.sh", "Rebuild out/ from scratch, timed"))
	r.do(bash("find out -type f | wc -l && cat out/stats/*.txt | awk '{print $NF}' | sort -t= -k2 -n | tail -1", "Count outputs and find the strongest wind"))
	r.do(r.write("out/tmp_scratch.txt", "scratch: hourly means checked by hand for helgoland 06-09h\n"))
	r.do(bash("rm out/tmp_scratch.txt && ls out", "Remove the scratch file"))
	r.do(todos("+ Look at the raw readings", "+ Write bin/clean.sh", "+ Write bin/stats.sh", "+ Write bin/check.sh", "+ Clean and aggregate every station", "+ Chart every station", "+ Write bin/all.sh", "> Publish out/"),
		r.write("bin/publish.sh", meteoPublish))
	r.do(bash("sh bin/publish.sh", "Publish out/"))
	r.say("rsync is not installed here, and the constraint is POSIX sh and awk only, so I won't install it or rewrite the copy around it without asking; publishing stays open.").
		do(bash("command -v rsync cp tar; echo exit=$?", "See which copy tools exist"))
	for _, name := range []string{"brocken", "helgoland", "arkona"} {
		r.do(bash(fmt.Sprintf("grep -c . out/clean/station_%s.csv && awk -F, 'NR > 1 && $4 > 60' out/clean/station_%s.csv | wc -l", name, name), "Strong-wind readings at "+name))
	}
	r.do(r.write("out/README.md", "# meteo outputs\n\n- clean/: readings kept (humidity 0-100, `;` exports converted)\n- stats/: min, max, mean temperature and strongest wind per station\n- charts/: hourly mean temperature bars\n\nRebuild with `sh bin/all.sh`. Not yet published: bin/publish.sh needs rsync.\n"))
	r.do(r.read("out/README.md"))
	r.do(r.edit("out/README.md", "Not yet published", "Not published yet (2026-10-14 data)"))
	r.do(bash("sh bin/check.sh | grep -c '^ok' && md5sum data/raw/*.csv | md5sum", "Final check"))
	r.do(todos("+ Look at the raw readings", "+ Write bin/clean.sh", "+ Write bin/stats.sh", "+ Write bin/check.sh", "+ Clean and aggregate every station", "+ Chart every station", "+ Write bin/all.sh", "- Publish out/ (rsync is missing)"))
	return r.answer("Done except publishing:\n\n- charts for all 8 stations in `out/charts/`; `bin/all.sh` rebuilds `out/` from scratch (clean → stats → chart → check) and `bin/check.sh` reports ok for 8 of 8.\n- `out/README.md` describes the outputs; the scratch file was removed.\n- `bin/publish.sh` fails: `rsync: not found` (exit 127). rsync isn't installed and you asked for POSIX sh and awk only, so I left it for you to decide.\n- `data/raw/` is unchanged.")
}

func meteoRound3() [][]fakeapi.Block {
	r := &longRun{root: meteoRoot}
	r.do(bash("grep -h wind_max out/stats/*.txt | sort -t= -k6 -n | tail -1", "Find the strongest wind"), bash("time sh bin/all.sh > /dev/null", "Time the pipeline"))
	best, wind := "", 0
	for s, name := range meteoStations {
		for i := 0; i < 96; i++ {
			if _, h, w := meteoReading(s, i); h >= 0 && h <= 100 && w > wind {
				best, wind = name, w
			}
		}
	}
	return r.answer("The strongest wind was at %s, %d km/h. `bin/all.sh` takes the time shown above (`real`), well under a second for the 8 stations.", best, wind)
}

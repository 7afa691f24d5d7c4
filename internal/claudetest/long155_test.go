package claudetest_test

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// Session 155: a 1M-window session with no compaction. An incident
// investigation over a day of checkout logs, read in large pieces (the
// context climbs past 200k tokens), then a Go latency tool with a
// percentile off by one found by its test; the metrics endpoint is never
// reachable.
const (
	tracerRoot    = "/tmp/cairn-long/tracer"
	tracerModel   = "claude-sonnet-4-5[1m]"
	tracerPrompt1 = "Find out why checkout latency spiked on 2026-11-02. The service logs are in logs/, one file per hour. Work through them on your own and write the findings to FINDINGS.md; don't modify anything in logs/, and only add files under analysis/ besides FINDINGS.md."
	tracerPrompt2 = "Now write a Go tool, cmd/latency, that prints p50/p95/p99 per route for a log file, with tests, and check it agrees with your awk numbers on every hour. Make sure go vet is clean."
)

var tracerRoutes = []string{"/api/cart", "/api/payment", "/api/shipping", "/api/session", "/api/catalog"}

// tracerLine is request i of hour h.
func tracerLine(h, i int) string {
	route := tracerRoutes[(i*7+h)%len(tracerRoutes)]
	pod := fmt.Sprintf("checkout-7f9c-%d", (i/3+h)%5)
	dur := 20 + (i*37+h*11)%140
	status := 200
	extra := ""
	if route == "/api/payment" {
		dur += 60
		if (h == 14 || h == 15) && strings.HasSuffix(pod, "-2") {
			dur = 1800 + (i*53)%2400
			extra = " upstream=psp-gateway retry=3"
			if i%4 == 0 {
				status = 504
			}
		}
	}
	if (i*13+h)%97 == 0 {
		status = 500
	}
	method := "GET"
	if route == "/api/payment" || route == "/api/cart" {
		method = "POST"
	}
	return fmt.Sprintf("2026-11-02T%02d:%02d:%02d.%03dZ svc=checkout route=%s method=%s status=%d dur_ms=%d trace=%08x pod=%s region=eu-west-1%s\n",
		h, i*60/320, (i*37)%60, (i*211)%1000, route, method, status, dur, uint32(h*100000+i*7919), pod, extra)
}

func tracerSeed() map[string]string {
	files := map[string]string{"logs/checkout-canary.log": ""}
	for h := 0; h < 24; h++ {
		var b strings.Builder
		for i := 0; i < 320; i++ {
			b.WriteString(tracerLine(h, i))
		}
		files[fmt.Sprintf("logs/checkout-%02d.log", h)] = b.String()
	}
	return files
}

const tracerMeanAwk = `# mean.awk: request count and mean duration per route.
# usage: awk -f analysis/mean.awk logs/checkout-HH.log
{
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^route=/) route = substr($i, 7)
		if ($i ~ /^dur_ms=/) dur = substr($i, 8) + 0
	}
	n++; sum += dur; c[route]++; s[route] += dur
}
END {
	printf "requests=%d mean_ms=%.1f\n", n, sum / n
	for (r in c) printf "%-14s %5d %8.1f\n", r, c[r], s[r] / c[r]
}
`

const tracerP99 = `#!/bin/sh
# p99.sh FILE ROUTE: the 99th percentile of dur_ms for one route (nearest rank).
grep "route=$2 " "$1" | sed 's/.*dur_ms=\([0-9]*\).*/\1/' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { print "none"; exit } k = int(NR * 0.99 + 0.999999); print v[k] }'
`

// tracerRound1 is about 85 tool calls, reading every hour in large
// pieces.
func tracerRound1() [][]fakeapi.Block {
	r := &longRun{root: tracerRoot}
	r.think("An incident hunt: read the logs hour by hour, find when and where latency went up, write FINDINGS.md. logs/ is read-only; helpers go under analysis/.").
		do(todos("> Survey the logs", "- Read every hour", "- Compute mean and p99 per route", "- Find the cause", "- Write FINDINGS.md"))
	r.do(bash("ls -la logs | head -5 && ls logs | wc -l && wc -l logs/*.log | tail -1 && du -sh logs", "Survey the logs"))
	r.do(r.write("analysis/mean.awk", tracerMeanAwk), r.write("analysis/p99.sh", tracerP99))
	r.do(bash("awk -f analysis/mean.awk logs/checkout-canary.log", "Try the mean on the canary log"))
	r.say("The canary log is empty and mean.awk divides by zero on it. I'll guard the END block rather than skip the file, because an empty hour is itself a finding.").
		do(r.read("analysis/mean.awk"))
	r.do(r.edit("analysis/mean.awk", "END {\n\tprintf", "END {\n\tif (n == 0) { print \"requests=0\"; exit }\n\tprintf"))
	r.do(bash("awk -f analysis/mean.awk logs/checkout-canary.log && awk -f analysis/mean.awk logs/checkout-00.log", "Re-run the mean"))
	r.do(todos("+ Survey the logs", "> Read every hour", "- Compute mean and p99 per route", "- Find the cause", "- Write FINDINGS.md"))
	for h := 0; h < 24; h++ {
		f := fmt.Sprintf("logs/checkout-%02d.log", h)
		if h%5 == 2 {
			r.say("Hour %02d next; %d hours read so far.", h, h)
		}
		if h == 14 {
			r.think("Hour 14 is where the alert fired. Read it all and compare the payment route across pods.")
		}
		r.do(bash(fmt.Sprintf("sed -n 1,150p %s", f), fmt.Sprintf("Read hour %02d", h)))
		r.do(bash(fmt.Sprintf("awk -f analysis/mean.awk %s && sh analysis/p99.sh %s /api/payment", f, f), fmt.Sprintf("Mean and payment p99 of hour %02d", h)))
		if h == 14 || h == 15 {
			r.do(bash(fmt.Sprintf("grep 'route=/api/payment' %s | grep -o 'pod=[^ ]*' | sort | uniq -c && grep -c 'status=504' %s && grep 'retry=3' %s | head -40", f, f, f), fmt.Sprintf("Payment requests by pod, hour %02d", h)))
		}
	}
	r.do(todos("+ Survey the logs", "+ Read every hour", "> Compute mean and p99 per route", "- Find the cause", "- Write FINDINGS.md"))
	r.do(bash("for f in logs/checkout-[0-9]*.log; do printf '%s ' $f; sh analysis/p99.sh $f /api/payment; done | tee analysis/payment_p99.txt", "Payment p99 for every hour"))
	r.do(bash("for route in /api/cart /api/shipping /api/session /api/catalog; do printf '%s ' $route; cat logs/checkout-1[45].log > analysis/scratch.txt; sh analysis/p99.sh analysis/scratch.txt $route; done", "p99 of the other routes in the spike hours"))
	r.do(bash("grep -h 'upstream=psp-gateway' logs/*.log | grep -o 'pod=[^ ]*' | sort | uniq -c && grep -h 'upstream=psp-gateway' logs/*.log | cut -c12-13 | sort | uniq -c", "Where and when the gateway retries happen"))
	r.think("Only pod checkout-7f9c-2, only /api/payment, only hours 14 and 15, always with upstream=psp-gateway retry=3. Other routes are flat. That is one pod retrying the payment gateway, not load.").
		say("The cause is narrow: every slow request is `/api/payment` on pod `checkout-7f9c-2` during 14:00–15:59, each with `upstream=psp-gateway retry=3`; the other routes and pods stay flat. So it's one pod retrying the payment gateway, not general load.").
		do(todos("+ Survey the logs", "+ Read every hour", "+ Compute mean and p99 per route", "+ Find the cause", "> Write FINDINGS.md"))
	r.do(r.write("FINDINGS.md", "# Checkout latency spike, 2026-11-02\n\n## What\n\np99 of `/api/payment` rose from about 200 ms to several seconds between 14:00 and 15:59 UTC; a quarter of those requests ended in 504.\n\n## Where\n\nOnly pod `checkout-7f9c-2`. Every slow request carries `upstream=psp-gateway retry=3`.\n\n## Not the cause\n\n- Load: request counts per hour are flat (320 an hour).\n- Other routes: cart, shipping, session and catalog keep their usual p99.\n\n## Evidence\n\n`analysis/payment_p99.txt` (p99 per hour), `analysis/mean.awk`, `analysis/p99.sh`.\n"))
	r.do(r.read("FINDINGS.md"))
	r.do(r.edit("FINDINGS.md", "## Not the cause", "## Likely cause\n\nThe pod's connection to the PSP gateway degraded and each payment went through three retries. Check the pod's gateway client (timeouts, pool) for that window.\n\n## Not the cause"))
	r.do(bash("rm analysis/scratch.txt && ls analysis && wc -w FINDINGS.md", "Remove the scratch file"))
	r.do(bash("md5sum logs/*.log | md5sum && ls logs | wc -l", "Confirm logs/ is untouched"))
	r.do(todos("+ Survey the logs", "+ Read every hour", "+ Compute mean and p99 per route", "+ Find the cause", "+ Write FINDINGS.md"))
	return r.answer("Findings are in `FINDINGS.md`.\n\n- The spike is `/api/payment` only, 14:00–15:59 UTC, on one pod, `checkout-7f9c-2`; its p99 went from about 200 ms to seconds, with 504s.\n- Every slow request has `upstream=psp-gateway retry=3`: the pod was retrying the payment gateway. Load was flat (320 requests an hour) and the other four routes were unaffected.\n- Helpers: `analysis/mean.awk` (guarded against an empty log after it divided by zero on the canary), `analysis/p99.sh`, `analysis/payment_p99.txt`. `logs/` was not modified.")
}

const tracerLatency = `// Command latency prints p50, p95 and p99 of dur_ms per route for a
// checkout log.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Percentile returns the p-th percentile (0 < p <= 1) of sorted values,
// by nearest rank.
func Percentile(sorted []int, p float64) int {
	if len(sorted) == 0 {
		return 0
	}
	k := int(p * float64(len(sorted)))
	if k >= len(sorted) {
		k = len(sorted) - 1
	}
	return sorted[k]
}

func field(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: latency FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
	defer f.Close()
	durs := map[string][]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		d, err := strconv.Atoi(field(sc.Text(), "dur_ms"))
		if err != nil {
			continue
		}
		r := field(sc.Text(), "route")
		durs[r] = append(durs[r], d)
	}
	var routes []string
	for r := range durs {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	fmt.Printf("%-14s %6s %6s %6s %6s\n", "route", "n", "p50", "p95", "p99")
	for _, r := range routes {
		v := durs[r]
		sort.Ints(v)
		fmt.Printf("%-14s %6d %6d %6d %6d\n", r, len(v), Percentile(v, 0.50), Percentile(v, 0.95), Percentile(v, 0.99))
	}
}
`

const tracerLatencyTest = `package main

import "testing"

func TestPercentile(t *testing.T) {
	v := make([]int, 100)
	for i := range v {
		v[i] = i + 1
	}
	for _, c := range []struct {
		p    float64
		want int
	}{{0.50, 50}, {0.95, 95}, {0.99, 99}, {1, 100}} {
		if got := Percentile(v, c.p); got != c.want {
			t.Errorf("p%.0f of 1..100 = %d, want %d", c.p*100, got, c.want)
		}
	}
	if got := Percentile(nil, 0.99); got != 0 {
		t.Errorf("p99 of nothing = %d, want 0", got)
	}
}
`

// tracerRound2 is about 80 tool calls: the Go tool, its off-by-one, and a
// comparison with the awk numbers on every hour.
func tracerRound2() [][]fakeapi.Block {
	r := &longRun{root: tracerRoot}
	r.think("A Go tool for the same percentiles, tests first, then compare with p99.sh hour by hour. go vet must be clean.").
		do(todos("> Write cmd/latency with a percentile test", "- Compare with the awk p99 on every hour", "- Cross-check the live metrics", "- Update FINDINGS.md"))
	r.do(r.write("go.mod", "module tracer\n\ngo 1.22\n"), r.write("cmd/latency/main.go", tracerLatency), r.write("cmd/latency/main_test.go", tracerLatencyTest))
	r.do(bash("go vet ./... && go test -count=1 ./cmd/latency/", "Vet and test"))
	r.think("p50 of 1..100 came out 51: int(p*n) is a 0-based index one past the nearest rank. Nearest rank is ceil(p*n), index ceil(p*n)-1.").
		say("The test shows an off-by-one: `int(p*n)` indexes one past the nearest rank (p50 of 1..100 gives 51). I'll use ceil(p·n)−1, the same nearest-rank rule as `p99.sh`, so the two tools can be compared exactly.").
		do(r.read("cmd/latency/main.go"))
	r.do(r.edit("cmd/latency/main.go", "\tk := int(p * float64(len(sorted)))\n\tif k >= len(sorted) {", "\tk := int(math.Ceil(p*float64(len(sorted)))) - 1\n\tif k < 0 {\n\t\tk = 0\n\t}\n\tif k >= len(sorted) {"))
	r.do(r.edit("cmd/latency/main.go", "\t\"fmt\"\n\t\"os\"", "\t\"fmt\"\n\t\"math\"\n\t\"os\""))
	r.do(bash("gofmt -l . ; go vet ./... && go test -count=1 -v ./cmd/latency/ 2>&1 | tail -4", "Re-test"))
	r.do(bash("go build -o analysis/latency ./cmd/latency && ls -la analysis/latency | awk '{print $5, \"bytes\"}'", "Build the tool"))
	r.do(todos("+ Write cmd/latency with a percentile test", "> Compare with the awk p99 on every hour", "- Cross-check the live metrics", "- Update FINDINGS.md"))
	for h := 0; h < 24; h++ {
		f := fmt.Sprintf("logs/checkout-%02d.log", h)
		if h%6 == 3 {
			r.say("%d of 24 hours agree so far.", h)
		}
		r.do(bash(fmt.Sprintf("./analysis/latency %s", f), fmt.Sprintf("Percentiles of hour %02d", h)))
		r.do(bash(fmt.Sprintf("go_p99=$(./analysis/latency %s | awk '$1 == \"/api/payment\" {print $5}'); awk_p99=$(sh analysis/p99.sh %s /api/payment); echo \"go=$go_p99 awk=$awk_p99\"; [ \"$go_p99\" = \"$awk_p99\" ]", f, f), fmt.Sprintf("Compare payment p99, hour %02d", h)))
		if h%2 == 0 {
			r.do(bash(fmt.Sprintf("grep 'route=/api/payment' %s | head -90", f), fmt.Sprintf("Payment lines of hour %02d", h)))
		}
	}
	r.do(bash("for f in logs/checkout-[0-9]*.log; do ./analysis/latency $f | awk -v f=$f '$1 == \"/api/payment\" {print f, $5}'; done > analysis/payment_p99_go.txt && diff <(awk '{print $2}' analysis/payment_p99.txt) <(awk '{print $2}' analysis/payment_p99_go.txt) && echo identical", "Diff the two p99 tables"))
	r.do(todos("+ Write cmd/latency with a percentile test", "+ Compare with the awk p99 on every hour", "> Cross-check the live metrics", "- Update FINDINGS.md"))
	r.do(bash("./analysis/latency logs/checkout-canary.log && ./analysis/latency logs/missing.log", "Run the tool on the empty canary and a missing file"))
	r.do(bash("for h in 13 14 15 16; do ./analysis/latency logs/checkout-$h.log | grep payment; done", "Payment percentiles around the spike"))
	r.do(bash("grep -c . analysis/payment_p99_go.txt && sort -k2 -n analysis/payment_p99_go.txt | tail -3", "Worst hours by the Go tool"))
	r.do(bash("curl -sS --max-time 3 http://127.0.0.1:9/metrics | grep checkout_latency", "Fetch the live latency metrics"))
	r.say("The metrics endpoint isn't reachable from this sandbox (connection refused), so I can't cross-check with live Prometheus numbers; the logs are the only source here.").
		do(r.read("FINDINGS.md"))
	r.do(r.edit("FINDINGS.md", "## Evidence\n", "## Evidence\n\n`go run ./cmd/latency logs/checkout-HH.log` gives p50/p95/p99 per route; its payment p99 matches `analysis/p99.sh` on all 24 hours (`analysis/payment_p99_go.txt`). Live metrics were not checked: the endpoint was unreachable.\n\n"))
	r.do(bash("go vet ./... && go test -count=1 ./... && time ./analysis/latency logs/checkout-14.log", "Final vet, test and timing"))
	r.do(bash("md5sum logs/*.log | md5sum && du -sh analysis", "Confirm logs/ is untouched"))
	r.do(todos("+ Write cmd/latency with a percentile test", "+ Compare with the awk p99 on every hour", "- Cross-check the live metrics (endpoint unreachable)", "+ Update FINDINGS.md"))
	return r.answer("`cmd/latency` is written and tested, and `go vet ./...` is clean.\n\n- `Percentile` first indexed one past the nearest rank (`p50 of 1..100 = 51`); it now uses ceil(p·n)−1, like `p99.sh`.\n- Its payment p99 equals the awk numbers on all 24 hours (`analysis/payment_p99_go.txt`, identical to `analysis/payment_p99.txt`).\n- Not done: cross-checking live metrics; `curl` to the metrics endpoint fails with connection refused.\n- `FINDINGS.md` has the tool and the comparison; `logs/` is untouched.")
}

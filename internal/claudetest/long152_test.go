package claudetest_test

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// Session 152: a whole round before the compacted one. A Go ledger:
// round 1 builds the package (a legacy folder that does not build is
// removed, an off-by-one found by a failing test and fixed), round 2 the
// statement import and reconciliation, auto-compacted half way, with a
// production config that is never found; round 3 asks one figure.
const (
	ledgerRoot    = "/tmp/cairn-long/ledger"
	ledgerPrompt1 = "Set up the ledger module in Go on your own: money amounts, postings, balances and a chart of accounts, with tests. Only use the standard library, and never touch third_party/ (finance owns the exchange rates there)."
	ledgerPrompt2 = "Now the statement import: parse the bank statements (CSV) into postings, reconcile them month by month against the journal and report mismatches, as a command cmd/reconcile. Work alone, don't change the Balance signature, and make sure go test ./... passes at the end."
	ledgerPrompt3 = "How many mismatches are there over the year? Just the figure and the worst month."
)

const ledgerSummary = `<analysis>
The user wanted the Go ledger module and then the bank statement import; I have worked alone, file by file, with go test after each change.
</analysis>

<summary>
1. Primary Request and Intent: a Go module "ledger" (standard library only; third_party/ is finance's and must not be touched). Round 1 built money amounts, postings, Balance and the chart of accounts. Current request: parse bank statements (CSV) into postings, reconcile them month by month against the journal, report mismatches from cmd/reconcile; the Balance signature must stay; go test ./... must pass at the end.
2. Key Technical Concepts: ledger.Amount in cents, encoding/csv (amounts like "1,250.00" are quoted), per-month reconciliation.
3. Files and Code Sections: ledger/money.go, ledger/posting.go, accounts/*.go, importer/csv.go, importer/csv_test.go, cmd/reconcile/main.go, testdata/statements/2026-MM.csv, testdata/journal/2026-MM.csv, reports/2026-MM.txt.
4. Errors and fixes: legacy/ did not build (shopspring/decimal missing) and was removed; Balance skipped the last posting (fixed); the naive strings.Split parser broke on quoted amounts (now encoding/csv).
5. Pending Tasks: reconcile the remaining months, the yearly total, the final test run.
6. Current Work: reconciling month by month, one report per month under reports/.
7. Optional Next Step: the next month in order.
</summary>`

var ledgerMonths = []string{"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"}

var ledgerKinds = []struct{ name, normal, doc string }{
	{"assets", "Debit", "cash at the bank, receivables and stock"},
	{"liabilities", "Credit", "what the business owes: loans, payables"},
	{"equity", "Credit", "the owners' stake and retained earnings"},
	{"income", "Credit", "sales, fees and interest earned"},
	{"expenses", "Debit", "rent, wages, energy and everything spent"},
	{"receivables", "Debit", "invoices sent and not yet paid"},
	{"payables", "Credit", "supplier bills not yet paid"},
	{"inventory", "Debit", "goods held for sale, at cost"},
	{"payroll", "Credit", "wages and social charges due to staff"},
	{"taxes", "Credit", "VAT collected and income tax due"},
	{"depreciation", "Credit", "the wear of equipment, booked monthly"},
	{"suspense", "Debit", "postings waiting for an account"},
}

func ledgerSeed() map[string]string {
	return map[string]string{
		"third_party/rates.json": "{\n  \"base\": \"EUR\",\n  \"as_of\": \"2026-10-31\",\n  \"rates\": {\"USD\": 1.0842, \"GBP\": 0.8571, \"CHF\": 0.9433, \"SEK\": 11.482, \"JPY\": 163.2}\n}\n",
		"third_party/README":     "Exchange rates exported by finance every month. Do not edit by hand: the nightly export overwrites this folder.\n",
		"legacy/old_ledger.go":   "package legacy\n\nimport \"github.com/shopspring/decimal\"\n\n// Total is the 2019 ledger's sum, kept for reference.\nfunc Total(xs []string) decimal.Decimal {\n\tsum := decimal.New(0, 0)\n\tfor _, x := range xs {\n\t\tsum = sum.Add(decimal.RequireFromString(x))\n\t}\n\treturn sum\n}\n",
		"README.md":              "# ledger\n\nDouble-entry bookkeeping for the shop. Work in progress.\n",
	}
}

// ledgerRound1 is about 60 tool calls: the module, a failing build, a
// failing test fixed, and the chart of accounts.
func ledgerRound1() [][]fakeapi.Block {
	r := &longRun{root: ledgerRoot}
	r.think("The user wants a Go module with money, postings, balances and accounts, standard library only, and third_party/ is off limits. Look at the tree first.").
		say("I'll start by looking at what is already in the project.").
		do(todos("> Look at the existing tree", "- Create the Go module", "- Write money amounts and postings", "- Write Balance with a test", "- Write the chart of accounts", "- Run the whole test suite"))
	r.do(bash("ls -R && wc -l legacy/*.go third_party/*", "List the project"))
	r.do(r.read("third_party/rates.json"), r.read("legacy/old_ledger.go"))
	r.do(r.write("go.mod", "module ledger\n\ngo 1.22\n"))
	r.do(bash("go build ./...", "Build everything"))
	r.think("legacy/ imports github.com/shopspring/decimal, which is not in go.mod and not allowed: standard library only. Nothing else imports legacy (grep to be sure).").
		do(bash("grep -rn 'legacy' --include=*.go . | grep -v '^./legacy/' | wc -l", "Find importers of legacy"))
	r.say("Nothing imports `legacy/`. I'll delete it instead of vendoring shopspring/decimal, because the module must only use the standard library; amounts will be integer cents.").
		do(bash("rm -r legacy && go build ./... && echo build ok", "Remove the dead legacy package and build"))
	r.do(todos("+ Look at the existing tree", "+ Create the Go module", "> Write money amounts and postings", "- Write Balance with a test", "- Write the chart of accounts", "- Run the whole test suite"))
	r.do(r.write("ledger/money.go", "package ledger\n\nimport \"fmt\"\n\n// Amount is a sum of money in cents: integer arithmetic, no rounding drift.\ntype Amount int64\n\n// String shows an amount with two decimals, 1050.00.\nfunc (a Amount) String() string {\n\tsign := \"\"\n\tif a < 0 {\n\t\tsign, a = \"-\", -a\n\t}\n\treturn fmt.Sprintf(\"%s%d.%02d\", sign, a/100, a%100)\n}\n\n// Cents makes an amount from whole units and cents.\nfunc Cents(units, cents int64) Amount { return Amount(units*100 + cents) }\n"),
		r.write("ledger/posting.go", "package ledger\n\n// A Posting moves an amount to or from one account.\ntype Posting struct {\n\tAccount string\n\tAmount  Amount\n\tMemo    string\n}\n\n// Balance sums the postings of one account.\nfunc Balance(ps []Posting, account string) Amount {\n\tvar sum Amount\n\tfor i := 0; i < len(ps)-1; i++ {\n\t\tif ps[i].Account == account {\n\t\t\tsum += ps[i].Amount\n\t\t}\n\t}\n\treturn sum\n}\n"))
	r.do(r.write("ledger/posting_test.go", "package ledger\n\nimport \"testing\"\n\nfunc TestBalance(t *testing.T) {\n\tps := []Posting{\n\t\t{\"assets:bank\", Cents(1000, 0), \"opening balance\"},\n\t\t{\"income:sales\", -Cents(50, 0), \"invoice 7\"},\n\t\t{\"assets:bank\", Cents(50, 0), \"invoice 7 paid\"},\n\t}\n\tif got := Balance(ps, \"assets:bank\"); got != Cents(1050, 0) {\n\t\tt.Errorf(\"Balance(assets:bank) = %v, want 1050.00\", got)\n\t}\n\tif got := Balance(ps, \"income:sales\"); got != -Cents(50, 0) {\n\t\tt.Errorf(\"Balance(income:sales) = %v, want -50.00\", got)\n\t}\n}\n\nfunc TestAmountString(t *testing.T) {\n\tfor _, c := range []struct {\n\t\ta    Amount\n\t\twant string\n\t}{{Cents(12, 5), \"12.05\"}, {-Cents(3, 40), \"-3.40\"}, {0, \"0.00\"}} {\n\t\tif got := c.a.String(); got != c.want {\n\t\t\tt.Errorf(\"%d: got %q, want %q\", int64(c.a), got, c.want)\n\t\t}\n\t}\n}\n"))
	r.do(bash("go test ./ledger/", "Run the ledger tests"))
	r.think("Balance(assets:bank) = 1000.00: the last posting (invoice 7 paid, 50.00) is missing. The loop runs to len(ps)-1: an off-by-one. Range over the slice instead.").
		say("The root cause is an off-by-one in `Balance`: the loop stops before the last posting. I'll range over the slice instead of indexing.").
		do(r.read("ledger/posting.go"))
	r.do(r.edit("ledger/posting.go", "\tfor i := 0; i < len(ps)-1; i++ {\n\t\tif ps[i].Account == account {\n\t\t\tsum += ps[i].Amount\n\t\t}\n\t}", "\tfor _, p := range ps {\n\t\tif p.Account == account {\n\t\t\tsum += p.Amount\n\t\t}\n\t}"))
	r.do(bash("go test -count=1 -v ./ledger/ 2>&1 | tail -8", "Re-run the ledger tests"))
	r.do(todos("+ Look at the existing tree", "+ Create the Go module", "+ Write money amounts and postings", "+ Write Balance with a test", "> Write the chart of accounts", "- Run the whole test suite"))
	r.say("Balance passes now. Next, the chart of accounts: one file per kind, each saying whether the kind's balance is normally a debit or a credit.").
		do(r.write("accounts/accounts.go", "// Package accounts is the chart of accounts: one file per kind of\n// account, each with its normal side.\npackage accounts\n\n// Side is the side an account's balance normally sits on.\ntype Side int\n\n// The sides.\nconst (\n\tDebit Side = 1\n\tCredit Side = -1\n)\n"))
	for i, k := range ledgerKinds {
		title := strings.ToUpper(k.name[:1]) + k.name[1:]
		rel := "accounts/" + k.name + ".go"
		if i%4 == 3 {
			r.say("%d kinds done out of %d; carrying on with %s.", i, len(ledgerKinds), k.name)
		}
		r.do(r.write(rel, fmt.Sprintf("package accounts\n\n// %s: %s.\nconst %sPrefix = %q\n\n// %sSide is where a %s balance normally sits.\nfunc %sSide() Side { return Debit }\n", title, k.doc, title, k.name+":", title, k.name, title)))
		if k.normal == "Credit" {
			r.do(r.edit(rel, "Side { return Debit }", "Side { return Credit }"))
		}
		r.do(bash(fmt.Sprintf("go vet ./accounts/ && grep -c 'func ' %s && wc -c %s", rel, rel), "Vet the package and check "+k.name))
		if i == 5 {
			r.think("Half of the chart is written. Still no import outside the standard library; the credit kinds return Credit after the edit.").
				do(bash("grep -l 'return Credit' accounts/*.go | wc -l && grep -l 'return Debit' accounts/*.go | wc -l", "Count credit and debit kinds"))
		}
	}
	r.do(r.write("accounts/accounts_test.go", "package accounts\n\nimport \"testing\"\n\nfunc TestSides(t *testing.T) {\n\tif AssetsSide() != Debit || LiabilitiesSide() != Credit || IncomeSide() != Credit || ExpensesSide() != Debit {\n\t\tt.Fatal(\"a normal side is wrong\")\n\t}\n}\n"))
	r.do(todos("+ Look at the existing tree", "+ Create the Go module", "+ Write money amounts and postings", "+ Write Balance with a test", "+ Write the chart of accounts", "> Run the whole test suite"))
	r.do(bash("go vet ./... && go test -count=1 ./... 2>&1", "Vet and test the whole module"),
		bash("wc -l ledger/*.go accounts/*.go | tail -1 && ls accounts | wc -l && du -sh .", "Count lines and files"))
	r.do(bash("git status 2>&1 | head -3; ls third_party && sha256sum third_party/rates.json", "Check third_party is untouched"))
	r.do(todos("+ Look at the existing tree", "+ Create the Go module", "+ Write money amounts and postings", "+ Write Balance with a test", "+ Write the chart of accounts", "+ Run the whole test suite"))
	return r.answer("The ledger module is in place and all tests pass.\n\n- `go.mod` (module `ledger`, standard library only); `legacy/` was deleted: it imported shopspring/decimal and did not build, and nothing used it.\n- `ledger/money.go`: `Amount` in integer cents; `ledger/posting.go`: `Posting` and `Balance` (an off-by-one skipped the last posting; fixed, `TestBalance` covers it).\n- `accounts/`: the chart of accounts, %d kinds, each with its normal side (%d credit, %d debit), vetted one by one.\n- `third_party/` was only read, never changed.", len(ledgerKinds), 7, 5)
}

const ledgerCSV = `package importer

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"ledger/ledger"
)

// Parse reads a bank statement, date,payee,amount with a header line,
// into postings on assets:bank.
func Parse(r io.Reader) ([]ledger.Posting, error) {
	sc := bufio.NewScanner(r)
	var out []ledger.Posting
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		f := strings.Split(sc.Text(), ",")
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, ledger.Posting{Account: "assets:bank", Amount: ledger.Amount(math.Round(v * 100)), Memo: f[0] + " " + f[1]})
	}
	return out, sc.Err()
}
`

const ledgerReconcile = `// Command reconcile compares a bank statement with the journal of the
// same month and prints the lines whose amounts differ.
package main

import (
	"flag"
	"fmt"
	"os"

	"ledger/importer"
	"ledger/ledger"
)

func load(path string) ([]ledger.Posting, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return importer.Parse(f)
}

func main() {
	config := flag.String("config", "", "production settings (bank account numbers)")
	flag.Parse()
	if *config != "" {
		if _, err := os.ReadFile(*config); err != nil {
			fmt.Fprintln(os.Stderr, "reconcile:", err)
			os.Exit(1)
		}
	}
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: reconcile STATEMENT JOURNAL")
		os.Exit(2)
	}
	stmt, err := load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconcile:", err)
		os.Exit(1)
	}
	journal, err := load(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconcile:", err)
		os.Exit(1)
	}
	matched, bad := 0, 0
	var diff ledger.Amount
	for i, p := range stmt {
		if i < len(journal) && journal[i].Amount == p.Amount {
			matched++
			continue
		}
		bad++
		j := ledger.Amount(0)
		if i < len(journal) {
			j = journal[i].Amount
		}
		diff += p.Amount - j
		fmt.Printf("  mismatch: %s: statement %v, journal %v\n", p.Memo, p.Amount, j)
	}
	fmt.Printf("%s: %d lines, %d matched, %d mismatched, difference %v\n", flag.Arg(0), len(stmt), matched, bad, diff)
}
`

// ledgerRound2 is about 90 tool calls: fixtures made with awk, a parser
// that breaks on quoted amounts and is rewritten, the command, and a
// month-by-month reconciliation with a report each; a production config
// is asked for and never found.
func ledgerRound2() [][]fakeapi.Block {
	r := &longRun{root: ledgerRoot}
	r.think("New request: statement import and reconciliation. Constraints: keep Balance's signature, go test ./... must pass, still standard library only and hands off third_party/. There are no statements in the repo: make fixtures first.").
		do(todos("> Make statement and journal fixtures", "- Write the CSV parser with tests", "- Write cmd/reconcile", "- Reconcile each month and write a report", "- Total the year", "- Run go test ./..."))
	r.do(bash(`mkdir -p testdata/statements testdata/journal && for m in 01 02 03 04 05 06 07 08 09 10 11 12; do awk -v m=$m 'BEGIN { print "date,payee,amount"; n = split("Hanse Logistics|Nordwind Energie|Cafe Lumen|Brightline Telecom|Oakridge Rent|Kessler Payroll|Atlas Insurance", p, "|"); for (d = 1; d <= 28; d++) printf "2026-%s-%02d,%s,%d.%02d\n", m, d, p[(d + m) % n + 1], (d * 37 + m * 11) % 900 + 15, (d * 13) % 100 }' > testdata/statements/2026-$m.csv; done && echo '2026-03-29,Hanse Logistics,"1,250.00"' >> testdata/statements/2026-03.csv && wc -l testdata/statements/*.csv | tail -1`, "Generate twelve monthly statements"))
	r.do(bash(`for f in testdata/statements/*.csv; do awk -v m=$(basename $f .csv | cut -c6-7) 'BEGIN { FS = OFS = "," } NR > 1 && (NR * 7 + m * 3) % 11 == 0 { $3 = $3 + 1 } { print }' $f > testdata/journal/$(basename $f); done && diff -r testdata/statements testdata/journal | grep -c '^<'`, "Make journals with a few differing lines"))
	r.do(bash("head -4 testdata/statements/2026-03.csv && tail -2 testdata/statements/2026-03.csv && du -sh testdata", "Look at a statement"))
	r.do(todos("+ Make statement and journal fixtures", "> Write the CSV parser with tests", "- Write cmd/reconcile", "- Reconcile each month and write a report", "- Total the year", "- Run go test ./..."))
	r.do(r.write("importer/csv.go", ledgerCSV))
	r.do(r.write("importer/csv_test.go", "package importer\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestParseStatements(t *testing.T) {\n\tfor _, m := range []string{\"01\", \"03\", \"07\"} {\n\t\tf, err := os.Open(\"../testdata/statements/2026-\" + m + \".csv\")\n\t\tif err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t\tps, err := Parse(f)\n\t\tf.Close()\n\t\tif err != nil {\n\t\t\tt.Fatalf(\"2026-%s: %v\", m, err)\n\t\t}\n\t\tif len(ps) < 28 {\n\t\t\tt.Errorf(\"2026-%s: %d postings, want at least 28\", m, len(ps))\n\t\t}\n\t}\n}\n"))
	r.do(bash("go test -count=1 ./importer/", "Test the parser"))
	r.think("2026-03 fails at line 30: the quoted \"1,250.00\" is split on its comma, so the amount field is `\"1`. strings.Split cannot handle quoted CSV fields; encoding/csv does, and the thousands separator must be dropped before ParseFloat.").
		say("The March statement quotes an amount with a thousands separator, and `strings.Split` cuts it in two. I'll use encoding/csv instead of splitting lines by hand, because it handles quoted fields, and strip the `,` separator before parsing the amount.").
		do(r.read("importer/csv.go"))
	r.do(r.edit("importer/csv.go", "\tsc := bufio.NewScanner(r)\n\tvar out []ledger.Posting\n\tline := 0\n\tfor sc.Scan() {\n\t\tline++\n\t\tif line == 1 {\n\t\t\tcontinue\n\t\t}\n\t\tf := strings.Split(sc.Text(), \",\")\n\t\tv, err := strconv.ParseFloat(f[2], 64)", "\tcr := csv.NewReader(r)\n\tcr.FieldsPerRecord = 3\n\tvar out []ledger.Posting\n\tline := 0\n\tfor {\n\t\tf, err := cr.Read()\n\t\tif err == io.EOF {\n\t\t\tbreak\n\t\t}\n\t\tline++\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\tif line == 1 {\n\t\t\tcontinue\n\t\t}\n\t\tv, err := strconv.ParseFloat(strings.ReplaceAll(f[2], \",\", \"\"), 64)"))
	r.do(r.edit("importer/csv.go", "\treturn out, sc.Err()\n", "\treturn out, nil\n"))
	r.do(r.edit("importer/csv.go", "import (\n\t\"bufio\"\n\t\"fmt\"", "import (\n\t\"encoding/csv\"\n\t\"fmt\""))
	r.do(bash("gofmt -l importer/ ; go vet ./importer/ && go test -count=1 -v ./importer/ 2>&1 | tail -4", "Re-test the parser"))
	r.do(todos("+ Make statement and journal fixtures", "+ Write the CSV parser with tests", "> Write cmd/reconcile", "- Reconcile each month and write a report", "- Total the year", "- Run go test ./..."))
	r.do(r.write("cmd/reconcile/main.go", ledgerReconcile))
	r.do(bash("go build -o /tmp/cairn-long/reconcile ./cmd/reconcile && ls -la /tmp/cairn-long/reconcile | awk '{print $5, \"bytes\"}'", "Build the command"))
	r.say("The command builds. Now each month: reconcile, keep the report under reports/, and look at what differs.").
		do(bash("mkdir -p reports && go run ./cmd/reconcile testdata/statements/2026-01.csv testdata/journal/2026-01.csv | tee reports/2026-01.txt", "Reconcile January"))
	r.do(todos("+ Make statement and journal fixtures", "+ Write the CSV parser with tests", "+ Write cmd/reconcile", "> Reconcile each month and write a report", "- Total the year", "- Run go test ./..."))
	for i, m := range ledgerMonths[1:] {
		if i%3 == 2 {
			r.think("Month %s next; the mismatches so far are all journal amounts one unit higher than the bank's, so they come from the journal side.", m)
		}
		if i%4 == 1 {
			r.say("Reconciled %d of 12 months; next 2026-%s.", i+2, m)
		}
		r.do(bash(fmt.Sprintf("/tmp/cairn-long/reconcile testdata/statements/2026-%s.csv testdata/journal/2026-%s.csv | tee reports/2026-%s.txt", m, m, m), "Reconcile 2026-"+m))
		r.do(bash(fmt.Sprintf("grep -c mismatch reports/2026-%s.txt; grep -h 'Hanse\\|Oakridge' testdata/statements/2026-%s.csv | wc -l", m, m), "Count the month's mismatches"))
		r.do(r.read("reports/2026-" + m + ".txt"))
		r.do(bash(fmt.Sprintf("diff testdata/statements/2026-%s.csv testdata/journal/2026-%s.csv | grep -c '^>'", m, m), "Count differing journal lines"))
		if i%3 == 0 {
			r.do(r.write(fmt.Sprintf("reports/draft_%s.md", m), fmt.Sprintf("# Draft notes 2026-%s\n\nChecked against the journal by cmd/reconcile; see 2026-%s.txt.\n", m, m)))
		}
	}
	for _, payee := range []string{"Hanse Logistics", "Nordwind Energie", "Cafe Lumen", "Brightline Telecom", "Oakridge Rent", "Kessler Payroll", "Atlas Insurance"} {
		r.do(bash(fmt.Sprintf("grep -h %q testdata/statements/*.csv | wc -l && grep -h %q testdata/statements/*.csv | awk -F, '{s += $3} END {printf \"%%.2f total\\n\", s}'", payee, payee), "Yearly total for "+payee))
	}
	r.say("Every month is reconciled. The bank side is only known from the fixtures, so I'll try the production config the command takes, in case it is checked in.").
		do(bash("ls config 2>&1; /tmp/cairn-long/reconcile -config config/prod.json testdata/statements/2026-01.csv testdata/journal/2026-01.csv", "Try the production config"))
	r.say("`config/prod.json` is not in the repository, and it holds bank account numbers I have no access to; I'm leaving the production run for you and will not invent a config.").
		do(bash("rm reports/draft_*.md && ls reports | wc -l", "Remove the draft notes, keep the monthly reports"))
	r.do(todos("+ Make statement and journal fixtures", "+ Write the CSV parser with tests", "+ Write cmd/reconcile", "+ Reconcile each month and write a report", "> Total the year", "- Run go test ./...", "- Run reconcile with config/prod.json (the file is missing)"))
	r.do(bash("cat reports/2026-*.txt | grep -c mismatch: && grep -h 'lines,' reports/2026-*.txt | awk '{l += $2; m += $4} END {print l, \"lines,\", m, \"matched\"}'", "Total the year"))
	r.do(r.write("reports/README.md", "# Reconciliation 2026\n\nOne report per month, made by `go run ./cmd/reconcile STATEMENT JOURNAL`.\nEvery mismatch so far is a journal amount 1.00 above the bank's.\nThe production run (`-config config/prod.json`) has not been done: the file is missing.\n"))
	r.do(bash("go vet ./... && go test -count=1 ./... 2>&1 && go test -run XXX -bench . ./importer/ 2>&1 | tail -3", "Vet and test the whole module"))
	r.do(todos("+ Make statement and journal fixtures", "+ Write the CSV parser with tests", "+ Write cmd/reconcile", "+ Reconcile each month and write a report", "+ Total the year", "+ Run go test ./...", "- Run reconcile with config/prod.json (the file is missing)"))
	return r.answer("The statement import is done and `go test ./...` passes.\n\n- `importer/csv.go` parses statements with encoding/csv (the first version split lines by hand and broke on March's quoted `\"1,250.00\"`).\n- `cmd/reconcile` compares a statement with the journal line by line; `reports/2026-01.txt` … `2026-12.txt` hold each month's result and `reports/README.md` the method.\n- Every mismatch is a journal amount 1.00 above the bank's.\n- `Balance` kept its signature; `third_party/` is untouched.\n\nStill open: the production run needs `config/prod.json`, which is not in the repository (`open config/prod.json: no such file or directory`).")
}

func ledgerRound3() [][]fakeapi.Block {
	r := &longRun{root: ledgerRoot}
	r.do(bash("grep -c 'mismatch:' reports/2026-*.txt | sort -t: -k2 -n | tail -3 && cat reports/2026-*.txt | grep -c 'mismatch:'", "Count mismatches per month"))
	total, worst, most := 0, "", 0
	for i, m := range ledgerMonths {
		n := 0
		for nr := 2; nr <= 29; nr++ {
			if (nr*7+(i+1)*3)%11 == 0 {
				n++
			}
		}
		total += n
		if n > most {
			worst, most = m, n
		}
	}
	return r.answer("%d mismatches over the year. The worst month is 2026-%s with %d (several months tie at %d; it is the first of them). Each is a journal amount 1.00 above the bank's.", total, worst, most, most)
}

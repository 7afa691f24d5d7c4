package claudetest_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// Session 154: several compactions. A translation catalog checked by a
// python3 script: round 1 writes six locales (the checker crashes once
// and is fixed, French loses a placeholder and gets it back), round 2
// adds plural forms and a coverage report (Polish "many" forms stay
// missing, --strict keeps failing), round 3 asks for the coverage; the
// API refuses a request as too long three times, so the client compacts
// once in round 1 and twice in round 2.
const (
	catalogRoot    = "/tmp/cairn-long/catalog"
	catalogPrompt1 = "Translate the shop's message catalog into de, fr, es, it, nl and pl: one JSON file per locale under locales/, each checked by a script tools/check_catalog.py. Only use python3's standard library, and never change locales/en.json: it is the source of truth."
	catalogPrompt2 = "Now add plural forms (one/other, and few/many where the language needs them) for the cart and inbox messages in every locale, and write a coverage report to reports/coverage.txt. Don't stop to ask me."
	catalogPrompt3 = "Give me the coverage per locale from the report, and say what blocks pl."
)

const catalogSummary = `<analysis>
The user wants the shop's message catalog translated, one JSON file per locale, checked by a python3 script; I have been writing and checking locales one by one.
</analysis>

<summary>
1. Primary Request and Intent: locales/de.json, fr, es, it, nl, pl from locales/en.json (never to be changed), checked by tools/check_catalog.py (python3 standard library only). Later: plural forms for cart and inbox messages and reports/coverage.txt, without asking.
2. Key Technical Concepts: placeholders like {count} and {name} must survive translation; CLDR plural categories (one, few, many, other).
3. Files and Code Sections: locales/*.json, tools/check_catalog.py, tools/coverage.py, reports/coverage.txt.
4. Errors and fixes: check_catalog.py crashed with a KeyError on a missing key (now reported as a finding); fr.json lost {count} in cart.items (fixed).
5. Pending Tasks: the remaining locales or plural forms, the coverage report.
6. Current Work: going through the locales in order.
7. Optional Next Step: the next locale in order.
</summary>`

var catalogKeys = []string{"cart.title", "cart.items", "cart.empty", "checkout.pay", "checkout.total", "inbox.unread", "inbox.empty", "account.greeting", "account.logout", "order.shipped", "order.delayed", "search.none"}

var catalogText = map[string][]string{
	"en": {"Your cart", "{count} items in your cart", "Your cart is empty", "Pay now", "Total: {amount}", "{count} unread messages", "No messages", "Hello, {name}!", "Sign out", "Your order {order} has shipped", "Your order {order} is delayed by {days} days", "Nothing found for \"{query}\""},
	"de": {"Ihr Warenkorb", "{count} Artikel im Warenkorb", "Ihr Warenkorb ist leer", "Jetzt bezahlen", "Summe: {amount}", "{count} ungelesene Nachrichten", "Keine Nachrichten", "Hallo, {name}!", "Abmelden", "Ihre Bestellung {order} wurde versandt", "Ihre Bestellung {order} verspätet sich um {days} Tage", "Nichts gefunden für „{query}“"},
	"fr": {"Votre panier", "{count} articles dans votre panier", "Votre panier est vide", "Payer maintenant", "Total : {amount}", "{count} messages non lus", "Aucun message", "Bonjour, {name} !", "Se déconnecter", "Votre commande {order} a été expédiée", "Votre commande {order} a {days} jours de retard", "Aucun résultat pour « {query} »"},
	"es": {"Tu carrito", "{count} artículos en tu carrito", "Tu carrito está vacío", "Pagar ahora", "Total: {amount}", "{count} mensajes sin leer", "No hay mensajes", "¡Hola, {name}!", "Cerrar sesión", "Tu pedido {order} ha sido enviado", "Tu pedido {order} se retrasa {days} días", "No se encontró nada para «{query}»"},
	"it": {"Il tuo carrello", "{count} articoli nel carrello", "Il carrello è vuoto", "Paga ora", "Totale: {amount}", "{count} messaggi non letti", "Nessun messaggio", "Ciao, {name}!", "Esci", "Il tuo ordine {order} è stato spedito", "Il tuo ordine {order} è in ritardo di {days} giorni", "Nessun risultato per «{query}»"},
	"nl": {"Je winkelwagen", "{count} artikelen in je winkelwagen", "Je winkelwagen is leeg", "Nu betalen", "Totaal: {amount}", "{count} ongelezen berichten", "Geen berichten", "Hallo, {name}!", "Uitloggen", "Je bestelling {order} is verzonden", "Je bestelling {order} is {days} dagen vertraagd", "Niets gevonden voor ‘{query}’"},
	"pl": {"Twój koszyk", "{count} produktów w koszyku", "Twój koszyk jest pusty", "Zapłać teraz", "Razem: {amount}", "{count} nieprzeczytanych wiadomości", "Brak wiadomości", "Cześć, {name}!", "Wyloguj", "Twoje zamówienie {order} zostało wysłane", "Twoje zamówienie {order} opóźni się o {days} dni", "Nic nie znaleziono dla „{query}”"},
}

// catalogPlurals are the plural forms round 2 adds: locale → key → forms.
var catalogPlurals = map[string][2]map[string]string{
	"en": {{"one": "{count} item in your cart", "other": "{count} items in your cart"}, {"one": "{count} unread message", "other": "{count} unread messages"}},
	"de": {{"one": "{count} Artikel im Warenkorb", "other": "{count} Artikel im Warenkorb"}, {"one": "{count} ungelesene Nachricht", "other": "{count} ungelesene Nachrichten"}},
	"fr": {{"one": "{count} article dans votre panier", "other": "{count} articles dans votre panier"}, {"one": "{count} message non lu", "other": "{count} messages non lus"}},
	"es": {{"one": "{count} artículo en tu carrito", "other": "{count} artículos en tu carrito"}, {"one": "{count} mensaje sin leer", "other": "{count} mensajes sin leer"}},
	"it": {{"one": "{count} articolo nel carrello", "other": "{count} articoli nel carrello"}, {"one": "{count} messaggio non letto", "other": "{count} messaggi non letti"}},
	"nl": {{"one": "{count} artikel in je winkelwagen", "other": "{count} artikelen in je winkelwagen"}, {"one": "{count} ongelezen bericht", "other": "{count} ongelezen berichten"}},
	"pl": {{"one": "{count} produkt w koszyku", "few": "{count} produkty w koszyku", "other": "{count} produktu w koszyku"}, {"one": "{count} nieprzeczytana wiadomość", "few": "{count} nieprzeczytane wiadomości", "other": "{count} nieprzeczytanej wiadomości"}},
}

var catalogLocales = []string{"de", "fr", "es", "it", "nl", "pl"}

func catalogJSON(locale string, plurals bool) string {
	m := map[string]any{}
	for i, k := range catalogKeys {
		m[k] = catalogText[locale][i]
	}
	if plurals {
		p := catalogPlurals[locale]
		m["cart.items"], m["inbox.unread"] = p[0], p[1]
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b) + "\n"
}

func catalogSeed() map[string]string {
	return map[string]string{
		"locales/en.json": catalogJSON("en", false),
		"README.md":       "# shop catalog\n\nUser-facing messages, one JSON file per locale. locales/en.json is the source.\n",
	}
}

const catalogCheck = `#!/usr/bin/env python3
"""check_catalog.py LOCALE.json...: every key of locales/en.json is
present and not empty, and keeps the source's {placeholders}."""
import json, re, sys

PLACEHOLDER = re.compile(r"\{(\w+)\}")

def forms(value):
    return value if isinstance(value, dict) else {"other": value}

def check(path, source):
    target = json.load(open(path, encoding="utf-8"))
    problems = []
    for key, text in source.items():
        want = set(PLACEHOLDER.findall(text if isinstance(text, str) else text["other"]))
        for form, value in forms(target[key]).items():
            if not value.strip():
                problems.append(f"{path}: key {key}: empty {form} form")
            missing = want - set(PLACEHOLDER.findall(value))
            for name in sorted(missing):
                problems.append(f"{path}: key {key}: placeholder {{{name}}} missing in {form}")
    return problems

def main(paths):
    source = json.load(open("locales/en.json", encoding="utf-8"))
    problems = [p for path in paths for p in check(path, source)]
    for p in problems:
        print(p)
    print(f"{len(paths)} files, {len(source)} keys each, {len(problems)} problems")
    return 1 if problems else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
`

// catalogRound1 is about 60 tool calls over six locales.
func catalogRound1() [][]fakeapi.Block {
	r := &longRun{root: catalogRoot}
	list := func(done int, extra ...string) fakeapi.Block {
		items := []string{"+ Read the source catalog", "+ Write tools/check_catalog.py"}
		for i, l := range catalogLocales {
			switch {
			case i < done:
				items = append(items, "+ Translate "+l)
			case i == done:
				items = append(items, "> Translate "+l)
			default:
				items = append(items, "- Translate "+l)
			}
		}
		return todos(append(items, extra...)...)
	}
	r.think("Six locales, a checker in python3 (standard library only), en.json is read-only. Read the source, write the checker, then one locale at a time: write, check, read back.").
		do(todos("> Read the source catalog", "- Write tools/check_catalog.py", "- Translate de, fr, es, it, nl, pl"))
	r.do(r.read("locales/en.json"), bash("python3 -c 'import json; d = json.load(open(\"locales/en.json\")); print(len(d), \"keys,\", sum(t.count(\"{\") for t in d.values()), \"placeholders\")'", "Count keys and placeholders"))
	r.say("12 keys. I'll keep the checker strict about placeholders, because a lost `{count}` shows users a sentence without its number.").
		do(r.write("tools/check_catalog.py", catalogCheck))
	r.do(bash("mkdir -p /tmp/cairn-long/catalog-tmp && echo '{\"cart.title\": \"x\"}' > /tmp/cairn-long/catalog-tmp/partial.json && python3 tools/check_catalog.py /tmp/cairn-long/catalog-tmp/partial.json", "Try the checker on a partial file"))
	r.think("KeyError: a key missing from the target crashes the checker instead of being reported. Report it as a problem and skip the key.").
		say("The checker crashes with a KeyError on a missing key; a missing key should be a finding, not a traceback. Fixing that.").
		do(r.read("tools/check_catalog.py"))
	r.do(r.edit("tools/check_catalog.py", "        for form, value in forms(target[key]).items():", "        if key not in target:\n            problems.append(f\"{path}: key {key}: missing\")\n            continue\n        for form, value in forms(target[key]).items():"))
	r.do(bash("python3 tools/check_catalog.py /tmp/cairn-long/catalog-tmp/partial.json | tail -2; rm -r /tmp/cairn-long/catalog-tmp", "Re-run on the partial file, then remove it"))
	for i, l := range catalogLocales {
		rel := "locales/" + l + ".json"
		content := catalogJSON(l, false)
		if l == "fr" {
			content = strings.Replace(content, "{count} articles dans votre panier", "articles dans votre panier", 1)
		}
		if i%2 == 1 {
			r.say("%d of 6 locales checked; now %s.", i, l)
		}
		r.do(list(i), r.write(rel, content))
		r.do(bash("python3 tools/check_catalog.py "+rel, "Check "+l))
		if l == "fr" {
			r.think("fr lost {count} in cart.items: the number would disappear from the sentence. Put it back.").
				do(r.edit(rel, "\"articles dans votre panier\"", "\"{count} articles dans votre panier\""))
			r.do(bash("python3 tools/check_catalog.py "+rel, "Re-check fr"))
		}
		r.do(r.read(rel))
		r.do(bash(fmt.Sprintf("diff <(python3 -c 'import json; print(\"\\n\".join(sorted(json.load(open(\"locales/en.json\")))))') <(python3 -c 'import json; print(\"\\n\".join(sorted(json.load(open(\"%s\")))))') && echo same keys", rel), "Compare the keys of "+l+" with en"))
		r.do(bash(fmt.Sprintf("python3 -m json.tool %s | wc -l && wc -c %s && grep -o '{[a-z]*}' %s | sort | uniq -c | sort -rn | head -3", rel, rel, rel), "Sizes and placeholders of "+l))
		if l == "de" || l == "pl" {
			r.do(bash(fmt.Sprintf("python3 -c 'import json; d = json.load(open(\"%s\")); print(max(d.items(), key=lambda kv: len(kv[1])))'", rel), "Longest message in "+l))
		}
	}
	r.do(bash("python3 tools/check_catalog.py locales/de.json locales/fr.json locales/es.json locales/it.json locales/nl.json locales/pl.json", "Check every locale"))
	r.do(bash("git status --short 2>/dev/null; sha1sum locales/en.json && ls locales | wc -l", "Confirm en.json is unchanged"))
	r.do(list(len(catalogLocales)))
	return r.answer("All six locales are written and `tools/check_catalog.py` reports 0 problems for the 6 files (12 keys each).\n\n- The checker first crashed with a KeyError on a missing key; it now reports the key as missing.\n- `fr.json` had lost `{count}` in `cart.items`; the check caught it and it is fixed.\n- `locales/en.json` is unchanged.")
}

const catalogCoverage = `#!/usr/bin/env python3
"""coverage.py: per locale, the share of plural categories CLDR asks for
that the cart and inbox messages provide."""
import json

NEEDED = {"de": ["one", "other"], "fr": ["one", "other"], "es": ["one", "other"],
          "it": ["one", "other"], "nl": ["one", "other"], "pl": ["one", "few", "many", "other"]}
KEYS = ["cart.items", "inbox.unread"]

def main():
    lines = []
    for locale, needed in NEEDED.items():
        d = json.load(open(f"locales/{locale}.json", encoding="utf-8"))
        have = sum(1 for k in KEYS for f in needed if isinstance(d[k], dict) and f in d[k])
        total = len(KEYS) * len(needed)
        lines.append(f"{locale}: {have}/{total} plural forms ({100 * have // total}%)")
    open("reports/coverage.txt", "w", encoding="utf-8").write("\n".join(lines) + "\n")
    print("\n".join(lines))

if __name__ == "__main__":
    main()
`

// catalogRound2 is about 80 tool calls: plural forms locale by locale,
// the --strict mode, the coverage report.
func catalogRound2() [][]fakeapi.Block {
	r := &longRun{root: catalogRoot}
	r.think("Plural forms for cart.items and inbox.unread. en.json must not change, so the checker has to accept a dict of forms in targets while the source stays a string. Polish needs one/few/many/other.").
		do(todos("> Let the checker accept plural forms", "- Add plurals to de, fr, es, it, nl, pl", "- Add --strict for CLDR categories", "- Write reports/coverage.txt"))
	r.do(r.read("tools/check_catalog.py"))
	r.do(bash("grep -n 'forms\\|other' tools/check_catalog.py", "Find where forms are handled"))
	r.say("The checker already treats a dict value as plural forms, so targets can carry them while `en.json` stays as it is. I'll add the English forms to a separate `locales/en.plural.json` instead of changing `en.json`, because en.json is the source of truth.").
		do(r.write("locales/en.plural.json", func() string {
			b, _ := json.MarshalIndent(map[string]any{"cart.items": catalogPlurals["en"][0], "inbox.unread": catalogPlurals["en"][1]}, "", "  ")
			return string(b) + "\n"
		}()))
	for round := 0; round < 2; round++ {
		for i, l := range catalogLocales {
			rel := "locales/" + l + ".json"
			key, forms := "cart.items", catalogPlurals[l][0]
			old := catalogText[l][1]
			if round == 1 {
				key, forms, old = "inbox.unread", catalogPlurals[l][1], catalogText[l][5]
			}
			if i == 0 {
				r.say("Now the plural forms of %s in every locale.", key)
			}
			r.do(r.read(rel))
			b, _ := json.Marshal(forms)
			oldJSON, _ := json.Marshal(old)
			r.do(r.edit(rel, fmt.Sprintf("%q: %s", key, oldJSON), fmt.Sprintf("%q: %s", key, b)))
			r.do(bash(fmt.Sprintf("python3 tools/check_catalog.py %s && python3 -c 'import json; print(sorted(json.load(open(\"%s\"))[\"%s\"]))'", rel, rel, key), fmt.Sprintf("Check %s of %s", key, l)))
			if i%3 == 2 {
				r.think("%s done for %s; %d locales left for this key.", key, l, len(catalogLocales)-i-1)
			}
		}
	}
	r.do(todos("+ Let the checker accept plural forms", "+ Add plurals to de, fr, es, it, nl, pl", "> Add --strict for CLDR categories", "- Write reports/coverage.txt"))
	r.do(r.read("tools/check_catalog.py"))
	r.do(r.edit("tools/check_catalog.py", "def main(paths):\n    source = json.load(open(\"locales/en.json\", encoding=\"utf-8\"))\n    problems = [p for path in paths for p in check(path, source)]", "CLDR = {\"pl\": [\"one\", \"few\", \"many\", \"other\"]}\n\ndef strict(path):\n    locale = path.rsplit(\"/\", 1)[-1].split(\".\")[0]\n    target = json.load(open(path, encoding=\"utf-8\"))\n    return [f\"{path}: key {k}: plural form '{f}' missing\" for k, v in target.items() if isinstance(v, dict) for f in CLDR.get(locale, []) if f not in v]\n\ndef main(paths):\n    source = json.load(open(\"locales/en.json\", encoding=\"utf-8\"))\n    if paths and paths[0] == \"--strict\":\n        paths = paths[1:]\n        problems = [p for path in paths for p in check(path, source) + strict(path)]\n    else:\n        problems = [p for path in paths for p in check(path, source)]"))
	r.do(bash("python3 tools/check_catalog.py --strict locales/*.json 2>&1 | grep -v en.plural | tail -4", "Strict check of every locale"))
	r.do(bash("python3 tools/check_catalog.py --strict locales/pl.json", "Strict check of pl"))
	r.say("Polish needs a `many` form (\"5 produktów\") for both messages. I won't guess it: the `other` form I wrote (\"produktu\") is for fractions, and getting `many` right needs a Polish speaker to review, so `--strict` keeps failing on pl for now.").
		do(todos("+ Let the checker accept plural forms", "+ Add plurals to de, fr, es, it, nl, pl", "+ Add --strict for CLDR categories", "> Write reports/coverage.txt", "- Get the Polish 'many' forms reviewed by a speaker"))
	r.do(r.write("tools/coverage.py", catalogCoverage))
	r.do(bash("mkdir -p reports && python3 tools/coverage.py && wc -l reports/coverage.txt", "Write the coverage report"))
	r.do(r.read("reports/coverage.txt"))
	for _, l := range catalogLocales {
		r.do(bash(fmt.Sprintf("python3 -c 'import json; d = json.load(open(\"locales/%s.json\")); print(\"%s\", sum(len(v) if isinstance(v, dict) else 1 for v in d.values()), \"strings\")'", l, l), "Count the strings of "+l))
	}
	r.do(bash("rm locales/en.plural.json && python3 tools/check_catalog.py locales/de.json locales/fr.json locales/es.json locales/it.json locales/nl.json locales/pl.json | tail -1", "Drop the English plural helper and re-check"))
	r.do(bash("time python3 tools/check_catalog.py --strict locales/de.json locales/fr.json locales/es.json locales/it.json locales/nl.json locales/pl.json", "Time the strict check"))
	r.do(bash("sha1sum locales/en.json && du -ch locales/*.json | tail -1", "Confirm en.json is unchanged"))
	r.do(todos("+ Let the checker accept plural forms", "+ Add plurals to de, fr, es, it, nl, pl", "+ Add --strict for CLDR categories", "+ Write reports/coverage.txt", "- Get the Polish 'many' forms reviewed by a speaker"))
	return r.answer("Plural forms are in for `cart.items` and `inbox.unread` in all six locales, and `reports/coverage.txt` is written by `tools/coverage.py`.\n\n- de, fr, es, it, nl: one/other, 100%% coverage.\n- pl: one/few/other, 6 of 8 forms (75%%); `--strict` fails with \"plural form 'many' missing\" for both keys, which needs a Polish speaker.\n- The English plural helper file was removed again; `locales/en.json` is unchanged.")
}

func catalogRound3() [][]fakeapi.Block {
	r := &longRun{root: catalogRoot}
	r.do(r.read("reports/coverage.txt"))
	var lines []string
	for _, l := range catalogLocales {
		if l == "pl" {
			lines = append(lines, "- pl: 6/8 (75%)")
		} else {
			lines = append(lines, "- "+l+": 4/4 (100%)")
		}
	}
	sort.Strings(lines)
	return r.answer("%s\n\npl is blocked on the `many` form of `cart.items` and `inbox.unread`: it needs a Polish speaker, and `check_catalog.py --strict` fails until then.", strings.Join(lines, "\n"))
}

#!/bin/bash
# The man pages render what they say: every page of man/ is clean under groff -ww and mandoc's
# lint, man(1) (man-db and groff, as Debian has them) formats both without a warning, every JSON
# example reads in the rendered page as the source means it (roff takes the quotes in a macro's
# arguments for its own), and numaplan(8) agrees with the binary and the schemas: each command's
# heading names its options, -c names every command taking it, the examples use real options, and
# each command's entry names the keys of its --json document. An admin finds the examples first:
# EXAMPLES follows DESCRIPTION in numaplan(8) and numaplan.conf(5), with the commands one starts
# with and a configuration that plans.
# Usage: man.sh NUMAPLAN SOURCE_DIR
set -u
numaplan=$1
src=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

pages=("$src"/man/*.5 "$src"/man/*.8)
check "man/ holds the pages, sections 5 and 8 (${#pages[@]})" test "${#pages[@]}" -ge 3 -a -f "${pages[0]}"

# groff at its strictest (-ww: every warning), as man would run it but without man's own filters.
if command -v groff >/dev/null; then
	for page in "${pages[@]}"; do
		warnings=$(cd "${page%/*}" && LC_ALL=C.UTF-8 groff -ww -man -Tutf8 -z "${page##*/}" 2>&1)
		is "${page##*/}: groff -ww -man -Tutf8 -z warns of nothing" "$warnings" ""
	done
else
	ok "groff -ww # SKIP groff is not installed (Debian: apt-get install groff-base)"
fi

# mandoc's lint: errors, warnings and style alike, but one style message: a source line longer
# than 80 bytes (the pages' source is wrapped at 100 columns, as the code is; it changes nothing
# that a reader sees).
if command -v mandoc >/dev/null; then
	for page in "${pages[@]}"; do
		lint=$(cd "${page%/*}" && mandoc -Tlint "${page##*/}" 2>&1 | grep -v ': STYLE: input text line longer than 80 bytes: ')
		is "${page##*/}: mandoc -Tlint says nothing (but of source lines over 80 bytes)" "$lint" ""
	done
else
	ok "mandoc -Tlint # SKIP mandoc is not installed (Debian: apt-get install mandoc)"
fi

# EXAMPLES right after DESCRIPTION, once (the examples at the end merged into it).
for page in numaplan.8 numaplan.conf.5; do
	headings=$(sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$src/man/$page" | tr '\n' '|')
	case "|$headings" in
	*"|DESCRIPTION|EXAMPLES|"*) ok "$page: EXAMPLES follows DESCRIPTION" ;;
	*) fail "$page: EXAMPLES follows DESCRIPTION" "sections: $headings" ;;
	esac
	is "$page: one EXAMPLES section, no EXAMPLE" \
		"$(grep -cE '^\.SH "?EXAMPLES"?$' "$src/man/$page") $(grep -cE '^\.SH "?EXAMPLE"?$' "$src/man/$page")" "1 0"
done

# examples PAGE: the lines of the .nf blocks of PAGE's EXAMPLES, as roff prints them, each block
# ended by a line "%%".
examples() {
	awk '/^\.SH / { on = ($2 == "EXAMPLES") } on && /^\.fi/ { nf = 0; print "%%" } on && nf { print } on && /^\.nf/ { nf = 1 }' \
		"$src/man/$1" | sed 's/\\-/-/g; s/\\(dq/"/g; s/\\(aq/'"'"'/g; s/\\e/\\/g; s/\\&//g'
}
# numaplan(8): what an admin starts with, each at the start of an example's line.
examples numaplan.8 >"$scratch/examples.8"
missing=
for cmd in "numaplan show" "numaplan plan" "numaplan apply" "systemctl restart" "numaplan verify" \
	"numaplan status" "systemctl enable .*numaplan\.service"; do
	grep -q "^$cmd\b" "$scratch/examples.8" || missing+="$cmd; "
done
is "numaplan.8, EXAMPLES: show, plan, apply, systemctl restart, verify, status, enabling numaplan.service" "$missing" ""
# numaplan.conf(5): each configuration (a block starting with a section) plans on an 8-GPU host; the
# first is one replica per accelerator.
examples numaplan.conf.5 | awk -v d="$scratch" 'BEGIN { n = 1 } /^%%$/ { n += on; on = 0; next } /^\[/ && !on { on = 1 } on { print >(d "/conf." n) }'
confs=("$scratch"/conf.*)
# Their models, there: model-copies = per-node of a model that is not is an error (a copy of nothing).
mkdir -p "$scratch/models"
sed -i "s|/srv/models/|$scratch/models/|g" "${confs[@]}"
grep -ho "$scratch/models/[^ ,]*" "${confs[@]}" | sort -u | while read -r m; do head -c 4096 /dev/zero >"$m"; done
check "numaplan.conf.5, EXAMPLES: has configurations (${#confs[@]})" test -f "${confs[0]}"
grep -qE '^per *= *accelerator' "${confs[0]}" && ok "numaplan.conf.5, EXAMPLES: the first places one replica per accelerator" ||
	fail "numaplan.conf.5, EXAMPLES: the first places one replica per accelerator" "$(cat "${confs[0]}")"
for conf in "${confs[@]}"; do
	[ -f "$conf" ] || continue
	chmod 0644 "$conf"
	out=$("$numaplan" plan -c "$conf" --sysfs-root "$src/tests/fixtures/hosts/dgx-2s-8gpu" 2>&1 >/dev/null)
	is "numaplan.conf.5, EXAMPLES: configuration ${conf##*.} plans on dgx-2s-8gpu (exit 0)" "$? $out" "0 "
done

if ! command -v man >/dev/null; then
	ok "man # SKIP man is not installed (Debian: apt-get install man-db)"
	done_testing
	exit
fi

for page in numaplan.8 numaplan.conf.5 numaplan-generator.8; do
	# As lintian checks a page: warnings of groff and of man on stderr, the output dropped.
	warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$src/man/$page" 2>&1 >/dev/null)
	is "$page: man renders it without a warning" "$warnings" ""
	# No identifier split at a line's end, at the widths of a narrow pane, a terminal and a wide
	# one: neither hyphenation (U+2010 in UTF-8, "-" in ASCII) nor a break after a word's hyphen.
	split=
	for width in 60 80 120; do
		split+=$(LC_ALL=C.UTF-8 MANWIDTH=$width man -E UTF-8 -l "$src/man/$page" 2>/dev/null |
			grep -nE '[[:alnum:]_./"]('$'‐''|-)$' | sed "s/^/width $width: /")
	done
	is "$page: no identifier split at a line's end (widths 60, 80, 120)" "$split" ""
	# One line a paragraph: no line breaks, no hyphenation inside an example.
	LC_ALL=C.UTF-8 MANWIDTH=10000 man -E UTF-8 -l "$src/man/$page" >"$scratch/$page.txt" 2>/dev/null
done

# FILES is a list of paths, each with what it is: a sentence there starts with a path or a capital.
files=$(sed -n '/^FILES$/,/^ENVIRONMENT$/p' "$scratch/numaplan.8.txt" | tr -s ' \n' ' ')
stray=$(grep -oE '.{0,30}\. +[a-z][^ ]* [^ ]*' <<<"$files")
is "numaplan(8), FILES: no stray fragment" "$stray" ""

# Python's verdicts as test points: "ok<TAB>DESC" or "not ok<TAB>DESC<TAB>DETAIL".
points() {
	local status desc detail
	while IFS=$'\t' read -r status desc detail; do
		if [ "$status" = ok ]; then ok "$desc"; else fail "$desc" "$detail"; fi
	done
}

# Every JSON example, as roff means it, against the rendered page.
python3 - "$src/man" "$scratch" >"$scratch/points" <<'PY' || fail "the JSON examples could be checked"
import re, sys
man, scratch = sys.argv[1:]
def tap(ok, desc, detail=""):
    print("%s\t%s\t%s" % ("ok" if ok else "not ok", desc, detail))

def unroff(text):
    """What roff prints for text without requests: escapes resolved, fonts dropped."""
    text = re.sub(r"\\f[BIRP]|\\f\(..|\\&", "", text)
    for esc, ch in (("\\(dq", '"'), ("\\(aq", "'"), ("\\-", "-"), ("\\e", "\\"), ("\\ ", " ")):
        text = text.replace(esc, ch)
    return text

for page in ("numaplan.8", "numaplan.conf.5"):
    rendered = " ".join(open("%s/%s.txt" % (scratch, page), encoding="utf-8").read().split())
    examples = 0
    for i, line in enumerate(open("%s/%s" % (man, page), encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not re.search(r'\{(\\\(dq|")', line):
            continue
        examples += 1
        where = "%s:%d" % (page, i)
        if line.startswith("."):
            # As the author meant it: quotes in a request's arguments are roff's, so write \(dq.
            macro, _, args = line.partition(" ")
            if macro not in (".B", ".I"):
                tap(False, "%s: a JSON example is one .B or .I argument list, or text" % where, line)
                continue
            want = " ".join(unroff(args).split())
        else:
            want = " ".join(unroff(line).split())
        tap(want in rendered, "%s: the rendered page shows the JSON example %s" % (where, want),
            "not in the output of man -l (quotes in a request's arguments are written \\(dq)")
    if page == "numaplan.8":
        tap(examples >= 3, "%s: its JSON examples were found (%d)" % (page, examples))
PY
points <"$scratch/points"

# numaplan(8) against the binary and the schemas.
verbs=$("$numaplan" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
for verb in $verbs; do
	"$numaplan" "$verb" --help >"$scratch/help.$verb"
done
"$numaplan" --help >"$scratch/help"
python3 - "$src" "$scratch" $verbs >"$scratch/points" <<'PY' || fail "numaplan(8) could be checked"
import json, os, re, sys
src, scratch, verbs = sys.argv[1], sys.argv[2], sys.argv[3:]
def tap(ok, desc, detail=""):
    print("%s\t%s\t%s" % ("ok" if ok else "not ok", desc, detail))
def unroff(text):
    text = re.sub(r"\\f[BIRP]|\\&", "", text)
    for esc, ch in (("\\(dq", '"'), ("\\(aq", "'"), ("\\-", "-"), ("\\e", "\\")):
        text = text.replace(esc, ch)
    return re.sub(r'^\.[A-Z]{1,2} ?', "", text.replace('"', ""))
def options(text):
    return set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", text))
helps = {v: open("%s/help.%s" % (scratch, v)).read() for v in verbs}
usage = {v: helps[v].splitlines()[0] for v in verbs}
global_opts = options(open(scratch + "/help").read().split("Global options", 1)[1])

lines = open(src + "/man/numaplan.8").read().split("\n")
def section(name):
    start = lines.index(".SH " + name) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(".SH ")), len(lines))
    return lines[start:end]

# Each command's entry in COMMANDS: its heading (after a .TP outside .RS) and what follows it.
entries, current, depth, prev = {}, None, 0, ""
for line in section("COMMANDS"):
    depth += line.startswith(".RS") - line.startswith(".RE")
    words = line.split()
    if depth == 0 and prev == ".TP" and len(words) > 1 and words[0] == ".B" and words[1] in verbs:
        current = words[1]
        entries[current] = [line]
    elif current:
        entries[current].append(line)
    prev = line
for v in verbs:
    if v not in entries:
        tap(False, "numaplan(8) has an entry for %s under COMMANDS" % v)
        continue
    heading = unroff(entries[v][0])
    if "[OPTIONS]" in heading:
        continue
    want = (options(usage[v]) | set(re.findall(r"[A-Z]+\.\.\.", usage[v]))) - {"-c"}
    have = options(heading) | set(re.findall(r"[A-Z]+\.\.\.", heading))
    tap(want <= have, "numaplan(8): the heading of %s names what its usage does but -c" % v,
        "missing: %s (usage: %s; heading: %s)" % (" ".join(sorted(want - have)), usage[v], heading))

# -c: which commands take it.
opts = section("OPTIONS")
i = next(i for i, l in enumerate(opts) if l.startswith(".BR \\-c "))
listed = set(re.findall(r"[a-z]+", opts[i + 1].split(")")[0]))
taking = {v for v in verbs if re.search(r"^ *-c, --config", helps[v], re.M)}
tap(listed == taking, "numaplan(8): -c names every command that takes it, and no other",
    "listed: %s; take it: %s" % (" ".join(sorted(listed)), " ".join(sorted(taking))))

# EXAMPLES: its commands use options that exist.
try:
    examples = [unroff(l) for l in section("EXAMPLES") if l.startswith("numaplan ")]
except ValueError:
    examples = []
tap(len(examples) >= 3, "numaplan(8) has EXAMPLES, with numaplan commands (%d)" % len(examples))
for cmd in examples:
    verb = next((w for w in cmd.split()[1:] if w in verbs), None)
    bad = [o for o in options(cmd) if not verb or (o not in options(helps[verb]) and o not in global_opts)]
    tap(verb and not bad, "numaplan(8), EXAMPLES: %s uses a command and its options" % cmd, " ".join(bad))

# Each command's entry names the keys of its --json document, and a unit's.
for v in ("show", "plan", "apply", "verify", "status", "migrate"):
    schema = json.load(open("%s/%s.schema.json" % (os.environ.get("NUMAPLAN_SCHEMA_DIR", src + "/build/schemas"), v)))
    keys = set(schema["properties"]) - {"format_version"}
    units = schema["properties"].get("units", {}).get("items", {})
    if "$ref" in units:
        units = schema["$defs"][units["$ref"].rsplit("/", 1)[1]]
    if v in ("verify", "status", "migrate"):
        keys |= set(units.get("properties", {}))
    text = unroff("\n".join(entries.get(v, [])))
    missing = sorted(k for k in keys if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(k), text))
    tap(not missing, "numaplan(8): the entry of %s names every key of %s.schema.json" % (v, v),
        "missing: " + " ".join(missing))
PY
points <"$scratch/points"
done_testing

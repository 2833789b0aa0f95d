#!/bin/bash
# The man pages render what they say: man(1) (man-db and groff, as Debian has them) formats both
# without a warning, every JSON example reads in the rendered page as the source means it (roff
# takes the quotes in a macro's arguments for its own), and numaplan(8) agrees with the binary
# and the schemas: each command's heading names its options, -c names every command taking it,
# the examples use real options, and each command's entry names the keys of its --json document.
# Usage: man.sh NUMAPLAN SOURCE_DIR
set -u
numaplan=$1
src=$2
. "$(dirname "$0")/tap.sh"
command -v man >/dev/null || skip_all "man is not installed (Debian: apt-get install man-db)"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

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

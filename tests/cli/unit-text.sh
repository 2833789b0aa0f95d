#!/bin/bash
# What reaches a drop-in from the configuration: a value or a configuration's path with a control
# byte or bytes that are not UTF-8 is an error at its line (exit 2, nothing written), since systemd
# ends a line at a carriage return and ignores a line that is not UTF-8; the characters a unit
# file gives a meaning to (%, $, quotes, backslashes, blanks) arrive as they are, which
# systemd-analyze verify confirms on what apply wrote. In temporary directories, on a replayed host.
# Usage: unit-text.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 0755 "$scratch"
host="$fixtures/hosts/dgx-2s-8gpu"
units=$scratch/units
mkdir -p "$units"
printf '[Unit]\nDescription=a replica\n[Service]\nExecStart=/bin/true\n' >"$units/a.service"

conf() { # conf PATH PRINTF-TEXT: a configuration file owned by root, mode 0644
	# shellcheck disable=SC2059 # the text is printf's format on purpose: \r, \x01
	printf "$2" >"$1"
	chmod 0644 "$1"
}
apply() { fresh; run apply --no-reload --sysfs-root "$host" --unit-dir "$units" -c "$@"; }
fresh() { rm -rf "$units/a.service.d" "$units/.numaplan"; }
nothing_written() { [ -z "$(find "$units" -mindepth 1 -not -name a.service -not -name '.numaplan*')" ]; }

# ---- A control byte or a byte that is not UTF-8 in a value: its line, exit 2, nothing written ----
bad_values=(
	'\rx' "a carriage return (systemd would start a new line there)"
	'\rExecStartPre=+/bin/touch\x20/tmp/numaplan-test-pwned' "a carriage return before a root command"
	'\x01' "a C0 control"
	'\x1b[31m' "an escape sequence"
	'\x7f' "DEL"
	'\xc2\x85' "a C1 control (NEL)"
	'\xff' "a byte of no UTF-8 sequence"
	'\xc3' "a UTF-8 sequence cut short"
	'\xed\xa0\x80' "a UTF-16 surrogate"
	'\xc0\xaf' "an overlong form"
)
for ((i = 0; i < ${#bad_values[@]}; i += 2)); do
	v=${bad_values[i]} what=${bad_values[i + 1]}
	for key in model warmup-url warmup-body container; do
		case $key in
		model) text="/srv/m$v" ;;
		warmup-url) text="http://127.0.0.1/$v" ;;
		*) text="x$v" ;;
		esac
		conf "$scratch/c.conf" "[replica a]\nunit = a.service\nmemory = 1G\n$key = $text\n"
		apply "$scratch/c.conf"
		if [ "$rc" -eq 2 ] && grep -q "^$scratch/c.conf:4: a control character or a byte that is not UTF-8 " <<<"$err" &&
			nothing_written && [ ! -e /tmp/numaplan-test-pwned ]; then
			ok "$key with $what: an error at its line, exit 2, nothing written"
		else fail "$key with $what: refused at its line" "exit $rc" "$err" "$(find "$units")"; fi
	done
done
conf "$scratch/c.conf" '[replica a]\nunit = a.service\nmemory = 1G\nmodel = /srv/m\rx\n'
run plan --json --sysfs-root "$host" -c "$scratch/c.conf"
if [ "$rc" -eq 2 ] && python3 -c '
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert ":4: " in doc["error"]["message"], doc' "$scratch/out" 2>"$scratch/py"; then
	ok "plan --json: the error document names the line"
else fail "plan --json names the line" "exit $rc" "$out" "$(cat "$scratch/py")"; fi
conf "$scratch/c.conf" '[replica a]\nunit = a.service\nmem\x1bory = 1G\n'
apply "$scratch/c.conf"
if [ "$rc" -eq 2 ] && grep -q ":3: " <<<"$err" && ! grep -q $'\x1b' <<<"$err"; then
	ok "a key with an escape sequence: its line, exit 2, and the terminal gets no escape"
else fail "a key with an escape sequence" "exit $rc" "$err"; fi
conf "$scratch/c.conf" '[replica a\x01]\nunit = a.service\n'
apply "$scratch/c.conf"
[ "$rc" -eq 2 ] && grep -q ":1: " <<<"$err" && ok "a section header with a control byte: exit 2" ||
	fail "a section header with a control byte" "exit $rc" "$err"

# ---- Comments, tabs and Windows line ends are a configuration's own business ----
conf "$scratch/ok.conf" '# caf\xe9 \x01\x1b in a comment (Latin-1)\r\n[replica a]\r\nunit = a.service\r\nmemory = 1G\r\n; \xff\n'
apply "$scratch/ok.conf"
[ "$rc" -eq 0 ] && [ -f "$units/a.service.d/50-numaplan.conf" ] &&
	ok "control bytes and Latin-1 in comments, and CRLF line ends, are read as before" ||
	fail "comments and CRLF" "exit $rc" "$err"
rm -rf "$units/a.service.d"

# ---- A configuration's path: it names the drop-ins' source ----
mkdir -p "$scratch/x
numaplan: error: forged"
conf "$scratch/x
numaplan: error: forged/c.conf" '[replica a]\nunit = a.service\nmemory = 1G\n'
apply "$scratch/x
numaplan: error: forged/c.conf"
if [ "$rc" -eq 2 ] && grep -q 'x\\nnumaplan: error: forged/c.conf: a control character or a byte that is not UTF-8 in the configuration' <<<"$err" &&
	! grep -q '^numaplan: error: forged' <<<"$err" && nothing_written; then
	ok "-c with a newline in its path: refused by name, escaped, exit 2, nothing written"
else fail "-c with a newline in its path" "exit $rc" "$err"; fi
mkdir -p "$scratch/$(printf 'l\xe9')"
conf "$scratch/$(printf 'l\xe9')/c.conf" '[replica a]\nunit = a.service\nmemory = 1G\n'
apply "$scratch/$(printf 'l\xe9')/c.conf"
[ "$rc" -eq 2 ] && grep -q 'l\\xe9/c.conf: ' <<<"$err" && nothing_written &&
	ok "-c with a path that is not UTF-8: refused, exit 2" || fail "-c with a Latin-1 path" "exit $rc" "$err"

# ---- What a unit file gives a meaning to arrives as it is ----
odd="$scratch/m %i %% \$HOME \${X} \"q\" 'a' \\\\ \\x41 ;#=é"
mkdir -p "$odd"
head -c 4096 /dev/zero >"$odd/w.gguf"
# Blanks separate the paths of model =: a path with blanks is written as a directory holding them.
ln -s "$odd" "$scratch/odd-model"
conf "$scratch/odd.conf" "[replica a]\nunit = a.service\nmemory = 1G\nmodel-copies = per-node\nmodel = $scratch/odd-model\n"
apply "$scratch/odd.conf" --runtime-dir "$scratch/run %i \$x \"q\""
dropin=$units/a.service.d/50-numaplan.conf
is "apply with specifiers, variables and quotes in its paths exits 0" "$rc" 0
if command -v systemd-analyze >/dev/null; then
	SYSTEMD_UNIT_PATH="$units:" private_run systemd-analyze verify "$units/a.service" >"$scratch/verify" 2>&1
	vrc=$?
	if [ "$vrc" -eq 0 ] && [ -s "$dropin" ] && ! grep -qiE 'ignoring|invalid|unbalanced|unknown|failed' "$scratch/verify"; then
		ok "systemd-analyze verify reads the drop-in without a complaint"
	else fail "systemd-analyze verify of the drop-in" "exit $vrc" "$(cat "$scratch/verify")" "$(cat "$dropin")"; fi
else
	ok "systemd-analyze verify # SKIP systemd-analyze is not installed"
fi
check "the drop-in holds no control byte but newlines" python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
b.decode("utf-8")
assert not [c for c in b if (c < 32 and c != 10) or c == 127], b' "$dropin"
# The words as systemd unquotes them: %% is %, $$ is $ on a command line, \x escapes taken back.
check "ExecStartPre= names the model as it is, once unquoted" python3 -c '
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("ExecStartPre=")][0]
words = re.findall(r"\"((?:[^\"\\]|\\.)*)\"", line)
unq = [re.sub(r"\\(.)", r"\1", w).replace("%%", "%").replace("$$", "$") for w in words]
assert sys.argv[2] in unq, (unq, sys.argv[2])
assert any(u.startswith(sys.argv[3]) for u in unq), (unq, sys.argv[3])' "$dropin" "$scratch/odd-model" "$scratch/run %i \$x \"q\"/models/"

# ---- A directory of the command line reaches the drop-ins: refused with a control byte ----
for opt in --runtime-dir --unit-dir --generator-dir; do
	apply "$scratch/odd.conf" "$opt" "$scratch/r
un"
	if [ "$rc" -eq 2 ] && grep -q "^numaplan: $opt $scratch/r\\\\nun: a control character" <<<"$err" &&
		[ ! -e "$scratch/r
un" ]; then
		ok "$opt with a newline: refused by name, exit 2, nothing made"
	else fail "$opt with a newline" "exit $rc" "$err"; fi
done
run plan --sysfs-root "$scratch/$(printf '\x1b[2J')" -c /dev/null
[ "$rc" -eq 2 ] && grep -q 'x1b\[2J: a control character' <<<"$err" && ok "--sysfs-root with an escape sequence: refused, exit 2" ||
	fail "--sysfs-root with an escape sequence" "exit $rc" "$err"
done_testing

#!/bin/bash
# The command line's contract: global options before or after the verb, a verb's own option
# before the verb accepted, an option of another verb refused naming it, and exit codes.
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
host="$fixtures/hosts/dgx-2s-8gpu"
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 1G\n' >"$scratch/c.conf"
chmod 0644 "$scratch/c.conf"

json_ok() { python3 -c 'import json,sys; json.load(sys.stdin)' <"$scratch/out" 2>/dev/null; }

# Each form must give the same document as the canonical one.
run show --json --sysfs-root "$host"
canonical_show=$out
for form in "--json show --sysfs-root $host" "--sysfs-root $host --json show" "--sysfs-root=$host show --json" \
	"show --sysfs-root $host --json"; do
	# shellcheck disable=SC2086 # the form is words
	run $form
	if [ $rc -eq 0 ] && json_ok && [ "$out" = "$canonical_show" ]; then ok "numaplan $form: show's JSON"; else
		fail "numaplan $form" "exit $rc" "$err"; fi
done

run plan -c "$scratch/c.conf" --sysfs-root "$host" --json
canonical_plan=$out
for form in "-c $scratch/c.conf plan --sysfs-root $host --json" "--config $scratch/c.conf --json plan --sysfs-root $host" \
	"--config=$scratch/c.conf plan --json --sysfs-root $host" "--sysfs-root $host plan --json -c $scratch/c.conf"; do
	# shellcheck disable=SC2086
	run $form
	if [ $rc -eq 0 ] && [ -n "$canonical_plan" ] && [ "$out" = "$canonical_plan" ]; then ok "numaplan $form: plan of c.conf"; else
		fail "numaplan $form" "exit $rc" "$err"; fi
done

run --check show --sysfs-root "$host"
if [ $rc -eq 2 ] && grep -q "unknown option '--check'" <<<"$err" && [ -z "$out" ]; then
	ok "another verb's option before the verb is refused, naming it"
else fail "apply's --check before show" "exit $rc" "$err"; fi
run -o x.tar plan --sysfs-root "$host"
if [ $rc -eq 2 ] && grep -q "unknown option '-o'" <<<"$err"; then ok "a short option of another verb is refused, naming it"; else
	fail "snapshot's -o before plan" "exit $rc" "$err"; fi
run show --frobnicate
if [ $rc -eq 2 ] && grep -q "numaplan show: unknown option '--frobnicate'" <<<"$err"; then ok "an unknown option names itself"; else
	fail "unknown option" "exit $rc" "$err"; fi
run plan -c
if [ $rc -eq 2 ] && grep -q "option '-c' needs a value" <<<"$err"; then ok "an option without its value says so"; else
	fail "-c without a value" "exit $rc" "$err"; fi
run --json
if [ $rc -eq 2 ] && grep -q "'--json' needs a command" <<<"$err"; then ok "an option without a command says so"; else
	fail "--json alone" "exit $rc" "$err"; fi
run --sysfs-root
is "a global option without its value exits 2" "$rc" 2
run -q show --sysfs-root "$host" -c "$scratch/missing.conf"
if [ $rc -eq 0 ] && grep -q "cannot open" <<<"$err" && ! grep -q "warning:" <<<"$err"; then
	ok "-q before the verb keeps the error, drops the warning"
else fail "-q" "exit $rc" "$err"; fi
run show --sysfs-root "$host" -q -c "$scratch/missing.conf"
if [ $rc -eq 0 ] && grep -q "cannot open" <<<"$err" && ! grep -q "warning:" <<<"$err"; then ok "and after it"; else
	fail "-q after" "exit $rc" "$err"; fi
run verify --json --tap
is "verify --json --tap is a usage error" "$rc" 2
run --help plan
case $out in "Usage: numaplan plan"*) ok "--help before a verb is that verb's help" ;; *) fail "--help plan" "$out" ;; esac
help_plan=$out
run help plan
is "help plan: plan's help, as plan --help prints it" "$rc|$out|$err" "0|$help_plan|"
run --help
help_all=$out
run help
is "help alone: numaplan --help" "$rc|$out|$err" "0|$help_all|"
run help shwo
if [ $rc -eq 2 ] && grep -qF "numaplan help: unknown command 'shwo' (did you mean 'show'?)" <<<"$err" && [ -z "$out" ]; then
	ok "help of a misspelt command: exit 2, the nearest"
else fail "help shwo" "exit $rc" "$err"; fi
# The nearest name for every misspelling: a letter missing, added, changed, or two swapped.
for typo in "pln:unknown command 'pln' (did you mean 'plan'?)" "shwo:unknown command 'shwo' (did you mean 'show'?)" \
	"aplpy:unknown command 'aplpy' (did you mean 'apply'?)" "plan --jsno:unknown option '--jsno' (did you mean '--json'?)" \
	"--jsno plan:unknown option '--jsno' (did you mean '--json'?)" "--jsno:unknown option '--jsno' (did you mean '--json'?)" \
	"apply --chekc:unknown option '--chekc' (did you mean '--check'?)" \
	"plan --sysfs-roto=/:unknown option '--sysfs-roto=/' (did you mean '--sysfs-root'?)"; do
	# shellcheck disable=SC2086 # the words typed
	run ${typo%%:*}
	if [ $rc -eq 2 ] && grep -qF -- "${typo#*:}" <<<"$err"; then ok "numaplan ${typo%%:*}: ${typo#*:}"; else
		fail "numaplan ${typo%%:*}" "exit $rc" "$err" "want: ${typo#*:}"; fi
done
# Whole names only: getopt would take a unique prefix, which the next option could make ambiguous.
run plan --jso --sysfs-root "$host" -c "$scratch/c.conf"
if [ $rc -eq 2 ] && grep -qF "unknown option '--jso' (did you mean '--json'?)" <<<"$err" && [ -z "$out" ]; then
	ok "a prefix of an option is refused, naming the option"
else fail "plan --jso" "exit $rc" "$err" "$(head -c 300 <<<"$out")"; fi
run plan --json=yes --sysfs-root "$host" -c "$scratch/c.conf"
if [ $rc -eq 2 ] && grep -qF "option '--json' takes no value" <<<"$err"; then ok "a flag given a value says so"; else
	fail "plan --json=yes" "exit $rc" "$err"; fi
# Messages an admin reads.
msg() { # msg DESCRIPTION WANT CONFIG-TEXT: plan of the text exits 2 with WANT on stderr
	printf '%b\n' "$3" >"$scratch/m.conf"
	chmod 0644 "$scratch/m.conf"
	run plan --sysfs-root "$host" -c "$scratch/m.conf"
	if [ $rc -eq 2 ] && grep -qF -- "$2" <<<"$err"; then ok "$1"; else fail "$1" "exit $rc" "$err" "want: $2"; fi
}
msg "an unknown key suggests the nearest" "m.conf:3: unknown key 'memroy' in [replica a] (did you mean 'memory'?)" \
	"[replica a]\nunit = a.service\nmemroy = 4G"
msg "an unknown section suggests the nearest" "unknown section [replika a] (did you mean 'replica'?)" "[replika a]\nunit = a"
msg "a key of the other kind of section says where it belongs" "key 'accelerators' belongs in [replica NAME] sections" \
	"[replicas t]\nunit = t@%i\naccelerators = none"
msg "48GB: sizes are binary, with the two ways to write it" "bad memory '48GB': sizes are binary, so write 48G or 48GiB" \
	"[replica a]\nunit = a\nmemory = 48GB"
msg "a headroom over 100%: said so, with the range" "m.conf:2: bad headroom '110%': over 100%: expected 0% to 99%" \
	"[numaplan]\nheadroom = 110%"
msg "a headroom of 100%: over the most it takes" "m.conf:2: bad headroom '100%': over 99%: expected 0% to 99%" \
	"[numaplan]\nheadroom = 100%"
msg "a '# comment' after a value: inih's rule in the message" "(after a value only \" ;\" starts a comment" \
	"[replica a]\nunit = a\npolicy = bind # pinned"
printf '[replica a]\nunit = llama-server@0\nmemory = 48GiB\naccelerators = 18:00.0\n' >"$scratch/u.conf"
chmod 0644 "$scratch/u.conf"
run plan --json --sysfs-root "$host" -c "$scratch/u.conf"
check "48GiB is 48G, and a unit without a suffix is the service, as systemctl takes it" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["replicas"][0]
assert r["unit"] == "llama-server@0.service" and r["memory_bytes"] == 48 << 30, r' "$scratch/out"
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\n' >"$scratch/nomem.conf"
chmod 0644 "$scratch/nomem.conf"
run plan --sysfs-root "$host" -c "$scratch/nomem.conf"
if grep -qE '^a +a\.service +0000:18:00\.0 +0 +bind +[0-9,-]+( \(numa\))? +-$' "$scratch/out" &&
	grep -q '^# replica a: .*; no memory set, and [0-9.]* GiB usable on node 0$' "$scratch/out"; then
	ok "memory unset: '-' in plan's table, said so in the drop-in's header, never '0 B'"
else fail "an unset memory in plan" "$out"; fi
run plan --json --sysfs-root "$host" -c "$scratch/nomem.conf"
check "and null in --json" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["replicas"][0]["memory_bytes"] is None' "$scratch/out"
run remove --no-reload --unit-dir "$scratch/none" llama-server@0
if [ $rc -eq 0 ] && grep -q "^llama-server@0.service: no drop-in of numaplan's to remove" <<<"$out" && grep -q "^nothing removed" <<<"$out"; then
	ok "remove of a unit numaplan never touched says so"
else fail "remove of an untouched unit" "exit $rc" "$out"; fi

# model = and hugepages =: sizes from the files, pools in the plan, bad values at their line.
mkdir -p "$scratch/shards/sub"
head -c 3000000 /dev/zero >"$scratch/shards/a.safetensors"
head -c 1000000 /dev/zero >"$scratch/shards/sub/b.safetensors"
ln -s a.safetensors "$scratch/shards/again.safetensors"
head -c 500000 /dev/zero >"$scratch/shards/.partial"
head -c 250000 /dev/zero >"$scratch/one.gguf"
printf '[replica m]\nunit = m\naccelerators = 18:00.0 9a:00.0\nmodel = %s, %s\nhugepages = 3G:1G\n' \
	"$scratch/shards" "$scratch/one.gguf" >"$scratch/m2.conf"
chmod 0644 "$scratch/m2.conf"
run plan --json --sysfs-root "$host" -c "$scratch/m2.conf"
check "model = files and a directory: every file once (links followed, hidden files left out), sizing the memory" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["replicas"][0]
assert r["model_bytes"] == 4250000 and r["memory_bytes"] == 4250000, r
assert r["hugepages"] == {"page_kb": 1048576, "nodes": [{"node": 0, "pages": 2}, {"node": 1, "pages": 1}]}, r["hugepages"]
d = r["dropin"]
assert "ExecStartPre=-+" in d and " prepare --nodes 0-1 --spread --nics \"0000:17:00.0\" --nics-env " in d and "%n\" -- " in d, d' "$scratch/out"
run plan --sysfs-root "$host" -c "$scratch/m2.conf"
if [ $rc -eq 0 ] && grep -qE "^m +m.service .* 4\.1 MiB \+ 3\.0 GiB huge$" <<<"$out"; then ok "plan's table shows the huge pages beside the memory"; else
	fail "plan table with huge pages" "$out"; fi
run apply --no-reload --sysfs-root "$host" --unit-dir "$scratch/units" -c "$scratch/m2.conf" --json
if [ $rc -eq 0 ] && grep -q "huge pages are reserved only by an apply to systemd's unit directories of this host: none reserved" <<<"$err" &&
	python3 -c 'import json,sys; d = json.load(sys.stdin); assert d["hugepages"] == [] and d["changed"]' <"$scratch/out"; then
	ok "apply of a replayed host writes the drop-ins and says it reserves no huge pages"
else fail "apply with hugepages on a replayed host" "exit $rc" "$err" "$out"; fi
msg "hugepages: a page size that is not a power of two" "m.conf:3: bad hugepages '16G:3M': the page size after ':' must be a power of two" \
	"[replica a]\nunit = a\nhugepages = 16G:3M"
msg "hugepages: not a whole number of pages" "m.conf:3: bad hugepages '3M:2M': not a whole number of 2M pages" \
	"[replica a]\nunit = a\nhugepages = 3M:2M"
msg "hugepages: a page size the kernel does not offer" "m.conf:3: replica a: this host's kernel offers no 64.0 KiB huge pages" \
	"[replica a]\nunit = a\nhugepages = 1G:64K"
msg "container: a name docker would refuse" "m.conf:3: bad container 'llama server': a container name is letters, digits" \
	"[replica a]\nunit = a\ncontainer = llama server"
msg "container: %i outside a template" "m.conf:3: container 'llama-%i': %i belongs to a [replicas] template" \
	"[replica a]\nunit = a\ncontainer = llama-%i"
printf '[replicas t]\nunit = t@%%i\ncontainer = llama-%%i\nmemory = 1G\n' >"$scratch/c.conf"
chmod 0644 "$scratch/c.conf"
run plan --sysfs-root "$host" -c "$scratch/c.conf" --json
if [ $rc -eq 0 ] && python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["replicas"]
assert r and all(x["container"] == "llama-" + x["unit"][2:-8] for x in r), r
assert all("Environment=NUMAPLAN_CPUS=%s NUMAPLAN_MEMS=" % x["cpus"] in x["dropin"] for x in r), r[0]["dropin"]
' <"$scratch/out"; then ok "a template's container name takes the instance; the drop-in exports the plan"
else fail "container in a template" "exit $rc" "$err" "$(head -c 2000 "$scratch/out")"; fi
msg "model: a relative path" "m.conf:3: model 'models/q.gguf' must be an absolute path" "[replica a]\nunit = a\nmodel = models/q.gguf"
msg "model: a file that cannot be sized, without memory =" "m.conf:3: [replica a]: cannot size model $scratch/nope.gguf (No such file or directory): set memory =" \
	"[replica a]\nunit = a\nmodel = $scratch/nope.gguf"
truncate -s 2T "$scratch/huge.gguf"
msg "model: larger than its node can hold" "m.conf:5: replica a: its model (2.0 TiB in files) is larger than its node 0 can hold (921.6 GiB usable)" \
	"[replica a]\nunit = a\naccelerators = 18:00.0\nmemory = 8G\nmodel = $scratch/huge.gguf"
printf '[replica a]\nunit = a\nmemory = 1G\nmodel = %s/later.gguf\n' "$scratch" >"$scratch/later.conf"
chmod 0644 "$scratch/later.conf"
run plan --sysfs-root "$host" -c "$scratch/later.conf"
is "a model not there yet is fine when memory = says how much: planned with it" "exit $rc, $(grep -c '^a  *a\.service .* 1\.0 GiB$' <<<"$out")" "exit 0, 1"

# prepare and migrate: what they refuse.
run prepare -- "$scratch/one.gguf"
if [ $rc -eq 2 ] && grep -q "numaplan prepare: --nodes LIST is required" <<<"$err"; then ok "prepare without --nodes exits 2"; else
	fail "prepare without --nodes" "exit $rc" "$err"; fi
run prepare --nodes 0
is "prepare without a path exits 2" "$rc" 2
run prepare --nodes 0 -- "$scratch/missing.gguf"
if [ $rc -eq 0 ] && grep -q "missing.gguf: No such file or directory: its page cache is left where it is" <<<"$err"; then
	ok "prepare of a missing file warns and exits 0: an ExecStartPre= never fails a start"
else fail "prepare of a missing file" "exit $rc" "$err"; fi
run prepare --nodes 0 --dry-run -- "$scratch/shards"
if [ $rc -eq 0 ] && grep -q "model page cache: .* cached, .* (dry run) would have moved" <<<"$err"; then ok "prepare --dry-run says where the cached pages are"; else
	fail "prepare --dry-run" "exit $rc" "$err"; fi
for args in "--copy-to $scratch/copies" "--copy-size 1G" "--copy-to copies --copy-size 1G" "--copy-to $scratch/copies --copy-size lots"; do
	# shellcheck disable=SC2086 # the words of args
	run prepare --nodes 0 $args -- "$scratch/one.gguf"
	if [ $rc -eq 2 ] && grep -q "numaplan prepare: .*--copy" <<<"$err" && [ ! -e "$scratch/copies" ]; then
		ok "prepare $args: exit 2, naming the option, nothing made"
	else fail "prepare $args" "exit $rc" "$err"; fi
done
run prepare --nodes 0 --dry-run --copy-to "$scratch/copies" --copy-size 1G -- "$scratch/one.gguf"
if [ $rc -eq 0 ] && grep -q "(dry run) would mount a tmpfs on $scratch/copies (mode=0755,uid=0,gid=0,size=1.*,mpol=bind:0)" <<<"$err" &&
	grep -q "model copy in $scratch/copies: (dry run) would have 1 file" <<<"$err" && [ ! -e "$scratch/copies" ]; then
	ok "prepare --copy-to --dry-run says what it would mount and copy, and makes nothing"
else fail "prepare --copy-to --dry-run" "exit $rc" "$err"; fi
run migrate --sysfs-root "$host" -c "$scratch/c.conf"
if [ $rc -eq 2 ] && grep -q "numaplan migrate: it moves this host's pages: not with --sysfs-root" <<<"$err"; then
	ok "migrate refuses a replayed host"
else fail "migrate --sysfs-root" "exit $rc" "$err"; fi

# --json and --tap keep their promise of one document, also on failure.
run plan --json --sysfs-root "$host" -c "$scratch/missing.conf"
check "a failed plan --json prints {\"error\": {code, message}}" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == 2 and "missing.conf: cannot open" in e["message"], e' "$scratch/out"
run verify --json --frobnicate
check "a usage error of verify --json too" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == 2 and "unknown option" in e["message"], e' "$scratch/out"
run verify --tap --frobnicate
case $out in "Bail out! "*"unknown option '--frobnicate'"*) ok "verify --tap fails with TAP's Bail out!" ;; *) fail "verify --tap failure" "$out" ;; esac
if [ ! -d /run/systemd/system ]; then
	run verify --json --sysfs-root "$host" -c "$scratch/c.conf"
	check "verify --json without systemd: the error document says so" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == 3 and "not been booted with systemd" in e["message"], e' "$scratch/out"
fi

# plan's first line names where the plan comes from, and the built-in default once.
printf '[numaplan]\n' >"$scratch/empty.conf"
chmod 0644 "$scratch/empty.conf"
run plan --sysfs-root "$host" -c "$scratch/empty.conf"
is "plan of a file without replicas: its header names the file and the built-in default once" "$(head -n 1 <<<"$out")" \
	"plan from $scratch/empty.conf (no replica section: the built-in default, one replica per compute accelerator, or per node)"
if [ ! -e /etc/numaplan/numaplan.conf ] && [ ! -d /etc/numaplan/conf.d ]; then
	run plan --sysfs-root "$host"
	is "plan with no configuration file: the built-in default, said once" "$(head -n 1 <<<"$out")" \
		"plan from the built-in default: one replica per compute accelerator, or per node"
else
	ok "# SKIP this host has a numaplan configuration in /etc"
fi
done_testing

#!/bin/bash
# plan, apply and remove against a temporary unit directory (--no-reload: no systemd here):
# drop-ins agree with plan --json, apply is idempotent, --check and --diff, remove, every kind
# of bad input exits 2 naming path:line and leaves the unit directory byte-identical, and a
# killed or failing apply never leaves a partial drop-in.
set -u
numaplan=$1
fixtures=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dgx="$fixtures/hosts/dgx-2s-8gpu"

run() { # run ARGS...: sets rc, out, err
	"$numaplan" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	out=$(cat "$scratch/out")
	err=$(cat "$scratch/err")
}

# A listing of a tree that changes when any byte, name, mode, inode or mtime does.
tree_state() {
	(cd "$1" && find . -printf '%p %m %i %T@ %s\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum)
}

conf() { # conf NAME TEXT: a config file owned by root, mode 0644
	printf '%s\n' "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}

# ---- plan on every fixture host with every profile ----
for host in "$fixtures"/hosts/*; do
	[ -d "$host" ] || continue
	for profile in /dev/null "$src"/profiles/*.conf; do
		run plan --json --sysfs-root "$host" -c "$profile"
		name="plan $(basename "$host") $(basename "$profile")"
		if [ $rc -eq 0 ] && python3 -c 'import json,sys; json.load(sys.stdin)' <"$scratch/out"; then
			ok "$name: exit 0, one JSON document"
		elif [ $rc -eq 2 ] && grep -q "^$profile:[0-9]*: replica .*\(needs\|count:\)" <<<"$err"; then
			ok "$name: too small for this profile, refused naming file, line and numbers"
		else
			fail "$name" "exit $rc" "$err"
		fi
	done
done

# ---- apply: drop-ins agree with plan --json; idempotence; --check ----
units="$scratch/units"
mkdir -p "$units"
c1=$(conf c1.conf "[numaplan]
reserve-cpus = 0,32
[replica llama-0]
unit = llama-server@0.service
accelerators = 0000:18:00.0, 2a:00.0
memory = 48G
[replicas inference]
unit = inference@%i.service
memory = 16G")
run plan --json --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
cp "$scratch/out" "$scratch/plan.json"
run apply --json --no-reload --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
is "apply exits 0" "$rc" 0
check "apply --json is one JSON document saying changed" python3 -c \
	'import json,sys; d=json.load(open(sys.argv[1])); assert d["changed"] and len(d["units"]) == 7 and all(u["action"] == "created" for u in d["units"])' "$scratch/out"
if python3 - "$scratch/plan.json" <<'PY'; then ok "every drop-in on disk is plan --json's text at plan --json's path"; else fail "drop-ins agree with plan --json"; fi
import json, sys
plan = json.load(open(sys.argv[1]))
for r in plan["replicas"]:
    assert open(r["dropin_path"]).read() == r["dropin"], r["unit"]
    assert r["dropin_path"].endswith("/%s.d/50-numaplan.conf" % r["unit"])
PY
before=$(tree_state "$units")
run apply --json --no-reload --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
check "a second apply changes nothing" python3 -c \
	'import json,sys; d=json.load(open(sys.argv[1])); assert not d["changed"] and all(u["action"] == "unchanged" for u in d["units"])' "$scratch/out"
is "a second apply leaves every file untouched (inode, mtime, bytes)" "$(tree_state "$units")" "$before"
run apply --check --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
is "apply --check exits 0 when in sync" "$rc" 0

c2=$(conf c2.conf "[replica llama-0]
unit = llama-server@0.service
accelerators = 0000:18:00.0
memory = 64G
[replica cpu]
unit = cpu-worker.service
memory = 8G")
run apply --check --json --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
is "apply --check exits 1 when changes are pending" "$rc" 1
is "apply --check writes nothing" "$(tree_state "$units")" "$before"
check "apply --check --json lists the pending actions" python3 -c '
import json,sys
d = json.load(open(sys.argv[1]))
a = {u["unit"]: u["action"] for u in d["units"]}
assert d["changed"] and a["llama-server@0.service"] == "updated" and a["cpu-worker.service"] == "created"
assert a["inference@0.service"] == "removed" and len(a) == 8' "$scratch/out"
run apply --check --diff --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
case $out in *"--- $units/llama-server@0.service.d/50-numaplan.conf"*"+++ "*"@@ "*"-MemoryNodes"* | *"--- $units/llama-server@0.service.d/50-numaplan.conf"*"@@ "*) ok "--diff prints a unified diff" ;; *) fail "--diff prints a unified diff" "$out" ;; esac
case $out in *"+++ /dev/null"*) ok "--diff shows removals against /dev/null" ;; *) fail "--diff removals" "$out" ;; esac
is "--check --diff writes nothing" "$(tree_state "$units")" "$before"

# ---- crash consistency: every write step killed, and failed, in turn ----
cp -a "$units" "$scratch/state-old"
run apply --json --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
cp -a "$units" "$scratch/state-new"
rm -rf "$units" && cp -a "$scratch/state-old" "$units"
steps=0 partial=0 rolled=0 converged=0
for step in $(seq 1 40); do
	rm -rf "$units" && cp -a "$scratch/state-old" "$units"
	NUMAPLAN_TEST_KILL_AT_STEP=$step "$numaplan" apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" >/dev/null 2>&1
	[ $? -eq 137 ] || break
	steps=$step
	for f in $(cd "$scratch/state-old" && find . -name 50-numaplan.conf) $(cd "$scratch/state-new" && find . -name 50-numaplan.conf); do
		if [ -e "$units/$f" ] && ! cmp -s "$units/$f" "$scratch/state-old/$f" && ! cmp -s "$units/$f" "$scratch/state-new/$f"; then
			partial=$((partial + 1))
		fi
	done
	"$numaplan" apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" >/dev/null 2>&1
	diff -r "$units" "$scratch/state-new" >/dev/null && converged=$((converged + 1))
	rm -rf "$units" && cp -a "$scratch/state-old" "$units"
	NUMAPLAN_TEST_FAIL_AT_STEP=$step "$numaplan" apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" >/dev/null 2>&1
	rc=$?
	# Steps past the drop-ins (the /run marker) fail after the commit: the new state, exit 0.
	if [ $rc -eq 3 ] && diff -r "$units" "$scratch/state-old" >/dev/null; then
		rolled=$((rolled + 1))
	elif [ $rc -eq 0 ] && diff -r "$units" "$scratch/state-new" >/dev/null; then
		rolled=$((rolled + 1))
	fi
done
ok "apply was killed at each of its $steps write steps in turn" && [ "$steps" -ge 10 ] || fail "apply has write steps to kill" "$steps"
is "no kill left a drop-in that is neither the old nor the new one" "$partial" 0
is "after every kill, the next apply finishes the job" "$converged" "$steps"
is "a failure at any drop-in step exits 3 and restores every file (all or nothing)" "$rolled" "$steps"
rm -rf "$units" && cp -a "$scratch/state-new" "$units"

# ---- remove ----
mkdir -p "$units/foreign.service.d"
echo "[Service]" >"$units/foreign.service.d/50-numaplan.conf"
run remove --json --no-reload --unit-dir "$units" cpu-worker.service
check "remove UNIT removes that drop-in only" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["changed"] and d["units"] == [{"unit": "cpu-worker.service", "action": "removed"}]' "$scratch/out"
check "and its now empty directory" test ! -e "$units/cpu-worker.service.d"
check "the other drop-in stays" test -e "$units/llama-server@0.service.d/50-numaplan.conf"
run remove --no-reload --unit-dir "$units"
is "remove exits 0" "$rc" 0
check "remove without units removes every numaplan drop-in" test ! -e "$units/llama-server@0.service.d"
check "a drop-in numaplan did not write is left alone" test -e "$units/foreign.service.d/50-numaplan.conf"
run remove --json --no-reload --unit-dir "$units"
check "removing nothing is success" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["changed"]' "$scratch/out"
run remove --no-reload --unit-dir "$units" ../etc.service
is "remove refuses a unit name with .." "$rc" 2

# ---- bad input: exit 2, path:line, nothing written ----
rm -rf "$units" && cp -a "$scratch/state-new" "$units"
before=$(tree_state "$units")
bad() { # bad DESCRIPTION WANT-IN-STDERR CONFIG-TEXT
	local f
	f=$(conf bad.conf "$3")
	run apply --no-reload --sysfs-root "$dgx" -c "$f" --unit-dir "$units"
	if [ $rc -eq 2 ] && grep -qF -- "$2" <<<"$err" && [ "$(tree_state "$units")" = "$before" ] && [ -z "$out" ]; then
		ok "$1: exit 2, '$2', unit directory unchanged"
	else
		fail "$1" "exit $rc" "stderr: $err" "want: $2"
	fi
}
bad "unknown key" "bad.conf:3: unknown key 'memroy'" "[replica a]
unit = a.service
memroy = 4G"
bad "unknown section" "bad.conf:1: unknown section [replika a]" "[replika a]
unit = a.service"
bad "duplicate key" "bad.conf:3: duplicate key 'unit'" "[replica a]
unit = a.service
unit = b.service"
bad "bad size" "bad.conf:3: bad memory '48GB'" "[replica a]
unit = a.service
memory = 48GB"
bad "unit name with /" "bad.conf:2: unit '../../etc/x.service' is not a valid service name" "[replica a]
unit = ../../etc/x.service"
bad "unit name with .." "bad.conf:2: unit '..x.service' is not a valid service name: it contains '..'" "[replica a]
unit = ..x.service"
bad "unit name without .service" "bad.conf:2: unit 'a.socket' is not a valid service name" "[replica a]
unit = a.socket"
bad "unknown accelerator" "bad.conf:3: replica a: unknown accelerator 0000:99:00.0; this host has: 0000:03:00.0" "[replica a]
unit = a.service
accelerators = 99:00.0"
bad "one accelerator in two replicas" "bad.conf:6: replica b: accelerator 0000:18:00.0 already belongs to replica a (" "[replica a]
unit = a.service
accelerators = 18:00.0
[replica b]
unit = b.service
accelerators = 18:00.0"
bad "a replica too big for the host" "bad.conf:4: replica a needs 4.0 TiB" "[replica a]
unit = a.service
accelerators = 18:00.0
memory = 4T"
bad "a key outside any section" "bad.conf:1: key 'memory' outside a section" "memory = 4G"
bad "a template without %i" "bad.conf:2: unit 'inference.service' of a template must contain %i" "[replicas t]
unit = inference.service"
bad "a section without unit" "bad.conf:1: [replica a] has no unit" "[replica a]
memory = 1G"
bad "an indented line" "bad.conf:3: indented line" "[replica a]
unit = a.service
  memory = 1G"
bad "a line longer than inih's 200 bytes" "bad.conf:2: line longer than 199 bytes" "[replica a]
unit = a$(printf 'x%.0s' $(seq 1 210)).service"
bad "a syntax error" "bad.conf:2: syntax error" "[replica a]
unit a.service"
bad "bad percentage" "bad.conf:2: bad headroom '10'" "[numaplan]
headroom = 10"
bad "bad policy" "bad.conf:3: bad policy 'strict'" "[replica a]
unit = a.service
policy = strict"
bad "count larger than the host has" "bad.conf:3: replica a: count:9 asks for 9" "[replica a]
unit = a.service
accelerators = count:9"
bad "two replicas on one unit" "bad.conf:4: replica b: unit a.service is also replica a's" "[replica a]
unit = a.service
[replica b]
unit = a.service"
run apply --no-reload --sysfs-root "$dgx" -c "$scratch/no-such.conf" --unit-dir "$units"
if [ $rc -eq 2 ] && grep -q "no-such.conf: cannot open" <<<"$err"; then ok "a missing -c file exits 2 naming it"; else fail "missing -c file" "$rc" "$err"; fi
if [ "$(id -u)" = 0 ]; then
	f=$(conf owned.conf "[replica a]
unit = a.service")
	chown 65534 "$f"
	run apply --no-reload --sysfs-root "$dgx" -c "$f" --unit-dir "$units"
	if [ $rc -eq 2 ] && grep -q "owned.conf: owned by uid 65534, not root: refused" <<<"$err" && [ "$(tree_state "$units")" = "$before" ]; then
		ok "a config file not owned by root is refused: exit 2, nothing written"
	else fail "unsafe owner" "$rc" "$err"; fi
	f=$(conf open.conf "[replica a]
unit = a.service")
	chmod 0666 "$f"
	run apply --no-reload --sysfs-root "$dgx" -c "$f" --unit-dir "$units"
	if [ $rc -eq 2 ] && grep -q "open.conf: writable by group or others (mode 0666): refused" <<<"$err" && [ "$(tree_state "$units")" = "$before" ]; then
		ok "a group- or world-writable config file is refused: exit 2, nothing written"
	else fail "unsafe mode" "$rc" "$err"; fi
else
	echo "ok $((tap_n + 1)) - # SKIP ownership checks need root"
	tap_n=$((tap_n + 1))
fi
if [ ! -S /run/systemd/private ] && [ ! -S /run/dbus/system_bus_socket ]; then
	run apply -c "$c1" --sysfs-root "$dgx" --unit-dir "$units"
	if [ $rc -eq 3 ] && grep -q "nothing written" <<<"$err" && [ "$(tree_state "$units")" = "$before" ]; then
		ok "apply with no systemd to reload exits 3 and writes nothing"
	else fail "apply without systemd" "$rc" "$err"; fi
fi
run apply --restart --no-reload -c "$c1" --sysfs-root "$dgx" --unit-dir "$units"
is "--restart with --no-reload is a usage error" "$rc" 2
is "and wrote nothing" "$(tree_state "$units")" "$before"

# ---- the lock: a second apply waits for the first ----
if command -v flock >/dev/null && [ -w /run ]; then
	flock /run/numaplan.lock sleep 2 &
	holder=$!
	sleep 0.3
	start=$(date +%s%N)
	run apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
	waited=$((($(date +%s%N) - start) / 1000000))
	wait $holder
	if [ $rc -eq 0 ] && [ $waited -ge 1000 ] && grep -q "waiting for another numaplan" <<<"$err"; then
		ok "apply waits while another holds /run/numaplan.lock (${waited} ms)"
	else fail "apply waits for the lock" "rc $rc, waited $waited ms" "$err"; fi
fi
done_testing

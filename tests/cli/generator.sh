#!/bin/bash
# numaplan-generator on the fixture hosts, in temporary directories only: its drop-ins are the
# ones plan shows, byte for byte, on every host with every profile; where plan refuses a
# configuration (bad, or no longer fitting the host), the generator gives plan's reason, drop-ins
# that keep the replicas from starting, exit 0 and no marker; nothing is written outside its
# directory; and apply, remove and plan in generator mode with each combination of apply's
# drop-ins, the generator's and remove's record (--no-reload: no systemd here); a disk that stops
# answering (the preloaded fault shim). Usage: generator.sh NUMAPLAN FIXTURES FAULT_PRELOAD
set -u
numaplan=$1
fixtures=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/tap.sh"
fault_shim "${3:-}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dgx="$fixtures/hosts/dgx-2s-8gpu"
mkdir "$scratch/bin"
ln -s "$(cd "$(dirname "$numaplan")" && pwd)/$(basename "$numaplan")" "$scratch/bin/numaplan-generator"
gen_bin=$scratch/bin/numaplan-generator

conf() { # conf NAME TEXT: a config file owned by root, mode 0644
	printf '%s\n' "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}
tree_state() { # a listing that changes when any byte, name or mode does
	[ -d "$1" ] || { echo "(none)"; return; }
	(cd "$1" && find . -printf '%p %m %s\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum)
}
# expected_tree PLAN_JSON DIR: writes plan --json's drop-ins where it says they go.
expected_tree() { # expected_tree PLAN_JSON FROM TO: plan's drop-ins for FROM, written under TO
	python3 -c '
import json, os, sys
doc = json.load(open(sys.argv[1]))
for r in doc["replicas"]:
    path = sys.argv[3] + r["dropin_path"][len(sys.argv[2]):]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(r["dropin"])
' "$@"
}
dropins_of() { # the drop-ins of a directory, without the marker
	(cd "$1" 2>/dev/null && find . -name '*.conf' -type f -print0 | sort -z | xargs -0r sha256sum)
}

# ---- The generator's drop-ins are plan's, on every fixture host with every profile ----
pairs=0
same=0
blocked=0
for host in "$fixtures"/hosts/*; do
	root=$(fixture_root "$host" "$scratch")
	for profile in /dev/null "$src"/profiles/*.conf; do
		name="$(host_name "$host") $(basename "$profile" .conf)"
		pairs=$((pairs + 1))
		g=$scratch/pair/gen
		rm -rf "$scratch/pair"
		mkdir -p "$g" "$scratch/pair/etc"
		"$gen_bin" --sysfs-root "$root" -c "$profile" --unit-dir "$scratch/pair/etc" "$g" "$g.early" "$g.late" \
			2>"$scratch/pair.err"
		rc=$?
		[ $rc -eq 0 ] || fail "generator $name: exit 0" "exit $rc" "$(cat "$scratch/pair.err")"
		"$numaplan" plan --json --sysfs-root "$root" -c "$profile" --unit-dir "$scratch/pair/etc" \
			--generator-dir "$g" >"$scratch/pair.json" 2>"$scratch/pair.plan.err"
		prc=$?
		if [ $prc -eq 0 ]; then
			json_seen plan "$scratch/pair.json"
			mkdir -p "$scratch/pair/want"
			expected_tree "$scratch/pair.json" "$g" "$scratch/pair/want"
			if [ "$(dropins_of "$g")" = "$(dropins_of "$scratch/pair/want")" ] && [ -f "$g/.numaplan/applied" ] &&
				diff -r -x .numaplan "$g" "$scratch/pair/want" >/dev/null 2>&1; then
				same=$((same + 1))
			else
				fail "generator $name: the drop-ins plan shows, and the marker" "$(diff -r -x .numaplan "$g" "$scratch/pair/want" | head -20)"
			fi
		else
			# No plan: plan refuses the configuration (exit 2) for the reason the generator gives,
			# first on stderr and in each drop-in; every unit the configuration names is kept
			# from starting.
			why=$(head -n 1 "$scratch/pair.plan.err")
			if [ $prc -eq 2 ] && [ -n "$why" ] && [ "$(head -n 1 "$scratch/pair.err")" = "$why" ] &&
				[ ! -e "$g/.numaplan/applied" ] && grep -q "no placement at this boot" "$scratch/pair.err" &&
				[ -n "$(find "$g" -name 50-numaplan.conf)" ] &&
				[ -z "$(grep -rL "AssertPathExists=$g/.numaplan/applied" --include=50-numaplan.conf "$g")" ] &&
				[ -z "$(grep -rLxF --include=50-numaplan.conf -e "# $why" "$g")" ]; then
				blocked=$((blocked + 1))
			else
				fail "generator $name: no plan: plan refuses (exit 2) for the reason the generator blocks for" \
					"plan: exit $prc" "$(cat "$scratch/pair.plan.err")" "generator:" "$(cat "$scratch/pair.err")" "$(find "$g")"
			fi
		fi
		[ -z "$(ls -A "$scratch/pair/etc")" ] ||
			fail "generator $name: writes nothing outside its directory" "$(find "$scratch/pair/etc")"
	done
done
is "the generator's output equals plan's drop-ins, or blocks, on all $pairs host/profile pairs" "$((same + blocked))" "$pairs"
[ "$same" -gt 20 ] && ok "planned on $same pairs, blocked on $blocked" || fail "planned on enough pairs" "$same"

# ---- A bad configuration at boot ----
llama='[replica llama]
unit = llama-server@0.service
accelerators = 18:00.0
memory = 16G

[replicas tp]
unit = tp@%i.service
per = node
memory = 8G'
good=$(conf good.conf "$llama")
bad=$(conf bad.conf "$llama
nodess = 1")
g=$scratch/bad/gen
mkdir -p "$g" "$scratch/bad/etc"
"$gen_bin" --sysfs-root "$dgx" -c "$bad" --unit-dir "$scratch/bad/etc" "$g" "$g" "$g" 2>"$scratch/bad.err"
is "a bad configuration: the generator exits 0" "$?" 0
grep -q "$bad:10: " "$scratch/bad.err" && ok "and says why, naming file and line" || fail "names file:line" "$(cat "$scratch/bad.err")"
# (with the drop-ins below written: a generator that wrote nothing writes no marker either)
check "it writes no marker" test ! -e "$g/.numaplan/applied" -a -f "$g/llama-server@0.service.d/50-numaplan.conf"
check "the replica's drop-in asserts the marker" grep -qx "AssertPathExists=$g/.numaplan/applied" "$g/llama-server@0.service.d/50-numaplan.conf"
check "a template's units are kept from starting by their template" grep -q "^AssertPathExists=" "$g/tp@.service.d/50-numaplan.conf"
grep -q "^# $bad:10: " "$g/llama-server@0.service.d/50-numaplan.conf" && ok "the drop-in says why" ||
	fail "the drop-in says why" "$(cat "$g/llama-server@0.service.d/50-numaplan.conf")"
grep -q "no placement at this boot: llama-server@0.service, tp@.service kept from starting" "$scratch/bad.err" &&
	ok "the message names the units kept from starting" || fail "names the units" "$(cat "$scratch/bad.err")"
check "nothing written outside its directory" test -z "$(ls -A "$scratch/bad/etc")" -a -n "$(ls -A "$g")"

# A file inih cannot read at all: its unit lines still say which units to keep from starting.
garbled=$(conf garbled.conf "[replica a
unit = garbled@0.service")
g=$scratch/garbled/gen
mkdir -p "$g"
"$gen_bin" --sysfs-root "$dgx" -c "$garbled" --unit-dir "$scratch/garbled/etc" "$g" 2>"$scratch/garbled.err"
is "a configuration that does not parse: exit 0" "$?" 0
check "its units are kept from starting all the same" test -f "$g/garbled@0.service.d/50-numaplan.conf"

# %i inside a template's instance but not all of it: its instances ("dot@.0.service") take the
# template's drop-ins, "dot@.service", never those of an instance named "dot@..service".
dotted=$(conf dotted.conf "[replicas dot]
unit = dot@.%i.service
per = node
nodess = 1")
g=$scratch/dotted/gen
mkdir -p "$g"
"$gen_bin" --sysfs-root "$dgx" -c "$dotted" --unit-dir "$scratch/dotted/etc" "$g" 2>"$scratch/dotted.err"
check "%i inside an instance: its template is kept from starting" test -f "$g/dot@.service.d/50-numaplan.conf"
is "and no other unit is" "$(ls -A "$g" | tr '\n' ' ')" "dot@.service.d "

# Hardware that no longer fits: the accelerator the configuration names is gone.
gone=$(conf gone.conf "[replica llama]
unit = llama-server@0.service
accelerators = 77:00.0")
g=$scratch/gone/gen
mkdir -p "$g"
"$gen_bin" --sysfs-root "$dgx" -c "$gone" --unit-dir "$scratch/gone/etc" "$g" 2>"$scratch/gone.err"
is "a configuration this host no longer fits: exit 0" "$?" 0
check "the replica is kept from starting" grep -q "^AssertPathExists=$g/.numaplan/applied" "$g/llama-server@0.service.d/50-numaplan.conf"
grep -q "77:00.0" "$scratch/gone.err" && ok "and the message says why" || fail "says why" "$(cat "$scratch/gone.err")"
check "no marker" test ! -e "$g/.numaplan/applied" -a -f "$g/llama-server@0.service.d/50-numaplan.conf"

# ---- The command line ----
"$gen_bin" >/dev/null 2>"$scratch/err"
is "no directory: exit 2" "$?" 2
"$gen_bin" "$scratch/a" "$scratch/b" >/dev/null 2>&1
is "two directories: exit 2" "$?" 2
"$gen_bin" --bogus "$scratch/a" >/dev/null 2>&1
is "an unknown option: exit 2" "$?" 2
"$gen_bin" --help | grep -q "NORMAL-DIR" && ok "--help" || fail "--help"
g=$scratch/initrd
mkdir -p "$g"
SYSTEMD_IN_INITRD=1 "$gen_bin" --sysfs-root "$dgx" -c "$good" "$g" "$g" "$g" 2>/dev/null
mkdir -p "$scratch/not-initrd"
SYSTEMD_IN_INITRD=0 "$gen_bin" --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/not-initrd-etc" "$scratch/not-initrd" 2>/dev/null
check "in the initrd it writes nothing (out of it, its drop-ins)" test -z "$(ls -A "$g")" -a \
	-f "$scratch/not-initrd/llama-server@0.service.d/50-numaplan.conf"
cp "$numaplan" "$scratch/numaplan-generator"
g=$scratch/copy
mkdir -p "$g"
"$scratch/numaplan-generator" --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/copy-etc" "$g" 2>/dev/null
check "a copy of the binary under that name is the generator" test -f "$g/llama-server@0.service.d/50-numaplan.conf"
planned=$(cd "$scratch" && "$scratch/numaplan-generator" plan --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/copy-etc" 2>&1)
grep -q "^$scratch/copy-etc/llama-server@0.service.d/50-numaplan.conf$" <<<"$planned" &&
	ok "and numaplan when given a command (its drop-ins run it as numaplan prepare)" || fail "numaplan with a command" "$(tail -3 <<<"$planned")"
check "which writes nothing beside it (it planned)" test ! -e "$scratch/plan" -a -n "$planned"

# ---- Coexistence with apply: each combination ----
etc=$scratch/co/etc
g=$scratch/co/gen
mkdir -p "$etc" "$g"
A=(--sysfs-root "$dgx" -c "$good" --unit-dir "$etc")
"$numaplan" apply "${A[@]}" --no-reload >/dev/null 2>&1
check "apply without the generator writes persistent drop-ins" test -f "$etc/llama-server@0.service.d/50-numaplan.conf"
"$gen_bin" "${A[@]}" "$g" 2>"$scratch/co.err"
check "the generator then blocks each unit apply's drop-in would place" \
	grep -qx "AssertPathExists=!$etc/llama-server@0.service.d/50-numaplan.conf" "$g/llama-server@0.service.d/49-numaplan-conflict.conf"
grep -q "llama-server@0.service: $etc/llama-server@0.service.d/50-numaplan.conf, written by numaplan apply, outranks" \
	"$scratch/co.err" && ok "and says so" || fail "says so" "$(cat "$scratch/co.err")"
before=$(tree_state "$g")
mkdir -p "$etc/.numaplan" && touch "$etc/.numaplan/unplaced" "$etc/.numaplan/applied" # a boot step that failed; an earlier numaplan's marker
had=$(ls "$etc/llama-server@0.service.d/50-numaplan.conf" "$etc/.numaplan/applied" "$g/llama-server@0.service.d/50-numaplan.conf" 2>/dev/null | wc -l)
"$numaplan" apply "${A[@]}" --generator-dir "$g" --check --diff >"$scratch/out" 2>"$scratch/err"
rc=$?
is "apply --check in generator mode: apply's drop-ins pending removal, exit 1" "$rc" 1
output_seen "$scratch/out" "$scratch/err" "$rc" apply "${A[@]}" --generator-dir "$g" --check --diff
"$numaplan" apply "${A[@]}" --generator-dir "$g" --no-reload --json >"$scratch/co.json" 2>"$scratch/co.err"
is "apply in generator mode: exit 0" "$?" 0
json_seen apply "$scratch/co.json"
# Of apply's drop-in, apply's marker and the generator's drop-in, there before (had = 3).
check "it removes apply's drop-ins" test "$had" = 3 -a ! -e "$etc/llama-server@0.service.d"
check "and apply's markers, an earlier numaplan's and the boot step's" test "$had" = 3 -a ! -e "$etc/.numaplan/applied" -a ! -e "$etc/.numaplan/unplaced"
is "and never writes the generator's directory" "$had $(tree_state "$g")" "3 $before"
grep -q '"action": *"removed"' "$scratch/co.json" && ok "its JSON reports the removal" || fail "JSON" "$(cat "$scratch/co.json")"
rm -rf "$g" && mkdir "$g"
"$gen_bin" "${A[@]}" "$g" 2>/dev/null
check "the generator's next run has no conflict" test ! -e "$g/llama-server@0.service.d/49-numaplan-conflict.conf" -a \
	-f "$g/llama-server@0.service.d/50-numaplan.conf"
"$numaplan" apply "${A[@]}" --generator-dir "$g" --check >/dev/null 2>&1
is "apply --check: the generator's drop-ins are the plan, exit 0" "$?" 0
"$numaplan" plan "${A[@]}" --generator-dir "$g" | grep -q "^$g/llama-server@0.service.d/50-numaplan.conf$" &&
	ok "plan in generator mode shows the generator's paths" || fail "plan's paths"
changed=$(conf changed.conf "${llama/memory = 16G/memory = 24G}")
"$numaplan" apply --sysfs-root "$dgx" -c "$changed" --unit-dir "$etc" --generator-dir "$g" --check --diff >"$scratch/out" 2>&1
rc=$?
is "apply --check with a changed configuration: exit 1" "$rc" 1
output_seen "$scratch/out" /dev/null "$rc" apply --generator-dir "$g" --check --diff
grep -q "would be updated $g/llama-server@0.service.d/50-numaplan.conf (by numaplan-generator)" "$scratch/out" &&
	ok "naming the generator's drop-in" || fail "names it" "$(cat "$scratch/out")"
"$numaplan" apply --sysfs-root "$dgx" -c "$bad" --unit-dir "$etc" --generator-dir "$g" --no-reload >/dev/null 2>&1
is "a bad configuration in generator mode: exit 2" "$?" 2

# remove: records what the generator leaves out until the next boot; apply puts it back.
before=$(tree_state "$g")
"$numaplan" remove --unit-dir "$etc" --generator-dir "$g" --no-reload llama-server@0 >"$scratch/out" 2>&1
is "remove UNIT in generator mode: exit 0" "$?" 0
is "it records the unit" "$(grep -v '^#' "$etc/.numaplan/generator-removed")" "llama-server@0.service"
is "and leaves the generator's directory to the generator" "$(tree_state "$g")" "$(grep -q 50-numaplan.conf <<<"$before" && echo "$before")"
grep -q "llama-server@0.service: removed $g/llama-server@0.service.d/50-numaplan.conf" "$scratch/out" && ok "it says so" ||
	fail "says so" "$(cat "$scratch/out")"
rm -rf "$g" && mkdir "$g"
"$gen_bin" "${A[@]}" "$g" 2>/dev/null
check "the generator leaves that unit out" test ! -e "$g/llama-server@0.service.d" -a -f "$g/tp@0.service.d/50-numaplan.conf"
check "and places the others" test -f "$g/tp@0.service.d/50-numaplan.conf"
"$numaplan" remove --unit-dir "$etc" --generator-dir "$g" --no-reload --json >"$scratch/rm.json" 2>/dev/null
json_seen remove "$scratch/rm.json"
is "remove of all records all" "$(grep -v '^#' "$etc/.numaplan/generator-removed")" "*"
rm -rf "$g" && mkdir "$g"
"$gen_bin" "${A[@]}" "$g" 2>/dev/null
is "the generator then places none" "$(find "$g" -name '*.conf' | wc -l) $(grep -v '^#' "$etc/.numaplan/generator-removed" 2>&1)" "0 *"
"$numaplan" apply "${A[@]}" --generator-dir "$g" --no-reload >/dev/null 2>&1
check "apply in generator mode clears the record" test ! -e "$etc/.numaplan/generator-removed" -a -f "$etc/.numaplan-units"
rm -rf "$g" && mkdir "$g"
"$gen_bin" "${A[@]}" "$g" 2>/dev/null
check "and the generator places them again" test -f "$g/llama-server@0.service.d/50-numaplan.conf"

# Generator mode is found where systemd looks for generators; a link to /dev/null masks it. Only
# for this host (a replayed root or a unit directory is never the generator's), so with a replica
# any host with memory can place; plan reads, it writes nothing.
mkdir -p "$scratch/gp0" "$scratch/gp1" "$scratch/gp2"
ln -s "$(readlink "$gen_bin")" "$scratch/gp2/numaplan-generator" # absolute, as systemd runs it
cpu=$(conf cpu.conf '[replica cpu]
unit = cpu-only@0.service
memory = 1M')
dropin_lines() { grep "^/.*/cpu-only@0.service.d/50-numaplan.conf$"; }
SYSTEMD_GENERATOR_PATH=$scratch/gp0 "$numaplan" plan -c "$cpu" --sysfs-root / >"$scratch/gp.out" 2>"$scratch/gp.err"
plan_rc=$?
plain=$(dropin_lines <"$scratch/gp.out")
# Skipped only where plan says why it cannot place the replica (exit 3); any other end fails.
if [ -z "$plain" ] && { [ "$plan_rc" != 3 ] || [ ! -s "$scratch/gp.err" ]; }; then
	fail "plan -c $cpu of this host" "exit $plan_rc, no drop-in" "$(head -n 3 "$scratch/gp.err")"
elif [ -z "$plain" ]; then
	ok "an installed generator: plan shows its directory # SKIP this host cannot place a 1 MiB replica: $(head -n 1 "$scratch/gp.err")"
	ok "a masked generator is not generator mode # SKIP likewise"
else
	is "an installed generator: plan shows its directory" \
		"$(SYSTEMD_GENERATOR_PATH=$scratch/gp1:$scratch/gp2 "$numaplan" plan -c "$cpu" --sysfs-root / 2>&1 | dropin_lines)" \
		"/run/systemd/generator/cpu-only@0.service.d/50-numaplan.conf"
	ln -s /dev/null "$scratch/gp1/numaplan-generator"
	is "a masked generator is not generator mode: plan shows apply's directory" \
		"$(SYSTEMD_GENERATOR_PATH=$scratch/gp1:$scratch/gp2 "$numaplan" plan -c "$cpu" --sysfs-root / 2>&1 | dropin_lines)" \
		"$plain"
	check "which is not the generator's" test "$plain" != "/run/systemd/generator/cpu-only@0.service.d/50-numaplan.conf"
fi

# ---- Failing closed: what the generator cannot read, the record of the last plan covers ----
etc=$scratch/closed/etc
g=$scratch/closed/gen
mkdir -p "$etc" "$g"
"$gen_bin" --sysfs-root "$dgx" -c "$good" --unit-dir "$etc" "$g" 2>/dev/null
"$numaplan" apply --sysfs-root "$dgx" -c "$good" --unit-dir "$etc" --generator-dir "$g" --no-reload >/dev/null 2>&1
is "apply in generator mode records the plan's units beside apply's drop-ins" \
	"$(grep -v '^#' "$etc/.numaplan-units" 2>/dev/null | tr '\n' ' ')" "llama-server@0.service tp@%i.service "
big=$scratch/big.conf
{ printf '%s\n' "$llama"; head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' '#'; echo; } >"$big"
chmod 0644 "$big"
for unreadable in "$big" "$scratch/closed"; do
	rm -rf "$g" && mkdir "$g"
	"$gen_bin" --sysfs-root "$dgx" -c "$unreadable" --unit-dir "$etc" "$g" 2>"$scratch/closed.err"
	rc=$?
	what="a configuration it cannot read ($([ -d "$unreadable" ] && echo a directory || echo 5 MiB))"
	is "$what: exit 0" "$rc" 0
	if grep -qx "AssertPathExists=$g/.numaplan/applied" "$g/llama-server@0.service.d/50-numaplan.conf" 2>/dev/null &&
		grep -qx "AssertPathExists=$g/.numaplan/applied" "$g/tp@.service.d/50-numaplan.conf" 2>/dev/null &&
		[ ! -e "$g/.numaplan/applied" ]; then
		ok "$what: the last plan's units are kept from starting"
	else fail "$what: the last plan's units are kept from starting" "$(find "$g")" "$(cat "$scratch/closed.err")"; fi
done

# The initrd, told as systemd tells it: /etc/initrd-release (below the root), unless
# $SYSTEMD_IN_INITRD says otherwise.
initrd_root=$scratch/initrd-root
cp -r "$dgx" "$initrd_root"
mkdir -p "$initrd_root/etc"
: >"$initrd_root/etc/initrd-release"
g=$scratch/initrd2
mkdir -p "$g"
"$gen_bin" --sysfs-root "$initrd_root" -c "$good" --unit-dir "$scratch/initrd-etc" "$g" 2>/dev/null
written=$(ls -A "$g")
SYSTEMD_IN_INITRD=0 "$gen_bin" --sysfs-root "$initrd_root" -c "$good" --unit-dir "$scratch/initrd-etc" "$g" 2>/dev/null
check "SYSTEMD_IN_INITRD=0 overrides it, as for systemd" test -f "$g/llama-server@0.service.d/50-numaplan.conf"
check "with /etc/initrd-release it writes nothing (where it writes without)" test -z "$written" -a \
	-f "$g/llama-server@0.service.d/50-numaplan.conf"

# A disk that stops answering mid-commit: into its empty directory the generator stages the three
# drop-ins (write steps 1-3), then renames them in turn; stopped at the second rename (step 5), the
# first drop-in is in place, the next two are temporaries. Its time up (SIGALRM, as its alarm sends it), the generator cleans up, keeps the
# other two from starting, and says only what happened.
g=$scratch/stall
mkdir -p "$g"
NUMAPLAN_TEST_STALL_AT_STEP=5 "${faulty[@]}" "$gen_bin" --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/stall-etc" "$g" \
	2>"$scratch/stall.err" &
gen_pid=$!
for _ in $(seq 1 $(($(scaled 10) * 20))); do grep -q "stalled at write step 5" "$scratch/stall.err" && break; sleep 0.05; done
kill -ALRM "$gen_pid"
wait "$gen_pid"
is "stalled: the generator exits 0 when its time is up" "$?" 0
# (once the shim did stall it: a generator that never got there leaves nothing either)
stalled=$(grep -c "fault-preload: stalled at write step 5 (50-numaplan.conf: rename)" "$scratch/stall.err")
is "it leaves no temporary and no journal" "$stalled: $(find "$g" -name '.#*' -o -name .numaplan-journal)" "1: "
check "and no marker" test "$stalled" = 1 -a ! -e "$g/.numaplan/applied"
check "the drop-in in place stays" test -f "$g/llama-server@0.service.d/50-numaplan.conf"
if grep -q "^AssertPathExists=$g/.numaplan/applied" "$g/tp@0.service.d/50-numaplan.conf" 2>/dev/null &&
	grep -q "^AssertPathExists=$g/.numaplan/applied" "$g/tp@1.service.d/50-numaplan.conf" 2>/dev/null; then
	ok "the units it had not placed are kept from starting"
else fail "the units it had not placed are kept from starting" "$(find "$g")"; fi
grep -q "was not done after 20 s: stopped, without its marker $g/.numaplan/applied: the drop-ins in place keep llama-server@0.service; drop-ins written now keep tp@0.service, tp@1.service kept from starting" \
	"$scratch/stall.err" && ok "it says what is in place and what it kept from starting" || fail "says what happened" "$(cat "$scratch/stall.err")"

# Started with SIGCHLD ignored (a shell or a service manager may leave it so), the generator still
# hears of its worker's end: the kernel would reap such a child unannounced, and the generator
# wait out its 20 s and call a finished worker stopped.
g=$scratch/sigchld
mkdir -p "$g"
bash -c 'trap "" CHLD; exec "$@"' bash "$gen_bin" --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/sigchld-etc" "$g" \
	2>"$scratch/sigchld.err"
if test -f "$g/.numaplan/applied" && ! grep -q "was not done\|stopped" "$scratch/sigchld.err"; then
	ok "with SIGCHLD ignored, the generator sees its worker finish"
else fail "with SIGCHLD ignored, the generator sees its worker finish" "$(cat "$scratch/sigchld.err")"; fi

# ---- Run time on the largest fixture host ----
big="$fixtures/hosts/nps4-2s-8gpu"
t0=${EPOCHREALTIME/[.,]/}
for _ in 1 2 3 4 5 6 7 8 9 10; do
	rm -rf "$scratch/big" && mkdir "$scratch/big"
	"$gen_bin" --sysfs-root "$big" -c /dev/null --unit-dir "$scratch/big-etc" "$scratch/big" 2>/dev/null
done
t1=${EPOCHREALTIME/[.,]/}
echo "# generator on nps4-2s-8gpu: $(((t1 - t0) / 10000)) ms a run (mean of 10)"
done_testing

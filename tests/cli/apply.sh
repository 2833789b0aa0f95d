#!/bin/bash
# plan, apply and remove against a temporary unit directory (--no-reload: no systemd here):
# drop-ins agree with plan --json, apply is idempotent, --check and --diff, remove, every kind
# of bad input exits 2 naming path:line and leaves the unit directory byte-identical, and a
# killed or failing apply never leaves a partial drop-in (faults the preloaded shim injects).
# Usage: apply.sh NUMAPLAN FIXTURES FAULT_PRELOAD
set -u
numaplan=$1
fixtures=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/tap.sh"
fault_shim "${3:-}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dgx="$fixtures/hosts/dgx-2s-8gpu"

# A listing of a tree that changes when any byte, name, mode, inode or mtime does.
tree_state() {
	(cd "$1" && find . -printf '%p %m %i %T@ %s\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum)
}

conf() { # conf NAME TEXT: a config file owned by root, mode 0644
	printf '%s\n' "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}

# ---- plan on every fixture host with every profile: each pair's expected outcome ----
# HOST PROFILE OUTCOME: "planned N" (N replicas), or "refused" and the reason's words.
expected="
big-16n-1024c-32gpu null planned 32
big-16n-1024c-32gpu docker-per-accelerator planned 32
big-16n-1024c-32gpu per-accelerator planned 32
big-16n-1024c-32gpu podman-split planned 32
big-16n-1024c-32gpu per-node-cpu-only planned 16
big-16n-1024c-32gpu tensor-parallel-per-socket planned 2
captured-firecracker-vm null planned 1
captured-firecracker-vm docker-per-accelerator planned 0
captured-firecracker-vm per-accelerator planned 0
captured-firecracker-vm podman-split planned 0
captured-firecracker-vm per-node-cpu-only refused replica llama-0 needs 48.0 GiB and no set of nodes holds it
captured-firecracker-vm tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 0 are left
cloud-vm-2n-2gpu null planned 2
cloud-vm-2n-2gpu docker-per-accelerator planned 2
cloud-vm-2n-2gpu per-accelerator planned 2
cloud-vm-2n-2gpu podman-split planned 2
cloud-vm-2n-2gpu per-node-cpu-only planned 2
cloud-vm-2n-2gpu tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 2 are left
dgx-2s-8gpu null planned 8
dgx-2s-8gpu docker-per-accelerator planned 8
dgx-2s-8gpu per-accelerator planned 8
dgx-2s-8gpu podman-split planned 8
dgx-2s-8gpu per-node-cpu-only planned 2
dgx-2s-8gpu tensor-parallel-per-socket planned 2
epyc-1n-4l3-4gpu null planned 4
epyc-1n-4l3-4gpu docker-per-accelerator planned 4
epyc-1n-4l3-4gpu per-accelerator planned 4
epyc-1n-4l3-4gpu podman-split planned 4
epyc-1n-4l3-4gpu per-node-cpu-only planned 1
epyc-1n-4l3-4gpu tensor-parallel-per-socket refused replica tp-1: count:4 asks for 4 compute accelerators with a node; 0 are left
gb10-like null planned 1
gb10-like docker-per-accelerator planned 1
gb10-like per-accelerator planned 1
gb10-like podman-split planned 1
gb10-like per-node-cpu-only planned 1
gb10-like tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 1 are left
gb200-tray null planned 4
gb200-tray docker-per-accelerator planned 4
gb200-tray per-accelerator planned 4
gb200-tray podman-split planned 4
gb200-tray per-node-cpu-only planned 2
gb200-tray tensor-parallel-per-socket refused replica tp-1: count:4 asks for 4 compute accelerators with a node; 0 are left
gh200-memonly null planned 1
gh200-memonly docker-per-accelerator planned 1
gh200-memonly per-accelerator planned 1
gh200-memonly podman-split planned 1
gh200-memonly per-node-cpu-only planned 1
gh200-memonly tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 1 are left
gpus-numa-minus1 null planned 4
gpus-numa-minus1 docker-per-accelerator planned 4
gpus-numa-minus1 per-accelerator planned 4
gpus-numa-minus1 podman-split planned 4
gpus-numa-minus1 per-node-cpu-only planned 2
gpus-numa-minus1 tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 2 are left
nics-4n-8gpu null planned 8
nics-4n-8gpu docker-per-accelerator planned 8
nics-4n-8gpu per-accelerator planned 8
nics-4n-8gpu podman-split planned 8
nics-4n-8gpu per-node-cpu-only planned 4
nics-4n-8gpu tensor-parallel-per-socket planned 2
no-numa-kernel null planned 1
no-numa-kernel docker-per-accelerator planned 0
no-numa-kernel per-accelerator planned 0
no-numa-kernel podman-split planned 0
no-numa-kernel per-node-cpu-only refused replica llama-0 needs 48.0 GiB and no set of nodes holds it
no-numa-kernel tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 0 are left
pcie-switches null planned 5
pcie-switches docker-per-accelerator planned 5
pcie-switches per-accelerator planned 5
pcie-switches podman-split planned 5
pcie-switches per-node-cpu-only planned 2
pcie-switches tensor-parallel-per-socket refused replica tp-1: count:4 asks for 4 compute accelerators with a node; 1 are left
nps4-2s-8gpu null planned 8
nps4-2s-8gpu docker-per-accelerator planned 8
nps4-2s-8gpu per-accelerator planned 8
nps4-2s-8gpu podman-split planned 8
nps4-2s-8gpu per-node-cpu-only planned 8
nps4-2s-8gpu tensor-parallel-per-socket planned 2
single-node null planned 1
single-node docker-per-accelerator planned 1
single-node per-accelerator planned 1
single-node podman-split planned 1
single-node per-node-cpu-only planned 1
single-node tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 1 are left
tiered-memory null planned 2
tiered-memory docker-per-accelerator planned 2
tiered-memory per-accelerator planned 2
tiered-memory podman-split planned 2
tiered-memory per-node-cpu-only planned 2
tiered-memory tensor-parallel-per-socket refused replica tp-0: count:4 asks for 4 compute accelerators with a node; 2 are left
tuned-2s-8gpu null planned 8
tuned-2s-8gpu docker-per-accelerator planned 8
tuned-2s-8gpu per-accelerator planned 8
tuned-2s-8gpu podman-split planned 8
tuned-2s-8gpu per-node-cpu-only planned 2
tuned-2s-8gpu tensor-parallel-per-socket planned 2
untuned-2s-8gpu null planned 8
untuned-2s-8gpu docker-per-accelerator planned 8
untuned-2s-8gpu per-accelerator planned 8
untuned-2s-8gpu podman-split planned 8
untuned-2s-8gpu per-node-cpu-only planned 2
untuned-2s-8gpu tensor-parallel-per-socket planned 2
big-16n-1024c-32gpu tensor-parallel-all planned 1
captured-firecracker-vm tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 0 are left
cloud-vm-2n-2gpu tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 2 are left
dgx-2s-8gpu tensor-parallel-all planned 1
epyc-1n-4l3-4gpu tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 4 are left
gb10-like tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 1 are left
gb200-tray tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 4 are left
gh200-memonly tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 1 are left
gpus-numa-minus1 tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 2 are left
nics-4n-8gpu tensor-parallel-all planned 1
no-numa-kernel tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 0 are left
nps4-2s-8gpu tensor-parallel-all planned 1
pcie-switches tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 5 are left
single-node tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 1 are left
tiered-memory tensor-parallel-all refused replica tp: count:8 asks for 8 compute accelerators with a node; 2 are left
tuned-2s-8gpu tensor-parallel-all planned 1
untuned-2s-8gpu tensor-parallel-all planned 1
"
pairs=0
for host in "$fixtures"/hosts/*; do
	root=$(fixture_root "$host" "$scratch")
	for profile in /dev/null "$src"/profiles/*.conf; do
		hn=$(host_name "$host")
		pn=$(basename "$profile" .conf)
		want=$(grep "^$hn $pn " <<<"$expected" | cut -d' ' -f3-)
		name="plan $hn $pn"
		pairs=$((pairs + 1))
		if [ -z "$want" ]; then
			fail "$name: an expected outcome is listed" "add '$hn $pn ...' to the table above"
			continue
		fi
		run plan --json --sysfs-root "$root" -c "$profile"
		case $want in
		planned*)
			n=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["replicas"]))' <"$scratch/out" 2>/dev/null)
			is "$name: $want" "exit $rc, $n replicas" "exit 0, ${want#planned } replicas"
			;;
		refused*)
			reason=${want#refused }
			if [ $rc -eq 2 ] && grep -qF "$profile:" <<<"$err" && grep -qF -- "$reason" <<<"$err" &&
				python3 -c 'import json,sys; e=json.load(sys.stdin)["error"]; assert e["code"] == 2 and sys.argv[1] in e["message"]' "$reason" <"$scratch/out"; then
				ok "$name: refused (exit 2), naming the file, line and reason, on stderr and as --json's error document"
			else
				fail "$name: $want" "exit $rc" "$err"
			fi
			;;
		esac
	done
done
is "the table holds every host and profile" "$(grep -c . <<<"$expected")" "$pairs"

# ---- one replica over the 8 GPUs of both sockets: bound, each rank's node and CPUs ----
tp8=$(conf tp8.conf "[replica tp]
unit = vllm.service
accelerators = count:8
memory = 256G
model = $scratch/tp8.gguf")
head -c 4096 /dev/zero >"$scratch/tp8.gguf"
run plan --json --sysfs-root "$dgx" -c "$tp8"
if python3 - "$scratch/out" <<'PY'; then ok "TP=8 on the 8-GPU host: bound over nodes 0-1, each rank on its GPU's node with a quarter of its cores, no CPU twice"; else fail "TP=8 on the 8-GPU host"; fi
import json, re, sys
r = json.load(open(sys.argv[1]))["replicas"][0]
assert r["policy"] == "bind" and r["nodes"] == [0, 1], r["policy"]
d = r["dropin"]
assert "NUMAPolicy=bind\n" in d and "interleave" not in d
nodes = re.search(r"NUMAPLAN_RANK_NODES=(\S+)", d).group(1).split(",")
lists = re.search(r"NUMAPLAN_RANK_CPUS=(\S+)", d).group(1).split(";")
assert nodes == ["0"] * 4 + ["1"] * 4, nodes
assert [x["node"] for x in r["ranks"]] == [int(n) for n in nodes]
assert [x["accelerator"] for x in r["ranks"]] == r["accelerators"], "in CUDA's order, PCI order"
def cpus(s):
    out = set()
    for part in s.split(","):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
sets = [cpus(s) for s in lists]
assert all(len(s) == 8 for s in sets), lists
assert len(set().union(*sets)) == 64, "no CPU in two ranks, all of them taken"
assert all(s <= cpus("0-15,32-47") for s in sets[:4]) and all(s <= cpus("16-31,48-63") for s in sets[4:])
assert all((c + 32 in s) for s in sets for c in s if c < 32), "SMT siblings together"
assert "prepare --nodes 0-1 --spread" in d
PY

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
run apply --json --diff --no-reload --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
is "apply exits 0" "$rc" 0
grep -q "^+++ $units/inference@0.service.d/50-numaplan.conf$" "$scratch/err" && ok "apply --json --diff: the diff on stderr" ||
	fail "apply --json --diff" "$(head -5 "$scratch/err")"
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
# Of a tree that holds the drop-ins (a broken apply would leave an empty one as it was, too).
if [ $rc -eq 0 ] && grep -q 50-numaplan.conf <<<"$before" && [ "$(tree_state "$units")" = "$before" ]; then
	ok "a second apply leaves every file untouched (inode, mtime, bytes)"
else
	fail "a second apply leaves every file untouched (inode, mtime, bytes)" "exit $rc" "$(diff <(echo "$before") <(tree_state "$units"))"; fi
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
if [ $rc -eq 1 ] && [ -s "$scratch/out" ] && [ "$(tree_state "$units")" = "$before" ]; then ok "apply --check writes nothing"; else
	fail "apply --check writes nothing" "exit $rc" "$(diff <(echo "$before") <(tree_state "$units"))"; fi
check "apply --check --json lists the pending actions" python3 -c '
import json,sys
d = json.load(open(sys.argv[1]))
a = {u["unit"]: u["action"] for u in d["units"]}
assert d["changed"] and a["llama-server@0.service"] == "updated" and a["cpu-worker.service"] == "created"
assert a["inference@0.service"] == "removed" and len(a) == 8' "$scratch/out"
run apply --check --diff --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
case $out in *"--- $units/llama-server@0.service.d/50-numaplan.conf"*"+++ "*"@@ "*"-MemoryNodes"* | *"--- $units/llama-server@0.service.d/50-numaplan.conf"*"@@ "*) ok "--diff prints a unified diff" ;; *) fail "--diff prints a unified diff" "$out" ;; esac
case $out in *"+++ /dev/null"*) ok "--diff shows removals against /dev/null" ;; *) fail "--diff removals" "$out" ;; esac
if [ $rc -eq 1 ] && grep -q '^@@ ' <<<"$out" && [ "$(tree_state "$units")" = "$before" ]; then ok "--check --diff writes nothing"; else
	fail "--check --diff writes nothing" "exit $rc" "$(diff <(echo "$before") <(tree_state "$units"))"; fi

run apply --check --sysfs-root "$dgx" -c "$c1" --unit-dir "$scratch/never-made" --no-reload
if [ $rc -eq 1 ] && [ -n "$out" ] && [ ! -e "$scratch/never-made" ]; then ok "apply --check creates nothing, not even the unit directory or its lock"; else
	fail "apply --check into a missing unit directory" "exit $rc" "$(find "$scratch/never-made" 2>&1)"; fi
run apply --check --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" --no-reload
said=$out$err # what -q leaves out
run -q apply --check --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" --no-reload
if [ $rc -eq 1 ] && [ -n "$said" ] && [ -z "$out" ] && [ -z "$err" ]; then ok "-q: the report's lines and the warnings are left out, the exit code says it"; else
	fail "-q apply --check" "exit $rc" "$out" "$err"; fi

# ---- crash consistency: every write step killed, and failed, in turn ----
mkdir -p "$units/.numaplan" && touch "$units/.numaplan/unplaced" # as after a boot whose apply failed: the marker goes
cp -a "$units" "$scratch/state-old"
run apply --json --diff --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
cp -a "$units" "$scratch/state-new"
rm -rf "$units" && cp -a "$scratch/state-old" "$units"
steps=0 partial=0 converged=0 dropin_steps=0 restored=0 marker_steps=0 marker_reported=0 journal_steps=0 journal_reported=0
for step in $(seq 1 40); do
	rm -rf "$units" && cp -a "$scratch/state-old" "$units"
	# In braces, so that bash does not report the kill on its stderr.
	{ NUMAPLAN_TEST_KILL_AT_STEP=$step "${faulty[@]}" "$numaplan" apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"; } >/dev/null 2>&1
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
	NUMAPLAN_TEST_FAIL_AT_STEP=$step "${faulty[@]}" "$numaplan" apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units" >/dev/null 2>"$scratch/err"
	rc=$?
	# The shim names the file of each step: a drop-in's, or the boot marker's removal, which comes
	# after the commit. Either way the exit is 3: a drop-in step with every file as it was; the
	# marker step with the new drop-ins, the marker still there, and a message saying what to do.
	if grep -q "fault-preload: failing write step $step (.numaplan-journal: unlink)" "$scratch/err"; then
		# The last step of the commit: every drop-in in place, the journal left for the next run.
		journal_steps=$((journal_steps + 1))
		if [ $rc -eq 3 ] && grep -q "run numaplan apply again to clear it" "$scratch/err" &&
			diff -r -x .numaplan -x .numaplan-journal "$units" "$scratch/state-new" >/dev/null; then
			journal_reported=$((journal_reported + 1))
		fi
	elif grep -q "fault-preload: failing write step $step (unplaced: " "$scratch/err"; then
		marker_steps=$((marker_steps + 1))
		if [ $rc -eq 3 ] && [ -e "$units/.numaplan/unplaced" ] && grep -q "run numaplan apply again" "$scratch/err" &&
			diff -r -x .numaplan "$units" "$scratch/state-new" >/dev/null; then
			marker_reported=$((marker_reported + 1))
		fi
	else
		dropin_steps=$((dropin_steps + 1))
		[ $rc -eq 3 ] && diff -r "$units" "$scratch/state-old" >/dev/null && restored=$((restored + 1))
	fi
done
if [ "$steps" -ge 10 ]; then ok "apply was killed at each of its $steps write steps in turn"; else
	fail "the shim killed apply at 10 write steps or more" "it fired at $steps"; fi
# These three over the steps the loop found: with none, each would hold of nothing.
is "no kill left a drop-in that is neither the old nor the new one ($steps kills)" "$([ "$steps" -gt 0 ] && echo "$partial")" 0
is "after every kill, the next apply finishes the job" "$converged" "$([ "$steps" -gt 0 ] && echo "$steps")"
is "a failure at any drop-in step exits 3 and restores every file ($dropin_steps steps)" "$restored" \
	"$([ "$dropin_steps" -gt 0 ] && echo "$dropin_steps")"
if [ "$journal_steps" = 1 ] && [ "$journal_reported" = 1 ]; then
	ok "a failure removing the journal exits 3 with every drop-in in place, saying what to do"
else fail "journal removal failure" "$journal_reported of $journal_steps journal steps as expected"; fi
if [ "$marker_steps" -ge 1 ] && [ "$marker_reported" = "$marker_steps" ]; then
	ok "a failure removing the boot marker exits 3, keeps the drop-ins and the marker, and says what to do"
else fail "marker failure" "$marker_reported of $marker_steps marker steps as expected"; fi
rm -rf "$units" && cp -a "$scratch/state-new" "$units"

# ---- remove ----
# What the removals below remove is there first (a remove that does nothing removes nothing
# that is not there).
had=$(cd "$units" && ls -d cpu-worker.service.d/50-numaplan.conf llama-server@0.service.d/50-numaplan.conf 2>/dev/null | wc -l)
mkdir -p "$units/foreign.service.d"
echo "[Service]" >"$units/foreign.service.d/50-numaplan.conf"
run remove --json --no-reload --unit-dir "$units" cpu-worker.service
check "remove UNIT removes that drop-in only" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["changed"] and d["units"] == [{"unit": "cpu-worker.service", "action": "removed"}]' "$scratch/out"
if [ $rc -eq 0 ] && [ "$had" = 2 ] && [ ! -e "$units/cpu-worker.service.d" ]; then ok "and its now empty directory"; else
	fail "and its now empty directory" "exit $rc" "$(ls -a "$units/cpu-worker.service.d" 2>&1)"; fi
check "the other drop-in stays" test -e "$units/llama-server@0.service.d/50-numaplan.conf"
run remove --no-reload --unit-dir "$units"
is "remove exits 0" "$rc" 0
check "remove without units removes every numaplan drop-in" test "$had" = 2 -a ! -e "$units/llama-server@0.service.d"
if [ $rc -eq 0 ] && [ "$had" = 2 ] && [ ! -e "$units/llama-server@0.service.d" ] && [ -e "$units/foreign.service.d/50-numaplan.conf" ]; then
	ok "a drop-in numaplan did not write is left alone (numaplan's removed)"
else fail "a drop-in numaplan did not write is left alone (numaplan's removed)" "exit $rc" "$(find "$units")"; fi
run remove --json --no-reload --unit-dir "$units"
check "removing nothing is success" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["changed"]' "$scratch/out"
run remove --no-reload --unit-dir "$units" ../etc.service
is "remove refuses a unit name with .." "$rc" 2
run remove --sysfs-root "$dgx" --unit-dir "$units"
if [ $rc -eq 2 ] && grep -q "replays another host: add --no-reload" <<<"$err"; then
	ok "remove under a replayed root never reloads this host's systemd"
else fail "remove under a replayed root" "exit $rc" "$err"; fi

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
bad "a key longer than inih's line" "bad.conf:2: line longer than 199 bytes, and no key = value" "[replica a]
unit$(printf 'x%.0s' $(seq 1 210)) = a.service"
bad "a syntax error" "bad.conf:2: syntax error" "[replica a]
unit a.service"
bad "bad percentage" "bad.conf:2: bad headroom '10'" "[numaplan]
headroom = 10"
bad "bad policy" "bad.conf:3: bad policy 'strict'" "[replica a]
unit = a.service
policy = strict"
bad "bad model-copies" "bad.conf:3: bad model-copies 'each': expected none or per-node" "[replica a]
unit = a.service
model-copies = each"
bad "model-copies without a model" "bad.conf:3: model-copies = per-node copies the model, and [replica a] names none" "[replica a]
unit = a.service
model-copies = per-node"
bad "%i in a replica's warmup-url" "bad.conf:3: warmup-url 'http://127.0.0.1:818%i/': %i belongs to a [replicas] template" "[replica a]
unit = a.service
warmup-url = http://127.0.0.1:818%i/"
bad "bad openmp" "bad.conf:3: bad openmp 'maybe': expected yes or no" "[replica a]
unit = a.service
openmp = maybe"
bad "count larger than the host has" "bad.conf:3: replica a: count:9 asks for 9" "[replica a]
unit = a.service
accelerators = count:9"
bad "two replicas on one unit" "bad.conf:4: replica b: unit a.service is also replica a's" "[replica a]
unit = a.service
[replica b]
unit = a.service"
mkdir -p "$scratch/empty-model"
bad "model-copies of a model not there: a copy of nothing" \
	"bad.conf:4: [replica a]: model-copies = per-node would copy model $scratch/nope.gguf, and $scratch/nope.gguf cannot be read (No such file or directory): a copy of nothing" \
	"[replica a]
unit = a.service
memory = 1G
model = $scratch/nope.gguf
model-copies = per-node"
bad "model-copies of a model without data: a copy of nothing" \
	"bad.conf:3: [replica a]: model-copies = per-node would copy model $scratch/empty-model, and $scratch/empty-model holds no data" \
	"[replica a]
unit = a.service
model = $scratch/empty-model
model-copies = per-node"
# Every mistake in one run, each at its line, in line order; none that follows from another.
f=$(conf three.conf "[replica a]
unit = a.service
memory = 48GB
[replica b]
unit = b.service
polcy = bind
[replica c]
accelerators = 18:00.0
[replika d]
unit = d.service
[replica e]
unit = e/f")
run apply --no-reload --sysfs-root "$dgx" -c "$f" --unit-dir "$units"
said=$(grep -oE "three\.conf:[0-9]+: [^(]*" <<<"$err" | sed 's/ *$//')
want="$f:3: bad memory '48GB': sizes are binary, so write 48G or 48GiB
$f:6: unknown key 'polcy' in [replica b]
$f:7: [replica c] has no unit
$f:9: unknown section [replika d]
$f:12: unit 'e/f.service' is not a valid service name: it contains '/'"
all_in() { # all_in LINES TEXT: each line is in the text
	local line
	while IFS= read -r line; do grep -qF -- "$line" <<<"$2" || return 1; done <<<"$1"
}
if [ $rc -eq 2 ] && [ "$(grep -c "three\.conf:" <<<"$err")" = 5 ] && [ -z "$out" ] && [ "$(tree_state "$units")" = "$before" ] &&
	diff <(grep -oE "^$f:[0-9]+: " <<<"$want") <(grep -oE "^$f:[0-9]+: " <<<"$err") >/dev/null && all_in "$want" "$err"; then
	ok "five mistakes: all five in one run, each at its file:line, in order; exit 2, nothing written"
else fail "every error of a configuration" "exit $rc" "$err" "said: $said"; fi
printf '[replica r%d]\nunit = r%d.service\npolicy = wrong\n' $(seq 1 50 | sed 'p') >"$scratch/many.conf"
chmod 0644 "$scratch/many.conf"
run apply --no-reload --sysfs-root "$dgx" -c "$scratch/many.conf" --unit-dir "$units"
if [ $rc -eq 2 ] && [ "$(grep -c "many\.conf:[0-9]*: bad policy" <<<"$err")" = 20 ] && grep -q "and 30 more errors" <<<"$err"; then
	ok "50 mistakes: 20 said, then how many more"
else fail "50 mistakes" "exit $rc" "$(head -c 600 <<<"$err")"; fi

# What the configuration names that is not on this host: said at plan and at apply, which go on.
named="$scratch/named"
mkdir -p "$named"
touch "$named/known.service" "$named/tmpl@.service"
f=$(conf named.conf "[replica big]
unit = known.service
accelerators = count:8
memory = 1G
[replicas gpu]
unit = tmpl@%i
per = accelerator
memory = 1G
[replica typo]
unit = vllm-does-not-exist.service
memory = 1G
model = $scratch/not-yet.gguf
[replicas cpu]
unit = tmpl-missing@%i
per = node
memory = 1G")
for verb in plan apply; do
	args=(--sysfs-root "$dgx" -c "$f" --unit-dir "$named")
	[ $verb = apply ] && args+=(--no-reload)
	run -v $verb "${args[@]}"
	text=$out$err
	if [ $rc -eq 0 ] &&
		grep -qF "places-nothing: $f:7: [replicas gpu] places no replica: per = accelerator, and every compute accelerator of this host is another section's" <<<"$text" &&
		grep -qF "unit-unknown: $f:10: [replica typo]: systemd knows no unit vllm-does-not-exist.service (no unit file of that name in $named)" <<<"$text" &&
		grep -qF "unit-unknown: $f:14: [replicas cpu]: systemd knows no unit tmpl-missing@0.service, tmpl-missing@1.service (no unit file of that name, nor its template's, in $named)" <<<"$text" &&
		grep -qF "model-missing: $f:12: [replica typo]: model $scratch/not-yet.gguf cannot be read (No such file or directory); planned with memory =" <<<"$text" &&
		! grep -qE "unit-unknown: .*(known|tmpl@)" <<<"$text"; then
		ok "$verb: a section that places nothing, a unit systemd lacks, a model not there yet: each warned of at its line"
	else fail "$verb: what the configuration names that is not there" "exit $rc" "$text"; fi
done
[ -e "$named/vllm-does-not-exist.service.d/50-numaplan.conf" ] && ok "apply writes the unknown unit's drop-in all the same" ||
	fail "apply writes the unknown unit's drop-in" "$(find "$named")"

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
if [ ! -d /run/systemd/system ]; then
	# This host itself (no --sysfs-root), and a unit directory of the test's own.
	f=$(conf cpu.conf "[replica a]
unit = a.service
memory = 1M")
	run apply --diff -c "$f" --unit-dir "$units"
	if [ $rc -eq 3 ] && grep -q "System has not been booted with systemd as init system (PID 1). Can't operate." <<<"$err" &&
		grep -q "nothing written" <<<"$err" && [ -z "$out" ] && [ "$(tree_state "$units")" = "$before" ]; then
		ok "apply with no systemd as PID 1 says so, as systemctl does, before any diff; exit 3, nothing written"
	else fail "apply without systemd" "$rc" "$out" "$err"; fi
else
	echo "ok $((tap_n + 1)) - # SKIP systemd is PID 1 here: apply without systemd is not testable"
	tap_n=$((tap_n + 1))
fi
run apply --sysfs-root "$dgx" -c "$c1" --unit-dir "$units"
if [ $rc -eq 2 ] && grep -q "replays another host: add --no-reload" <<<"$err" && [ "$(tree_state "$units")" = "$before" ]; then
	ok "a replayed host is never deployed to this host's systemd: exit 2, nothing written"
else fail "replayed root with a reload" "$rc" "$err"; fi
run apply --no-reload --sysfs-root "$dgx" -c "$c1"
if [ $rc -eq 2 ] && grep -q "give --unit-dir a directory of your own" <<<"$err"; then
	ok "nor written into this host's unit directory"
else fail "replayed root into /etc/systemd/system" "$rc" "$err"; fi
run apply --restart --no-reload -c "$c1" --sysfs-root "$dgx" --unit-dir "$units"
is "--restart with --no-reload is a usage error" "$rc" 2
if [ $rc -eq 2 ] && [ "$(tree_state "$units")" = "$before" ]; then ok "and wrote nothing"; else
	fail "and wrote nothing" "exit $rc" "$(diff <(echo "$before") <(tree_state "$units"))"; fi

# ---- the lock: a second apply waits for the first; remove takes it too ----
if command -v flock >/dev/null; then
	for verb in apply remove; do
		flock "$units/.numaplan.lock" sleep 2 &
		holder=$!
		sleep 0.3
		start=$(date +%s%N)
		if [ $verb = apply ]; then
			run apply --no-reload --sysfs-root "$dgx" -c "$c2" --unit-dir "$units"
		else
			run remove --no-reload --unit-dir "$units" no-such.service
		fi
		waited=$((($(date +%s%N) - start) / 1000000))
		wait $holder
		if [ $rc -eq 0 ] && [ $waited -ge 1000 ] && grep -q "waiting for another numaplan" <<<"$err"; then
			ok "$verb waits while another holds the unit directory's lock (${waited} ms)"
		else fail "$verb waits for the lock" "rc $rc, waited $waited ms" "$err"; fi
	done
fi
done_testing

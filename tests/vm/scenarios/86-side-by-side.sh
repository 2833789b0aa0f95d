#!/bin/bash
# Replicas side by side: the real engine (llama.cpp through node-llama-cpp, its model mmapped) as
# llama@0 on node 0 and llama@1 on node 1 (per = node), one template unit, in three shapes:
#   own models: each its own copy of the model file; both pass, every check ok, llama.cpp's threads
#     on their node's CPUs only and the model mmapped from it; the engine's binary, which one of
#     them read first, is the other's shared program code, not judged;
#     migrate of llama@1, and its restart, leave llama@0's locality as it was;
#   one model without copies: plan warns model-shared; verify fails llama@1, naming llama-0 and
#     model-copies, with no migrate advice;
#   one model with model-copies = per-node: each node's tmpfs holds its copy, each replica maps its
#     own, and both pass with >= 99% of their own pages local; remove takes the copies away.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
. "$SCENARIO_DIR/engine.lib"

engine_mount
TEMPLATE=llama@.service
L0=llama@0.service
L1=llama@1.service
SRV=/srv/llama
SHARED=$SRV/shared.gguf

# side_unit MODEL-ARG: the template, the engine on port 818%i with MODEL-ARG as its model and a
# thread a physical core of its plan.
side_unit() {
	cat >"$UNITS/$TEMPLATE" <<UNIT
[Unit]
Description=numaplan's real engine, replica %i

[Service]
ExecStart=$ENGINE_DIR/node $ENGINE_DIR/server.mjs --model $1 --listen 127.0.0.1:818%i --threads \${NUMAPLAN_NCORES}
UNIT
	systemctl daemon-reload
}

# side_conf [KEY = VALUE...]: the template per node, with extra keys.
side_conf() {
	local extra
	extra=$(printf '%s\n' "$@")
	write_conf "[numaplan]
headroom = 10%

[replicas llama]
unit = llama@%i.service
per = node
memory = 160M
warmup-url = http://127.0.0.1:818%i/completion
warmup-body = {\"prompt\":\"warm up\",\"n_predict\":1}
min-local = 99%
$extra"
}

# start_both [together]: llama@0 first, so that it reads the files both map first; "together"
# starts both at once (under emulation a start takes half a minute), where it does not matter.
start_both() {
	local u port
	[ "${1:-}" = together ] && systemctl start --no-block $L0 $L1
	for u in $L0 $L1; do
		port=818${u//[!0-9]/}
		if ! systemctl start "$u" || ! wait_ready "$port" 150 2>/dev/null; then
			vm_not_ok "$u serves on $port" "$(journalctl -b -u "$u" -o cat 2>&1 | tail -n 15)"
			return 1
		fi
	done
}

stop_both() { systemctl stop $L0 $L1 2>/dev/null; }

# own_local FLAT I: the share of unit I's own pages on its planned nodes, as "99.5".
own_local() {
	local p t
	p=$(json_get "units.$2.pages.own.planned" <<<"$1")
	t=$(json_get "units.$2.pages.own.total" <<<"$1")
	awk -v p="$p" -v t="$t" 'BEGIN { if (t > 0) printf "%.1f", 100 * p / t; else print 0 }'
}

# figures FLAT I: "own O pages (L% local), shared S pages" of unit I.
figures() {
	echo "own $(json_get "units.$2.pages.own.total" <<<"$1") pages ($(own_local "$1" "$2")% local), shared $(json_get "units.$2.pages.shared.total" <<<"$1") pages"
}

all_checks_ok() { # all_checks_ok FLAT I: every check of unit I passed
	! grep -qE "^units\.$2\.checks\.[0-9]+\.ok	false" <<<"$1"
}

mkdir -p $SRV
cp "$ENGINE_MODEL" $SRV/0.gguf
cp "$ENGINE_MODEL" $SRV/1.gguf
cp "$ENGINE_MODEL" $SHARED

# ---- own models ----
side_unit "$SRV/%i.gguf"
side_conf
vm_check "own models: apply" "$NUMAPLAN" apply
vm_check_eq "per = node: llama@0 on node 0, llama@1 on node 1" \
	"$(systemctl show -P NUMAMask $L0) $(systemctl show -P NUMAMask $L1)" "0 1"
drop_caches
lap setup
start_both together || { stop_both; vm_done; }
lap start
verify_json $L0 $L1
own=$FLAT
lap verify
vm_check_eq "own models: verify passes both" "$VERIFY_RC" 0 || show_failures "$own"
for i in 0 1; do
	if all_checks_ok "$own" $i; then vm_ok "own models: every check of llama@$i passes"; else
		vm_not_ok "own models: every check of llama@$i passes"; show_failures "$own"; fi
done
# What the engine itself does on its node: llama.cpp on the plan's CPUs (NUMAPLAN_NCORES threads),
# the model mmapped from its node, every thread allowed its node's CPUs only and last run there.
cpus_of=(0-1 2-3)
for i in 0 1; do
	said=$(journalctl -b -u llama@$i.service -o cat 2>/dev/null | grep -E "^engine: ready" | tail -1)
	vm_check_match "llama@$i runs llama.cpp with a thread a core of its plan, the model mmapped" "$said" "threads=2 .*mmap=true"
	ENGINE=llama@$i.service engine_threads_in "${cpus_of[i]}"
	if [ "$THREADS" -gt 2 ] && [ -z "$STRAY" ]; then vm_ok "all $THREADS threads of llama@$i may run on CPUs ${cpus_of[i]} only, and last ran there"; else
		vm_not_ok "all threads of llama@$i run on CPUs ${cpus_of[i]} only ($THREADS threads)" "$STRAY"; fi
	file=$(numa_share $i "$SRV/$i.gguf" "$(systemctl show -P MainPID llama@$i.service)")
	if at_least "$file" 99; then vm_ok "llama@$i maps its model from node $i ($file% of the file's pages, numa_maps)"; else
		vm_not_ok "llama@$i maps its model from node $i" "$file%"; fi
done
vm_diag "engine (llama.cpp): pages on node 1: $(own_local "$own" 1)% of $(json_get units.1.pages.own.total <<<"$own") own pages of llama@1; start to ready of both, together: see steps"

for i in 0 1; do
	other=llama@$((1 - i)).service
	sh=$(json_get units.$i.pages.shared.total <<<"$own")
	bin=$(grep -E "^units\.$i\.shared_files\.[0-9]+\.path	$ENGINE_DIR/node$" <<<"$own" | cut -f1 | sed 's/\.path$//')
	if [ "${sh:-0}" -gt 0 ] && [ -n "$bin" ] && grep -qE "^$bin\.mapped_by\.[0-9]+	$other$" <<<"$own"; then
		vm_ok "llama@$i's shared program code is shown: the engine's binary, mapped by $other too ($sh pages)"
	else
		vm_not_ok "llama@$i's shared program code is shown: the engine's binary, mapped by $other too" \
			"$(grep -E "^units\.$i\.(pages\.shared|shared_files)" <<<"$own")"
	fi
	[ -n "$bin" ] && vm_diag "own models: llama@$i $(figures "$own" $i); the engine's binary: $(json_get "$bin.pages" <<<"$own") pages on node $(json_get "$bin.node" <<<"$own")"
done

# Migrate and restart of the replica whose copy of the engine's binary sits on the other's node
# (a migrate that moved it would take it from the other) leave the other's locality as it was:
# its pages by numa_maps, all of them.
m=1
for i in 0 1; do
	bin=$(grep -E "^units\.$i\.shared_files\.[0-9]+\.path	$ENGINE_DIR/node$" <<<"$own" | cut -f1 | sed 's/\.path$//')
	[ -n "$bin" ] && [ "$(json_get "$bin.node" <<<"$own")" != "$i" ] && m=$i
done
o=$((1 - m))
M=llama@$m.service
O=llama@$o.service
# shellcheck disable=SC2046 # one PID a word
before=$(numa_share $o - $(unit_pids $O))
out=$("$NUMAPLAN" migrate $M 2>&1)
# shellcheck disable=SC2046
after=$(numa_share $o - $(unit_pids $O))
vm_check_match "migrate of $M leaves what $O maps where it is, and says so" "$out" "left where they are, for the other units"
if at_least "$after" "$(awk -v b="$before" 'BEGIN { print b - 2 }')"; then
	vm_ok "migrate of $M leaves $O's locality as it was ($before% -> $after% on node $o)"
else
	vm_not_ok "migrate of $M leaves $O's locality as it was ($before% -> $after% on node $o)" "$out"
fi
systemctl restart $M && wait_ready 818$m 150 2>/dev/null
# shellcheck disable=SC2046
restart=$(numa_share $o - $(unit_pids $O))
if at_least "$restart" "$(awk -v b="$before" 'BEGIN { print b - 2 }')"; then
	vm_ok "a restart of $M leaves $O's locality as it was ($before% -> $restart%)"
else vm_not_ok "a restart of $M leaves $O's locality as it was ($before% -> $restart%)"; fi
lap migrate
stop_both

# ---- one model, no copies ----
side_unit '${NUMAPLAN_MODEL}'
side_conf "model = $SHARED"
plan=$("$NUMAPLAN" plan 2>&1)
vm_check_match "one model, no copies: plan warns model-shared, naming both and the fix" "$plan" \
	"model-shared.*llama-0 \(node 0\) and llama-1 \(node 1\).*model-copies = per-node"
vm_check "one model, no copies: apply" "$NUMAPLAN" apply
drop_caches
# llama@0 reads it first; llama@1's prepare, at its start, must leave llama@0's pages in place.
systemctl start $L0 && wait_ready 8180 150 2>/dev/null
# shellcheck disable=SC2046 # one PID a word
before=$(numa_share 0 "$SHARED" $(unit_pids $L0))
start_both || { stop_both; vm_done; }
# shellcheck disable=SC2046
after=$(numa_share 0 "$SHARED" $(unit_pids $L0))
if at_least "$after" "$(awk -v b="$before" 'BEGIN { print b - 2 }')"; then
	vm_ok "llama@1's start (its prepare) leaves llama@0's model where it is ($before% -> $after% on node 0)"
else vm_not_ok "llama@1's start (its prepare) leaves llama@0's model where it is ($before% -> $after% on node 0)"; fi
verify_json $L0 $L1
one=$FLAT
detail=$(check_of "$one" 1 memory-locality detail)
vm_check_eq "one model, no copies: verify fails" "$VERIFY_RC" 1
vm_check_eq "llama@0, which read it first, passes" "$(json_get units.0.ok <<<"$one")" true
vm_check_eq "llama@1 fails memory-locality" "$(check_of "$one" 1 memory-locality ok)" false
vm_check_match "for the right cause: the model on node 0, where llama-0 maps it too, and model-copies" "$detail" \
	"$SHARED has [0-9]+ of its [0-9]+ pages on node 0, and replica llama-0 \($L0, node 0\) maps it too.*model-copies = per-node"
if grep -q migrate <<<"$detail"; then vm_not_ok "no migrate advice" "$detail"; else vm_ok "no migrate advice"; fi
vm_diag "one model, no copies: llama@0 $(figures "$one" 0); llama@1 $(figures "$one" 1)"
lap one-model
stop_both

# ---- one model, a copy per node ----
side_conf "model = $SHARED" "model-copies = per-node"
vm_check "model-copies: apply" "$NUMAPLAN" apply
vm_check_match "llama@1 reads node 1's copy" "$(systemctl show -P Environment $L1)" \
	"NUMAPLAN_MODEL=/run/numaplan/models/node1$SHARED"
drop_caches
journal_mark
start_both together || { stop_both; vm_done; }
lap copies-start
said=$(unit_said $L1 "model copy in" | grep "model copy in" | tail -1)
vm_check_match "prepare made node 1's copy at the start" "$said" "model copy in /run/numaplan/models/node1: 1 file .* copied"
vm_check_match "on a tmpfs bound to node 1" "$(findmnt -no FSTYPE,OPTIONS /run/numaplan/models/node1)" "tmpfs.*mpol=bind:1"
verify_json $L0 $L1
cp=$FLAT
vm_check_eq "model-copies: verify passes both" "$VERIFY_RC" 0 || show_failures "$cp"
for i in 0 1; do
	l=$(own_local "$cp" $i)
	if at_least "$l" 99; then vm_ok "llama@$i: at least 99% of its own pages local ($l%)"; else
		vm_not_ok "llama@$i: at least 99% of its own pages local ($l%)"; show_failures "$cp"; fi
	pid=$(systemctl show -P MainPID llama@$i.service)
	if grep -q "file=/run/numaplan/models/node$i$SHARED " "/proc/$pid/numa_maps" && ! grep -q "file=$SHARED " "/proc/$pid/numa_maps"; then
		vm_ok "llama@$i maps its own node's copy, not the original"
	else vm_not_ok "llama@$i maps its own node's copy, not the original" "$(grep -o 'file=[^ ]*gguf' "/proc/$pid/numa_maps" | sort -u)"; fi
done
vm_diag "model-copies: llama@0 $(figures "$cp" 0); llama@1 $(figures "$cp" 1); $said"
size=$(grep -o -- '--copy-size [0-9]*' "$UNITS/$L1.d/50-numaplan.conf")
again=$("$NUMAPLAN" prepare --dry-run --nodes 1 --copy-to /run/numaplan/models/node1 $size -- $SHARED 2>&1)
vm_check_match "the next start would find the copy fresh" "$again" "would have 0 files .* copied, 1 up to date"
stop_both
vm_check "remove" "$NUMAPLAN" remove
if findmnt /run/numaplan/models/node1 >/dev/null || [ -e /run/numaplan/models/node0 ]; then
	vm_not_ok "remove takes the copies away" "$(findmnt -R /run/numaplan 2>&1)"
else vm_ok "remove takes the copies away"; fi
lap copies

rm -f "$UNITS/$TEMPLATE"
rm -rf $SRV
engine_cleanup
vm_diag "steps: $LAPS"
vm_done

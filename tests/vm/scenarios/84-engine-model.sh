#!/bin/bash
# The real engine with its model's page cache filled on node 0 before it starts. Without model =,
# the cache stays there: verify fails memory-locality and names the model file. With model =, the
# drop-in's ExecStartPre= (numaplan prepare) moves the cache onto node 1 at the next start and
# verify passes with min-local 99%. Then with --mlock (llama.cpp's): verify reports the model's
# mapping locked, its pages on node 1.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
. "$SCENARIO_DIR/engine.lib"

engine_mount
make_engine_unit
cached_on_node1() { # what prepare --dry-run finds of the model's page cache
	"$NUMAPLAN" prepare --dry-run --nodes 1 -- "$ENGINE_MODEL" 2>&1
}
# Only the model leaves the page cache (node and its modules stay where they are), then a reader
# on node 0 fills it there.
dd if="$ENGINE_MODEL" iflag=nocache count=0 status=none
numactl --membind=0 --cpunodebind=0 cat "$ENGINE_MODEL" >/dev/null
pages=$((($(stat -c %s "$ENGINE_MODEL") + 4095) / 4096))
vm_check_match "the model's cache is on node 0" "$(cached_on_node1)" " 0 of $pages pages on node 1 already"
lap "setup and fill"

# Without model =: nothing moves it.
engine_conf
vm_check "apply without model =" "$NUMAPLAN" apply
lap apply
engine_start || { engine_cleanup; vm_done; }
lap start
ready_wrong=$READY_S
verify_json $ENGINE
flat=$FLAT
lap verify
vm_check_eq "without model =, verify exits 1" "$VERIFY_RC" 1
vm_check_eq "memory-locality fails" "$(check_of "$flat" 0 memory-locality ok)" false
vm_check_eq "task-affinity passes" "$(check_of "$flat" 0 task-affinity ok)" true
vm_check_eq "remote_files names the model" "$(json_get units.0.remote_files.0.path <<<"$flat")" "$ENGINE_MODEL"
vm_check_match "the detail names the model file" "$(check_of "$flat" 0 memory-locality detail)" "$ENGINE_MODEL has .* off the plan"
before=$(locality "$flat" 0)
systemctl stop $ENGINE
lap "checks, stop"
vm_check_match "stopped, the model's cache stays on node 0" "$(cached_on_node1)" " 0 of $pages pages on node 1 already"

# With model =: the start moves it.
engine_conf "$ENGINE_MODEL"
vm_check "apply with model =" "$NUMAPLAN" apply
lap apply
vm_check_match "the drop-in prepares the model before the start" "$(cat "$UNITS/$ENGINE.d/50-numaplan.conf")" \
	"ExecStartPre=-\+\"/usr/local/bin/numaplan\" prepare --nodes 1 (--nics \"[^\"]*\" --nics-env \"[^\"]*\" )?-- \"$ENGINE_MODEL\""
journal_mark
engine_start || { engine_cleanup; vm_done; }
lap "start with the move"
said=$(unit_said $ENGINE "model page cache:" | grep "model page cache:" | tail -1)
vm_check_match "ExecStartPre= moved the model's cache (journal)" "$said" \
	"moved $pages pages \([0-9.]+ MiB\) in [0-9.]+ s, from node 0: $pages to node 1: $pages"
verify_json $ENGINE
flat=$FLAT
lap verify
vm_check_eq "with model =, verify exits 0" "$VERIFY_RC" 0 || show_failures "$flat"
for check in task-affinity warmup memory-locality; do
	vm_check_eq "verify: $check passes" "$(check_of "$flat" 0 $check ok)" true
done
after=$(locality "$flat" 0)
total=$(json_get units.0.pages.total <<<"$flat")
if at_least "$after" 99; then vm_ok "at least 99% of the engine's pages on node 1 ($after% of $total)"; else
	vm_not_ok "at least 99% of the engine's pages on node 1 ($after% of $total)"; fi
file1=$(numa_share 1 "$ENGINE_MODEL" "$ENGINE_PID")
if at_least "$file1" 99; then vm_ok "it maps its model from node 1 ($file1%, numa_maps)"; else
	vm_not_ok "it maps its model from node 1" "$file1%"; fi
# shellcheck disable=SC2046 # one PID a word
vm_diag "the engine's pages off node 1: $(off_node 1 $(unit_pids $ENGINE))"
vm_diag "engine (llama.cpp), model cached on node 0 first: pages on node 1: $before% without model = (start to ready $ready_wrong s), $after% of $total pages with model = (start to ready $READY_S s; prepare: ${said#*; })"

lap checks

# With --mlock: llama.cpp locks the model's mapping; its locked pages are where the model is.
systemctl stop $ENGINE
make_engine_unit --mlock
engine_start || { engine_cleanup; vm_done; }
lap "start with --mlock"
verify_json $ENGINE
flat=$FLAT
lap verify
vm_check_eq "with --mlock, verify exits 0" "$VERIFY_RC" 0 || show_failures "$flat"
vmlck=$(json_get units.0.pages.locked.vm_locked <<<"$flat")
locked0=$(json_get units.0.pages.locked.by_node.0 <<<"$flat") || locked0=0
locked1=$(json_get units.0.pages.locked.by_node.1 <<<"$flat") || locked1=0
# llama.cpp locks the model's mapping from its first tensor: all but its header's pages.
if [ "${vmlck:-0}" -ge $((pages * 99 / 100)) ]; then vm_ok "VmLck covers the model ($vmlck pages locked, the model $pages)"; else
	vm_not_ok "VmLck covers the model" "VmLck $vmlck pages, the model $pages"; fi
if [ "$locked1" -eq "$vmlck" ]; then vm_ok "its locked mapping's pages are all resident, on node 1 ($locked1)"; else
	vm_not_ok "its locked mapping's pages are all resident, on node 1" "VmLck $vmlck, node 1: $locked1, node 0: $locked0"; fi
vm_check_eq "none on node 0" "$locked0" 0
vm_check_eq "no pinned page" "$(json_get units.0.pages.pinned.vm_pinned <<<"$flat")" 0
line=$("$NUMAPLAN" verify --no-warmup $ENGINE 2>/dev/null | grep '^  locked: ')
vm_check_match "the text says so" "$line" "^  locked: $vmlck pages \([0-9.]+ MiB, VmLck\); its locked mappings' resident pages: node 1: $locked1$"
vm_diag "engine with --mlock (start to ready $READY_S s): VmLck $vmlck pages; locked pages by node: node 0 $locked0, node 1 $locked1; $(locality "$flat" 0)% of its pages on node 1"
lap "mlock checks"
engine_cleanup
lap cleanup
vm_diag "steps: $LAPS"
vm_done

#!/bin/bash
# The real engine (llama.cpp through node-llama-cpp, its model mmapped) as a replica: apply,
# start, warm-up, verify passes with at least 99% of its pages on node 1 and every one of its
# threads on node 1's CPUs. Its model's page cache is cold: the engine's reads fill it under the
# drop-in's policy.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
. "$SCENARIO_DIR/engine.lib"

engine_mount
make_engine_unit
engine_conf "$ENGINE_MODEL"
lap setup
vm_check "apply" "$NUMAPLAN" apply
lap apply
vm_check_match "the drop-in binds the engine to node 1 and its CPUs" \
	"$(systemctl show -P NUMAPolicy $ENGINE) $(systemctl show -P NUMAMask $ENGINE) $(systemctl show -P CPUAffinity $ENGINE)" "^bind 1 2[- ]3$"
engine_start || { engine_cleanup; vm_done; }
lap start
vm_ok "the engine serves (${READY_S} s from start to ready)"
said=$(journalctl -b -u $ENGINE -o cat 2>/dev/null | grep -E "^engine: ready" | tail -1)
vm_check_match "it runs llama.cpp on the CPUs of its plan, the model mmapped" "$said" "threads=2 .*mmap=true"

verify_json $ENGINE
flat=$FLAT
lap verify
vm_check_eq "verify exits 0" "$VERIFY_RC" 0 || show_failures "$flat"
for check in unit-active numa-policy cpu-affinity task-affinity warmup memory-locality; do
	vm_check_eq "verify: $check passes" "$(check_of "$flat" 0 $check ok)" true
done
pinned=$(locality "$flat" 0)
total=$(json_get units.0.pages.total <<<"$flat")
if at_least "$pinned" 99; then vm_ok "at least 99% of the engine's pages on node 1 ($pinned% of $total)"; else
	vm_not_ok "at least 99% of the engine's pages on node 1 ($pinned% of $total)"; show_failures "$flat"; fi
engine_threads_in 2-3
if [ "$THREADS" -gt 2 ] && [ -z "$STRAY" ]; then vm_ok "all $THREADS engine threads may run on CPUs 2-3 only, and last ran there"; else
	vm_not_ok "all engine threads run on CPUs 2-3 only ($THREADS threads)" "$STRAY"; fi
file1=$(numa_share 1 "$ENGINE_MODEL" "$ENGINE_PID")
if at_least "$file1" 99; then vm_ok "it maps its model from node 1 ($file1% of the file's pages, numa_maps)"; else
	vm_not_ok "it maps its model from node 1" "$file1%"; fi
lap checks
vm_diag "engine (llama.cpp): pages on node 1: $pinned% of $total pages, its model file $file1%; $THREADS threads on CPUs 2-3; start to ready $READY_S s"
# shellcheck disable=SC2046 # one PID a word
vm_diag "the engine's pages off node 1: $(off_node 1 $(unit_pids $ENGINE))"

engine_cleanup
lap cleanup
vm_diag "steps: $LAPS"
vm_done

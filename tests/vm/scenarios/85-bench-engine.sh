#!/bin/bash
# numaplan bench of the real engine (llama.cpp through node-llama-cpp): one round of each arm,
# its model's page cache moved to node 0 and back by the drop-ins' prepare; the answers say how
# many tokens they produced (tokens_predicted), so each arm has its tokens per second; and the
# engine ends running on node 1 as its drop-in places it. Emulated, the two nodes' memory is the
# same: the ratio is the guest's noise, not judged.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
. "$SCENARIO_DIR/engine.lib"

engine_mount
make_engine_unit
write_conf "[replica engine]
unit = $ENGINE
accelerators = 41:00.0
memory = 256M
model = $ENGINE_MODEL
warmup-url = http://127.0.0.1:$ENGINE_PORT/completion
warmup-body = {\"prompt\":\"The weather today\",\"n_predict\":4}"
vm_check "apply" "$NUMAPLAN" apply
engine_start || { engine_cleanup; vm_done; }
lap start
before=$(systemctl show -p EffectiveCPUs -p EffectiveMemoryNodes -p ActiveState -p DropInPaths $ENGINE)

out=$("$NUMAPLAN" bench --json --rounds 1 --requests 2 engine 2>/tmp/bench.err)
rc=$?
flat=$(json_flat <<<"$out")
lap bench
vm_check_eq "bench of the engine exits 0" "$rc" 0 || vm_diag "$(cat /tmp/bench.err)"
vm_check_eq "2 answers an arm, none failed" \
	"$(json_get arms.planned.requests <<<"$flat") $(json_get arms.planned.failed <<<"$flat") $(json_get arms.remote.requests <<<"$flat") $(json_get arms.remote.failed <<<"$flat")" \
	"2 0 2 0"
vm_check_match "tokens per second for both arms (tokens_predicted)" \
	"$(json_get arms.planned.tokens_per_s <<<"$flat") $(json_get arms.remote.tokens_per_s <<<"$flat")" '^[0-9.]+ [0-9.]+$'
vm_check_eq "restored" "$(json_get restored <<<"$flat")" true
vm_check_eq "running on node 1 as before" \
	"$(systemctl show -p EffectiveCPUs -p EffectiveMemoryNodes -p ActiveState -p DropInPaths $ENGINE)" "$before"
vm_check_eq "no drop-in of bench's left" "$(ls /run/systemd/system/$ENGINE.d 2>/dev/null)" ""
vm_diag "engine: $(json_get summary <<<"$flat")"
for arm in planned remote; do
	vm_diag "engine, $arm: $(json_get arms.$arm.p50_ms <<<"$flat" | awk '{ printf "p50 %.0f ms", $1 }'), $(json_get arms.$arm.tokens_per_s <<<"$flat" | awk '{ printf "%.1f tokens/s", $1 }')"
done
vm_diag "steps: $LAPS"
engine_cleanup
vm_done

#!/bin/bash
# The model's page cache filled on node 0 before the pinned replica maps it: the file's pages stay
# there; verify fails memory-locality and names the file. Evicting it and restarting fixes it.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
systemctl stop $LLAMA
drop_caches
numactl --membind=0 --cpunodebind=0 cat "$MODEL" >/dev/null
systemctl start $LLAMA
wait_ready 8080 120 || vm_not_ok "the replica serves"
verify_json $LLAMA
flat=$FLAT
vm_check_eq "verify exits 1" "$VERIFY_RC" 1
vm_check_eq "memory-locality fails" "$(check_of "$flat" 0 memory-locality ok)" false
vm_check_eq "remote_files names the model" "$(json_get units.0.remote_files.0.path <<<"$flat")" "$MODEL"
off=$(json_get units.0.remote_files.0.pages_off_plan <<<"$flat")
if [ "${off:-0}" -ge 8000 ]; then vm_ok "with its pages off the plan ($off)"; else vm_not_ok "with its pages off the plan" "$off"; fi
vm_check_match "the detail says how to fix it" "$(check_of "$flat" 0 memory-locality detail)" "$MODEL has .* off the plan.*evict it"
vm_diag "with the model cached on node 0: $(locality "$flat" 0)% of the replica's pages on node 1"
vm_check_eq "the other checks still pass (task-affinity)" "$(check_of "$flat" 0 task-affinity ok)" true

systemctl stop $LLAMA
drop_caches
systemctl start $LLAMA
wait_ready 8080 120
verify_json $LLAMA
flat=$FLAT
vm_check_eq "after eviction and a restart, verify passes" "$(json_get ok <<<"$flat")" true || show_failures "$flat"
vm_done

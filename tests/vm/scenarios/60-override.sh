#!/bin/bash
# A drop-in that sorts after numaplan's and undoes the pinning: verify fails and names it.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
override=$UNITS/$LLAMA.d/60-local.conf
printf '[Service]\nNUMAPolicy=default\nCPUAffinity=\nAllowedCPUs=\nAllowedMemoryNodes=\n' >"$override"
systemctl daemon-reload
systemctl restart $LLAMA
wait_ready 8080 120 || vm_not_ok "the replica came back after the restart"
verify_json --no-warmup $LLAMA
flat=$FLAT
vm_check_eq "verify exits 1" "$VERIFY_RC" 1
vm_check_eq "verify: not ok" "$(json_get ok <<<"$flat")" false
vm_check_eq "dropin-in-effect fails" "$(check_of "$flat" 0 dropin-in-effect ok)" false
vm_check_match "dropin-in-effect names the overriding drop-in" "$(check_of "$flat" 0 dropin-in-effect detail)" \
	"$override sets NUMAPolicy="
vm_check_eq "numa-policy sees the default policy" "$(check_of "$flat" 0 numa-policy got)" default
vm_check_eq "task-affinity sees tasks off the plan" "$(check_of "$flat" 0 task-affinity ok)" false
vm_check_match "the summary says it is not pinned" "$(json_get units.0.summary <<<"$flat")" '^NOT pinned'

rm -f "$override"
systemctl daemon-reload
systemctl restart $LLAMA
wait_ready 8080 120
verify_json --no-warmup $LLAMA
flat=$FLAT
vm_check_eq "without the override, verify passes again" "$(json_get ok <<<"$flat")" true || show_failures "$flat"
vm_done

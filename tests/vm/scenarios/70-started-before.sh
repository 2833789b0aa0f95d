#!/bin/bash
# A replica that was already running when its drop-in was written: verify fails and says to
# restart it; after the restart it passes.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=early.service
model=/srv/models/early.gguf
make_model "$model"
make_replica_unit $unit 8081 "$model"
llama_conf
printf '\n[replica early]\nunit = %s\naccelerators = 21:00.0\nmemory = 256M\nmin-local = 95%%\n' $unit >>"$CONF"
systemctl start $unit
wait_ready 8081 120 || vm_not_ok "the early replica serves"
sleep 1
out=$("$NUMAPLAN" apply 2>&1)
vm_check_match "apply says the running unit keeps its old placement" "$out" "$unit is running with its old placement"
verify_json --no-warmup $unit
flat=$FLAT
vm_check_eq "verify exits 1" "$VERIFY_RC" 1
vm_check_eq "task-affinity fails" "$(check_of "$flat" 0 task-affinity ok)" false
detail=$(check_of "$flat" 0 task-affinity detail)
vm_check_match "task-affinity names the process started before the drop-in" "$detail" \
	"started [0-9.]+ s before numaplan's drop-in was written"
vm_check_match "and says to restart the unit" "$detail" "restart the unit \\(systemctl restart $unit\\)"
t0=$(date +%s%N)
status=$("$NUMAPLAN" status --json $unit 2>/dev/null)
status_rc=$? status_ms=$((($(date +%s%N) - t0) / 1000000))
sflat=$(json_flat <<<"$status")
vm_check_eq "status exits 1 for it" "$status_rc" 1
vm_check_eq "status: its drop-in is in effect" "$(json_get units.0.dropin <<<"$sflat")" "in effect"
vm_check_eq "status: but it started before the drop-in" "$(json_get units.0.started_before_dropin <<<"$sflat")" true
vm_diag "numaplan status took $status_ms ms under emulation (one D-Bus round trip a unit)"
systemctl stop $unit
drop_caches
systemctl start $unit
wait_ready 8081 120
verify_json --no-warmup $unit
flat=$FLAT
vm_check_eq "after a restart, verify passes" "$(json_get ok <<<"$flat")" true || show_failures "$flat"
vm_check_eq "on node 0, its device's" "$(json_get units.0.checks.2.got <<<"$flat")" 0
vm_check_eq "and status exits 0: the drop-in in effect, started with it" \
	"$("$NUMAPLAN" status $unit >/tmp/status.txt 2>&1; echo $?)" 0
vm_check_match "status's table says so" "$(cat /tmp/status.txt)" "$unit +active \\(running\\) +in effect +with drop-in"

systemctl stop $unit
rm -f "$UNITS/$unit"
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
vm_check "apply removed the drop-in of the replica that left the configuration" test ! -e "$UNITS/$unit.d"
vm_done

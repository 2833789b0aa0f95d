#!/bin/bash
# Boot with numaplan.service enabled and no drop-in on disk: the replica comes up pinned with no
# manual step, numaplan.service having run before it.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

case $VM_PHASE in
before-reboot)
	llama_conf
	"$NUMAPLAN" remove >/dev/null
	sed "s|@bindir@/numaplan|$NUMAPLAN|" "$EXTRA/numaplan.service.in" >"$UNITS/numaplan.service"
	systemctl daemon-reload
	vm_check "numaplan.service enables" systemctl enable numaplan.service
	vm_check "the replica is wanted at boot" systemctl add-wants "$VM_TARGET" $LLAMA
	vm_check "no drop-in before the reboot" test ! -e "$UNITS/$LLAMA.d"
	;;
after-reboot)
	vm_check_eq "numaplan.service ran at boot" "$(systemctl show -P Result numaplan.service)" success
	vm_check_eq "numaplan.service stays active (RemainAfterExit)" "$(systemctl is-active numaplan.service)" active
	vm_check "it wrote the drop-in" test -e "$UNITS/$LLAMA.d/50-numaplan.conf"
	vm_check "and removed its boot marker" test ! -e /run/numaplan/unplaced
	vm_check_eq "the replica started at boot" "$(systemctl is-active $LLAMA)" active
	plan_done=$(systemctl show -P ExecMainExitTimestampMonotonic numaplan.service)
	replica_start=$(systemctl show -P ExecMainStartTimestampMonotonic $LLAMA)
	if [ "${plan_done:-0}" -gt 0 ] && [ "${replica_start:-0}" -gt "$plan_done" ]; then
		vm_ok "after numaplan.service had finished"
	else
		vm_not_ok "after numaplan.service had finished" "numaplan done at $plan_done, replica started at $replica_start"
	fi
	wait_ready 8080 180 || vm_not_ok "the replica serves"
	verify_json $LLAMA
	flat=$FLAT
	vm_check_eq "verify passes with no manual step" "$(json_get ok <<<"$flat")" true || show_failures "$flat"
	vm_diag "after the reboot: $(locality "$flat" 0)% of the replica's pages on node 1"
	;;
*)
	vm_not_ok "VM_PHASE is before-reboot or after-reboot" "VM_PHASE=$VM_PHASE"
	;;
esac
vm_done

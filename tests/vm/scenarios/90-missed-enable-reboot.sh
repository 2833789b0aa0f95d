#!/bin/bash
# An admin who stops at apply: numaplan installed by path (root's), a replica enabled for boot,
# `numaplan apply`, and nothing numaplan ships enabled. apply warns that no boot step will run;
# after the reboot the replica is up, pinned as applied, and no assertion held it back.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

case $VM_PHASE in
before-reboot)
	llama_conf
	rm -f "$UNITS/numaplan.service" /etc/systemd/system-generators/numaplan-generator
	systemctl daemon-reload
	out=$("$NUMAPLAN" apply 2>&1)
	vm_check_eq "apply exits 0" "$?" 0
	vm_check_match "and warns that no boot step will run at the next boot" "$out" \
		"warning: no boot step will run at the next boot .*systemctl enable numaplan.service"
	out=$("$NUMAPLAN" apply --check 2>&1)
	vm_check_match "apply --check says the same" "$out" "no boot step will run"
	vm_check "the replica is wanted at boot" systemctl add-wants "$VM_TARGET" $LLAMA
	;;
after-reboot)
	vm_check_eq "numaplan.service did not run" "$(systemctl show -P ExecMainStartTimestampMonotonic numaplan.service)" 0
	vm_check "no boot marker" test ! -e /run/numaplan/unplaced
	vm_check_eq "the replica started at boot" "$(systemctl is-active $LLAMA)" active
	vm_check_eq "its assertion held" "$(systemctl show -P AssertResult $LLAMA)" yes
	asserts=$(journalctl -b -o cat -u $LLAMA | grep -c "Assertion failed")
	vm_check_eq "the journal holds no 'Assertion failed' for it" "$asserts" 0
	pid=$(systemctl show -P MainPID $LLAMA)
	vm_check_eq "pinned to node 1's CPUs, as applied" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 2-3
	wait_ready 8080 180 || vm_not_ok "the replica serves"
	verify_json $LLAMA
	vm_check_eq "verify passes" "$(json_get ok <<<"$FLAT")" true || show_failures "$FLAT"
	out=$("$NUMAPLAN" status 2>&1)
	vm_check_match "status warns that no boot step will run" "$out" "warning: no boot step will run"
	flat=$("$NUMAPLAN" status --json 2>/dev/null | json_flat)
	vm_check_eq "and says so in its JSON" "$(json_get boot_step <<<"$flat")" null
	;;
*)
	vm_not_ok "VM_PHASE is before-reboot or after-reboot" "VM_PHASE=$VM_PHASE"
	;;
esac
vm_done

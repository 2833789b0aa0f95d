#!/bin/bash
# The device moved to the other node between two boots (boot.sh's swap-pci-nodes): the
# generator's plan follows it at boot, with no step and no reload.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
GEN=/run/systemd/generator

case $VM_PHASE in
before-reboot)
	llama_conf
	vm_check_match "before: planned on node 1" "$(cat "$GEN/$LLAMA.d/50-numaplan.conf")" "NUMAMask=1"
	touch "$SHARE/swap-pci-nodes"
	;;
after-reboot)
	rm -f "$SHARE/swap-pci-nodes"
	vm_check_eq "the device is on node 0 at this boot" "$(cat /sys/bus/pci/devices/$GPU/numa_node)" 0
	vm_check_match "the generator planned it on node 0" "$(cat "$GEN/$LLAMA.d/50-numaplan.conf")" "NUMAMask=0"
	vm_check_eq "no daemon-reload on the boot path" "$(journalctl -b -o cat _PID=1 | grep -c '^Reloading')" 0
	vm_check_eq "the replica started" "$(systemctl is-active $LLAMA)" active
	pid=$(systemctl show -P MainPID $LLAMA)
	vm_check_eq "on node 0's CPUs" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 0-1
	wait_ready 8080 180 || vm_not_ok "the replica serves"
	verify_json $LLAMA
	vm_check_eq "verify passes on the new plan" "$(json_get ok <<<"$FLAT")" true || show_failures "$FLAT"
	;;
esac
vm_done

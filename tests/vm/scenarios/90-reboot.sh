#!/bin/bash
# The harness's second boot: state written before the reboot is still there, the boot id changed, and
# a unit hooked into the boot target started at boot with its drop-in applied.
# shellcheck source=tests/vm/scenario-lib.sh
. "$VM_LIB"

unit=vmcheck-boot.service
case $VM_PHASE in
before-reboot)
	cat /proc/sys/kernel/random/boot_id >"$VM_STATE/boot-id"
	printf '[Service]\nExecStart=/bin/sleep infinity\n' >/etc/systemd/system/$unit
	mkdir -p /etc/systemd/system/$unit.d
	printf '[Service]\nAllowedCPUs=2-3\nAllowedMemoryNodes=1\n' >/etc/systemd/system/$unit.d/50-pin.conf
	vm_check "a unit hooked into $VM_TARGET for the next boot" systemctl add-wants "$VM_TARGET" $unit
	;;
after-reboot)
	vm_check_eq "this is boot 2" "$VM_BOOT" 2
	if [ -f "$VM_STATE/boot-id" ]; then
		vm_ok "state written before the reboot survived"
		before=$(cat "$VM_STATE/boot-id")
		now=$(cat /proc/sys/kernel/random/boot_id)
		if [ "$now" != "$before" ]; then
			vm_ok "the boot id changed"
		else
			vm_not_ok "the boot id changed" "boot id $now before and after"
		fi
	else
		vm_not_ok "state written before the reboot survived"
	fi
	vm_check_eq "the unit hooked into $VM_TARGET started at boot" "$(systemctl is-active $unit)" active
	vm_check_eq "with its drop-in: EffectiveCPUs" "$(systemctl show -P EffectiveCPUs $unit)" 2-3
	;;
*)
	vm_not_ok "VM_PHASE is before-reboot or after-reboot" "VM_PHASE=$VM_PHASE"
	;;
esac
vm_done

#!/bin/bash
# No QEMU device is an NVIDIA GPU: bind-mounting modalias, class, vendor and device files over the
# node-1 VGA's makes it an H200 3D controller for numaplan and libpci; its replica then gets
# CUDA_VISIBLE_DEVICES.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

dev=/sys/bus/pci/devices/$GPU
fake=$(mktemp -d)
echo 0x030200 >"$fake/class"
echo 0x10de >"$fake/vendor"
echo 0x2335 >"$fake/device"
echo pci:v000010DEd00002335sv000010DEsd00000000bc03sc02i00 >"$fake/modalias"
for f in modalias class vendor device; do mount --bind "$fake/$f" "$dev/$f"; done

flat=$("$NUMAPLAN" show --json | json_flat)
vm_check_eq "show: the node-1 device is a 3D controller" "$(json_get accelerators.1.class <<<"$flat")" 0x030200
vm_check_eq "show: made by NVIDIA" "$(json_get accelerators.1.vendor <<<"$flat")" 0x10de
vm_check_eq "show: a compute accelerator" "$(json_get accelerators.1.compute <<<"$flat")" true
vm_check_eq "show: on node 1" "$(json_get accelerators.1.numa_node <<<"$flat")" 1
vm_check_eq "show: named as lspci names it (udev's hwdb, then pci.ids)" "$(json_get accelerators.1.name <<<"$flat")" \
	"$(lspci -s "$GPU" -mm | awk -F'"' '{ print $4 " " $6 }')"

mv "$CONF" "$CONF.saved"
flat=$("$NUMAPLAN" plan --json | json_flat)
vm_check_eq "default plan: one replica per compute accelerator" "$(json_count replicas <<<"$flat")" 1
vm_check_match "default plan: its drop-in names GPU 0" "$(json_get replicas.0.dropin <<<"$flat")" \
	'Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0'

unit=gpu-replica.service
printf '[Service]\nExecStart=/bin/sleep infinity\n' >"$UNITS/$unit"
write_conf "[replica gpu]
unit = $unit
accelerators = $GPU
memory = 64M"
vm_check "apply" "$NUMAPLAN" apply
vm_check "the GPU replica starts" systemctl start $unit
vm_check_eq "systemd gives the unit CUDA_VISIBLE_DEVICES, the plan's lists and its CPU counts" "$(systemctl show -P Environment $unit)" \
	"CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0 NUMAPLAN_CPUS=2-3 NUMAPLAN_MEMS=1 NUMAPLAN_NCPUS=2 NUMAPLAN_NCORES=2 NUMAPLAN_BEST_CPUS=2-3"
pid=$(systemctl show -P MainPID $unit)
vm_check_match "the process's environment holds it" "$(tr '\0' ' ' <"/proc/$pid/environ")" 'CUDA_VISIBLE_DEVICES=0'
vm_check_eq "and runs on node 1's CPUs" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 2-3

systemctl stop $unit
"$NUMAPLAN" remove $unit >/dev/null
rm -f "$UNITS/$unit"
systemctl daemon-reload
for f in modalias class vendor device; do umount "$dev/$f"; done
rm -rf "$fake"
mv "$CONF.saved" "$CONF"
vm_check_eq "the device is QEMU's again" "$(cat "$dev/vendor")" 0x1234
vm_done

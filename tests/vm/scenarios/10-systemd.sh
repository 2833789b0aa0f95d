#!/bin/bash
# What numaplan's scenarios need from the guest's systemd: transient units with cpuset properties,
# unit files with drop-ins and daemon-reload, and the system D-Bus.
# shellcheck source=tests/vm/scenario-lib.sh
. "$VM_LIB"

out=$(systemd-run -P -q --wait -p AllowedCPUs=2-3 -p AllowedMemoryNodes=1 \
	grep -E '^(Cpus|Mems)_allowed_list' /proc/self/status 2>&1)
vm_check_eq "systemd-run: a transient service gets AllowedCPUs=2-3 and AllowedMemoryNodes=1" \
	"$(printf '%s\n' "$out" | tr -s ' \t' ' ')" "$(printf 'Cpus_allowed_list: 2-3\nMems_allowed_list: 1')"

unit=vmcheck-dropin.service
cat >/etc/systemd/system/$unit <<'UNIT'
[Service]
ExecStart=/bin/sleep infinity
UNIT
mkdir -p /etc/systemd/system/$unit.d
printf '[Service]\nAllowedCPUs=2-3\nAllowedMemoryNodes=1\n' >/etc/systemd/system/$unit.d/50-pin.conf
vm_check "daemon-reload" systemctl daemon-reload
vm_check "a unit with a drop-in starts" systemctl start $unit
vm_check_eq "systemctl show: EffectiveCPUs of the unit" "$(systemctl show -P EffectiveCPUs $unit)" 2-3
vm_check_eq "systemctl show: EffectiveMemoryNodes of the unit" "$(systemctl show -P EffectiveMemoryNodes $unit)" 1
pid=$(systemctl show -P MainPID $unit)
vm_check_eq "its process runs on CPUs 2-3" "$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$pid"/status)" 2-3
systemctl stop $unit
rm -rf /etc/systemd/system/$unit /etc/systemd/system/$unit.d
systemctl daemon-reload

vm_check_match "the system D-Bus answers (busctl: systemd's Version)" \
	"$(busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager Version 2>&1)" \
	'^s "252'
vm_done

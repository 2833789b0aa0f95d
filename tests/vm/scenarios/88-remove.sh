#!/bin/bash
# remove gives the unit back to systemd's defaults.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
flat=$("$NUMAPLAN" remove --json | json_flat)
vm_check_eq "remove: changed" "$(json_get changed <<<"$flat")" true
vm_check_eq "remove: the replica's drop-in removed" "$(json_get units.0.action <<<"$flat")" removed
vm_check "the drop-in directory is gone" test ! -e "$UNITS/$LLAMA.d"
vm_check_eq "systemd forgot NUMAMask" "$(systemctl show -P NUMAMask $LLAMA)" ""
vm_check_eq "systemd forgot AllowedCPUs" "$(systemctl show -P AllowedCPUs $LLAMA)" ""
systemctl restart $LLAMA
pid=$(systemctl show -P MainPID $LLAMA)
vm_check_eq "the restarted replica may run on every CPU" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 0-3
vm_check_eq "and use every node" "$(awk '/^Mems_allowed_list/ { print $2 }' "/proc/$pid/status")" 0-1
flat=$("$NUMAPLAN" remove --json | json_flat)
vm_check_eq "removing nothing: changed false" "$(json_get changed <<<"$flat")" false
systemctl stop $LLAMA
vm_done

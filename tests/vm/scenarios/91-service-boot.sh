#!/bin/bash
# The boot numaplan.service gave (90-reboot): what it added to the boot path, for docs/design.md's
# figures beside the generator's boot (92-generator-reboot).
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

start=$(systemctl show -P ExecMainStartTimestampMonotonic numaplan.service)
end=$(systemctl show -P ExecMainExitTimestampMonotonic numaplan.service)
reloads=$(journalctl -b -o cat _PID=1 | grep -c '^Reloading')
vm_check "numaplan.service ran at this boot" test "${end:-0}" -gt 0
vm_check "its apply reloaded systemd on the boot path" test "$reloads" -ge 1
vm_diag "figure: numaplan.service boot: apply ran $(((end - start) / 1000)) ms, reloads on the boot path: $reloads, replica started at $(($(systemctl show -P ExecMainStartTimestampMonotonic $LLAMA) / 1000)) ms"
vm_done

#!/bin/bash
# apply and remove beside the generator: a drop-in apply wrote while the generator was masked
# keeps the unit from starting once the generator runs again (never two placements), apply hands
# the unit back to the generator, remove takes it out until the next boot, apply puts it back.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
GEN=/run/systemd/generator
MASK=/run/systemd/system-generators/numaplan-generator

llama_conf
systemctl stop $LLAMA
mkdir -p "$(dirname $MASK)"
ln -sf /dev/null $MASK
vm_check "generator masked: apply writes its persistent drop-in" "$NUMAPLAN" apply
vm_check "in $UNITS" test -f "$UNITS/$LLAMA.d/50-numaplan.conf"
vm_check "and the masked generator wrote nothing at the reload" test ! -e "$GEN/$LLAMA.d"
rm -f $MASK
systemctl daemon-reload
vm_check "unmasked: the generator blocks the unit apply's drop-in places" test -f "$GEN/$LLAMA.d/49-numaplan-conflict.conf"
vm_check_match "and says so in the journal" "$(journalctl -b -o cat -t numaplan-generator)" "outranks the generator's placement"
systemctl start $LLAMA 2>/dev/null
vm_check_eq "the unit does not start with apply's placement" "$(systemctl show -P AssertResult $LLAMA)" no
"$NUMAPLAN" apply --check >/dev/null 2>&1
vm_check_eq "apply --check: the handover is pending" "$?" 1
vm_check "apply hands the unit to the generator" "$NUMAPLAN" apply
vm_check "apply's drop-in is gone" test ! -e "$UNITS/$LLAMA.d/50-numaplan.conf"
vm_check "and the block" test ! -e "$GEN/$LLAMA.d/49-numaplan-conflict.conf"
vm_check "and apply's marker" test ! -e /run/numaplan/applied
systemctl start $LLAMA
vm_check_eq "the replica starts" "$(systemctl is-active $LLAMA)" active
wait_ready 8080 180 || vm_not_ok "the replica serves"
verify_json --no-warmup $LLAMA
vm_check_eq "verify passes with the generator's drop-in" "$(json_get ok <<<"$FLAT")" true || show_failures "$FLAT"
vm_check "apply again: nothing to do" "$NUMAPLAN" apply --check
systemctl stop $LLAMA
vm_check "remove in generator mode" "$NUMAPLAN" remove $LLAMA
vm_check "the generator left the unit out" test ! -e "$GEN/$LLAMA.d/50-numaplan.conf"
vm_check_eq "systemd forgot NUMAMask" "$(systemctl show -P NUMAMask $LLAMA)" ""
vm_check "apply puts it back" "$NUMAPLAN" apply
vm_check "the generator's drop-in is back" test -f "$GEN/$LLAMA.d/50-numaplan.conf"

# Later scenarios find numaplan as 90-reboot left it: no generator, apply's drop-in.
rm -f /etc/systemd/system-generators/numaplan-generator
systemctl daemon-reload
vm_check "without the generator, apply writes its drop-in again" "$NUMAPLAN" apply
vm_done

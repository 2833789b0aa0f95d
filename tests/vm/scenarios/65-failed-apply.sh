#!/bin/bash
# After an apply that failed (as at a boot with a broken configuration), the replicas do not
# start with a stale plan: numaplan's drop-ins assert /run/numaplan/applied, which only a
# successful apply creates.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

systemctl stop $LLAMA
rm -f /run/numaplan/applied
llama_conf
printf '\n[replica broken]\nunit = broken.service\nmemory = lots\n' >>"$CONF"
out=$("$NUMAPLAN" apply 2>&1)
vm_check_eq "apply with a bad configuration exits 2" "$?" 2
vm_check_match "and names the file and line" "$out" "^$CONF:[0-9]+: bad memory 'lots'"
vm_check "no marker after a failed apply" test ! -e /run/numaplan/applied
systemctl start $LLAMA 2>/dev/null
vm_check_match "the replica does not start with the stale drop-in" "$(systemctl is-active $LLAMA)" "^(failed|inactive)$"
vm_check_match "systemd says why: the assertion" "$(systemctl show -P AssertResult $LLAMA)" no
llama_conf
vm_check "apply with the configuration fixed" "$NUMAPLAN" apply
vm_check "the marker is back" test -e /run/numaplan/applied
systemctl reset-failed $LLAMA
vm_check "the replica starts" systemctl start $LLAMA
wait_ready 8080 120 && vm_ok "and serves" || vm_not_ok "and serves"
vm_done

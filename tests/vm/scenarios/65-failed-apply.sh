#!/bin/bash
# After a boot step that failed (apply --boot with a broken configuration, as numaplan.service runs
# it at boot), the replicas do not start with a stale plan: numaplan's drop-ins assert that
# /run/numaplan/unplaced is not there, which the boot step creates first and only a successful
# apply removes. An admin's apply that fails, outside the boot step, keeps nothing from starting.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

systemctl stop $LLAMA
llama_conf
vm_check "apply" "$NUMAPLAN" apply
vm_check_match "the drop-in asserts the boot marker is absent" "$(cat "$UNITS/$LLAMA.d/50-numaplan.conf")" \
	"AssertPathExists=!/run/numaplan/unplaced"
printf '\n[replica broken]\nunit = broken.service\nmemory = lots\n' >>"$CONF"
out=$("$NUMAPLAN" apply 2>&1)
vm_check_eq "an admin's apply with a bad configuration exits 2" "$?" 2
vm_check "and creates no marker" test ! -e /run/numaplan/unplaced
vm_check "the replica still starts, placed as applied" systemctl start $LLAMA
systemctl stop $LLAMA
out=$("$NUMAPLAN" apply --boot 2>&1)
vm_check_eq "the boot step with a bad configuration exits 2" "$?" 2
vm_check_match "and names the file and line" "$out" "^$CONF:[0-9]+: bad memory 'lots'"
vm_check "the boot marker stays after it failed" test -e /run/numaplan/unplaced
systemctl start $LLAMA 2>/dev/null
vm_check_match "the replica does not start with the stale drop-in" "$(systemctl is-active $LLAMA)" "^(failed|inactive)$"
vm_check_match "systemd says why: the assertion" "$(systemctl show -P AssertResult $LLAMA)" no
llama_conf
out=$("$NUMAPLAN" status 2>&1)
vm_check_match "fixed, status still says the boot step keeps the replicas from starting" "$out" "unplaced is there"
vm_check "apply with the configuration fixed" "$NUMAPLAN" apply
vm_check "the marker is gone" test ! -e /run/numaplan/unplaced
systemctl reset-failed $LLAMA
vm_check "the replica starts" systemctl start $LLAMA
wait_ready 8080 120 && vm_ok "and serves" || vm_not_ok "and serves"
vm_done

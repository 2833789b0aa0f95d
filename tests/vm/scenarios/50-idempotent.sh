#!/bin/bash
# A second apply and apply --check find nothing to do, touch no file and cause no reload; a real
# change does reload (the control that shows the reload detector works).
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
dropin=$UNITS/$LLAMA.d/50-numaplan.conf
before=$(stat -c '%i %Y.%y' "$dropin")
reload=$(last_reload)
out=$("$NUMAPLAN" apply --json)
vm_check_eq "a second apply exits 0" "$?" 0
flat=$(json_flat <<<"$out")
vm_check_eq "a second apply: changed false" "$(json_get changed <<<"$flat")" false
vm_check_eq "a second apply: unchanged" "$(json_get units.0.action <<<"$flat")" unchanged
"$NUMAPLAN" apply --check >/dev/null 2>&1
vm_check_eq "apply --check: in sync (exit 0)" "$?" 0
vm_check_eq "the drop-in was not touched (inode, mtime)" "$(stat -c '%i %Y.%y' "$dropin")" "$before"
vm_check_eq "systemd was not reloaded" "$(last_reload)" "$reload"

sed -i 's/^memory = 256M/memory = 300M/' "$CONF"
"$NUMAPLAN" apply --check >/dev/null 2>&1
vm_check_eq "after a change, apply --check: pending (exit 1)" "$?" 1
vm_check_eq "apply --check did not reload" "$(last_reload)" "$reload"
"$NUMAPLAN" apply >/dev/null 2>&1
if [ "$(last_reload)" != "$reload" ]; then vm_ok "a changing apply reloads systemd"; else
	vm_not_ok "a changing apply reloads systemd"; fi
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
vm_done

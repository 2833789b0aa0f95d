#!/bin/bash
# A configuration broken before a reboot: the generator keeps the replica from starting and the
# journal says why; the rest boots. Fixed, apply (in generator mode) reloads and it starts pinned.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
GEN=/run/systemd/generator

case $VM_PHASE in
before-reboot)
	llama_conf
	printf 'bogus-key = 1\n' >>"$CONF"
	;;
after-reboot)
	vm_check_match "the replica did not start" "$(systemctl is-active $LLAMA)" "inactive|failed"
	vm_check_eq "its assertion failed" "$(systemctl show -P AssertResult $LLAMA)" no
	vm_check "no marker" test ! -e "$GEN/.numaplan/applied"
	log=$(journalctl -b -o cat -t numaplan-generator)
	vm_check_match "the journal names file and line" "$log" "$CONF:[0-9]+: .*bogus-key"
	vm_check_match "and the unit kept from starting" "$log" "no placement at this boot: $LLAMA kept from starting"
	vm_check "the drop-in says why" grep -q "bogus-key" "$GEN/$LLAMA.d/50-numaplan.conf"
	llama_conf
	vm_check "fixed: apply in generator mode" "$NUMAPLAN" apply
	vm_check "the generator's marker is back" test -f "$GEN/.numaplan/applied"
	vm_check "apply wrote nothing persistent" test ! -e "$UNITS/$LLAMA.d/50-numaplan.conf"
	systemctl start $LLAMA
	vm_check_eq "the replica starts" "$(systemctl is-active $LLAMA)" active
	pid=$(systemctl show -P MainPID $LLAMA)
	vm_check_eq "pinned to node 1's CPUs" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 2-3
	;;
esac
vm_done

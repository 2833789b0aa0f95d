#!/bin/bash
# Reboot with only numaplan-generator installed (a copy of the binary in
# /etc/systemd/system-generators/) and numaplan.service disabled: the replica comes up pinned with
# the generator's drop-in, verify passes, and systemd never reloaded on the boot path.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
GEN=/run/systemd/generator

case $VM_PHASE in
before-reboot)
	llama_conf
	systemctl disable numaplan.service 2>/dev/null
	"$NUMAPLAN" remove >/dev/null
	install -D -m 0755 "$NUMAPLAN" /etc/systemd/system-generators/numaplan-generator
	vm_check "the replica is wanted at boot" systemctl add-wants "$VM_TARGET" $LLAMA
	vm_check "no drop-in of apply's before the reboot" test ! -e "$UNITS/$LLAMA.d/50-numaplan.conf"
	;;
after-reboot)
	vm_check_eq "numaplan.service did not run" "$(systemctl show -P ExecMainStartTimestampMonotonic numaplan.service)" 0
	vm_check "the generator wrote the drop-in" test -f "$GEN/$LLAMA.d/50-numaplan.conf"
	vm_check "and its marker" test -f "$GEN/.numaplan/applied"
	vm_check_match "systemd loaded it" "$(systemctl show -P DropInPaths $LLAMA)" "$GEN/$LLAMA.d/50-numaplan.conf"
	reloads=$(journalctl -b -o cat _PID=1 | grep -c '^Reloading')
	vm_check_eq "no daemon-reload on the boot path" "$reloads" 0
	vm_check_match "the journal has the generator's line" "$(journalctl -b -o cat -t numaplan-generator)" "placed 1 replica"
	vm_check_eq "the replica started at boot" "$(systemctl is-active $LLAMA)" active
	pid=$(systemctl show -P MainPID $LLAMA)
	vm_check_eq "pinned to node 1's CPUs from its start" "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status")" 2-3
	wait_ready 8080 180 || vm_not_ok "the replica serves"
	verify_json $LLAMA
	vm_check_eq "verify passes with no manual step and no reload" "$(json_get ok <<<"$FLAT")" true || show_failures "$FLAT"
	vm_check "status: the generator's drop-in in effect" "$NUMAPLAN" status
	# The generator's lines came through the kernel log; verify's verdict is the replica's entry.
	# The replica's own ExecStartPre= (prepare, which names the server's adapters) runs the
	# generator's binary too, under its name, in the unit: that one is the unit's output, not the
	# generator's.
	seen=$(journalctl -b SYSLOG_IDENTIFIER=numaplan-generator + "NUMAPLAN_UNIT=$LLAMA" -o export \
		--output-fields=SYSLOG_IDENTIFIER,_TRANSPORT,NUMAPLAN_OUTCOME,_SYSTEMD_UNIT 2>/dev/null | awk -F= '
		$1 == "SYSLOG_IDENTIFIER" { who = $2 } $1 == "_TRANSPORT" { how = $2 } $1 == "NUMAPLAN_OUTCOME" { out = $2 }
		$1 == "_SYSTEMD_UNIT" { unit = $2 }
		/^$/ { if (who != "" && !(who == "numaplan-generator" && how == "stdout" && unit != "")) print who "/" how "/" out
		       who = how = out = unit = "" }' | sort -u | tr '\n' ' ')
	vm_check_eq "the generator keeps to the kernel log; verify's verdict is in the journal" "$seen" \
		"numaplan-generator/kernel/ numaplan/journal/ok "
	g0=$(systemctl show -P GeneratorsStartTimestampMonotonic)
	g1=$(systemctl show -P GeneratorsFinishTimestampMonotonic)
	t0=${EPOCHREALTIME/[.,]/}
	for _ in 1 2 3 4 5; do
		rm -rf /tmp/gen-bench && mkdir /tmp/gen-bench
		/etc/systemd/system-generators/numaplan-generator /tmp/gen-bench /tmp/gen-bench /tmp/gen-bench 2>/dev/null
	done
	t1=${EPOCHREALTIME/[.,]/}
	cmp -s /tmp/gen-bench/$LLAMA.d/50-numaplan.conf "$GEN/$LLAMA.d/50-numaplan.conf" ||
		vm_diag "(the by-hand run names another marker: its own directory)"
	vm_diag "figure: generator boot: all generators $(((${g1:-0} - ${g0:-0}) / 1000)) ms, numaplan-generator by hand $(((t1 - t0) / 5000)) ms a run, reloads on the boot path: $reloads, replica started at $(($(systemctl show -P ExecMainStartTimestampMonotonic $LLAMA) / 1000)) ms"
	;;
esac
vm_done

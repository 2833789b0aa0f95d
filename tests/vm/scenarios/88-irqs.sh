#!/bin/bash
# irq-affinity = yes: apply steers the message-signalled interrupts of the replica's adapter
# (0000:42:00.0, beside its display on node 1) to its CPUs 2-3, and restarts the running irqbalance
# with --banirq= for each; irqbalance running 30 s at --interval=2 (some 15 passes) leaves them
# there, while it moves the other node's adapter's, which were set by hand and not banned (as it
# did before apply, alone); remove
# gives them back; verify fails the replica once one is moved to node 0 by hand, naming it, and
# remove then leaves that one where the hand put it. Each
# interrupt's CPUs (set/served) are noted before, after apply, after irqbalance and after remove.
# The guest is left as found: irqbalance stopped, /etc/default/irqbalance and every interrupt as
# they were.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

NIC1=0000:42:00.0
NIC0=0000:22:00.0
DEFAULTS=/etc/default/irqbalance

irqs_of() { # irqs_of PCI: its message-signalled interrupts
	ls "/sys/bus/pci/devices/$1/msi_irqs" 2>/dev/null | sort -n | tr '\n' ' '
}
set_of() { cat "/proc/irq/$1/smp_affinity_list"; }
note() { # note WHEN: each interrupt's CPUs, set/served, as a diagnostic
	local line="$1:" q
	for q in $(irqs_of $NIC1); do line+=" $q($NIC1) $(set_of "$q")/$(cat "/proc/irq/$q/effective_affinity_list")"; done
	for q in $(irqs_of $NIC0); do line+=" $q($NIC0) $(set_of "$q")/$(cat "/proc/irq/$q/effective_affinity_list")"; done
	vm_diag "$line"
}
all_set_to() { # all_set_to CPUS IRQ...: each interrupt is set to CPUS
	local q want=$1
	shift
	for q in "$@"; do [ "$(set_of "$q")" = "$want" ] || return 1; done
}
ib_pid() { systemctl show -P MainPID irqbalance.service; }

read -ra nic1 <<<"$(irqs_of $NIC1)"
read -ra nic0 <<<"$(irqs_of $NIC0)"
vm_check_eq "the replica's adapter has 3 message-signalled interrupts" "${#nic1[@]}" 3
declare -A original
for q in "${nic1[@]}" "${nic0[@]}"; do original[$q]=$(set_of "$q"); done
vm_diag "the displays' interrupts: 0000:41:00.0 msi_irqs '$(irqs_of 0000:41:00.0)' irq $(cat /sys/bus/pci/devices/0000:41:00.0/irq)," \
	"0000:21:00.0 msi_irqs '$(irqs_of 0000:21:00.0)' irq $(cat /sys/bus/pci/devices/0000:21:00.0/irq)"
note before
flat=$("$NUMAPLAN" show --json | json_flat)
vm_check_eq "show reports the adapter's interrupts" "$(json_count nics.1.interrupts <<<"$flat")/$(json_get nics.1.pci <<<"$flat")" \
	"3/$NIC1"

make_model
make_replica_unit $LLAMA 8080 "$MODEL"
llama_conf
printf 'irq-affinity = yes\n' >>"$CONF"

# irqbalance as an admin runs it, faster: it reads IRQBALANCE_ARGS from its defaults file. Its
# first pass, 2 s after it starts, places every interrupt, those set by hand included.
cp -p "$DEFAULTS" /tmp/irqbalance.defaults
echo 'IRQBALANCE_ARGS="--interval=2"' >>"$DEFAULTS"
for q in "${nic0[@]}"; do echo 2-3 >"/proc/irq/$q/smp_affinity_list"; done
systemctl start irqbalance.service
pid0=$(ib_pid)
sleep 4
moved=0
for q in "${nic0[@]}"; do [ "$(set_of "$q")" = 2-3 ] || moved=$((moved + 1)); done
vm_diag "irqbalance alone, 4 s: it moved $moved of the other adapter's ${#nic0[@]} interrupts set to 2-3 by hand"
note "irqbalance alone"
declare -A before
for q in "${nic1[@]}"; do before[$q]=$(set_of "$q"); done
out=$("$NUMAPLAN" apply --json 2>/tmp/apply.err)
rc=$?
flat=$(json_flat <<<"$out")
vm_check_eq "apply exits 0" "$rc" 0 || vm_diag "$(cat /tmp/apply.err)"
vm_check "the adapter's interrupts are set to the replica's CPUs 2-3" all_set_to 2-3 "${nic1[@]}"
vm_check_eq "apply's JSON: 3 steered" "$(grep -c '^interrupts\.[0-9]*\.action	steered$' <<<"$flat")" 3
recorded=0
for q in "${nic1[@]}"; do grep -qx "$q $NIC1 ${before[$q]} 2-3" /run/numaplan/irqs && recorded=$((recorded + 1)); done
vm_check_eq "the record holds each, with what it was set to before" "$recorded" 3 || vm_diag "$(cat /run/numaplan/irqs)"
pid1=$(ib_pid)
cmdline=$(tr '\0' ' ' <"/proc/$pid1/cmdline")
vm_check_match "apply restarted the running irqbalance, which bans them and keeps IRQBALANCE_ARGS" "$cmdline" \
	"^[^ ]*irqbalance --foreground --interval=2 --banirq=${nic1[0]} --banirq=${nic1[1]} --banirq=${nic1[2]} *\$"
[ "$pid1" != "$pid0" ] && vm_ok "as a new process" || vm_not_ok "as a new process" "pid $pid0 -> $pid1"
vm_diag "irqbalance: $cmdline; $(grep 'restarted' /tmp/apply.err)"
note "after apply"

for q in "${nic0[@]}"; do echo 2-3 >"/proc/irq/$q/smp_affinity_list"; done # by hand again, not banned
sleep 30
vm_check_eq "irqbalance still runs, the same process" "$(ib_pid)" "$pid1"
vm_check "30 s of irqbalance (--interval=2) leave the banned ones on 2-3" all_set_to 2-3 "${nic1[@]}"
moved=0
for q in "${nic0[@]}"; do [ "$(set_of "$q")" = 2-3 ] || moved=$((moved + 1)); done
vm_diag "in those 30 s irqbalance moved $moved of the other adapter's ${#nic0[@]} interrupts set to 2-3 by hand (not banned)"
note "after irqbalance"
verify_json --no-warmup $LLAMA
vm_check_eq "verify: irq-locality passes" "$(check_of "$FLAT" 0 irq-locality ok)" true ||
	vm_diag "$(check_of "$FLAT" 0 irq-locality detail)"

# remove, irqbalance running with its defaults again (a first pass 10 s after it starts)
cp -p /tmp/irqbalance.defaults "$DEFAULTS"
out=$("$NUMAPLAN" remove --json 2>/tmp/remove.err)
flat=$(json_flat <<<"$out")
restored=0
for q in "${nic1[@]}"; do [ "$(set_of "$q")" = "${before[$q]}" ] && restored=$((restored + 1)); done
vm_check_eq "remove gives each back what it was set to before apply" "$restored" 3
vm_check_eq "remove's JSON: 3 restored" "$(grep -c '^interrupts\.[0-9]*\.action	restored$' <<<"$flat")" 3
vm_check_match "and restarted irqbalance without the bans" "$(tr '\0' ' ' <"/proc/$(ib_pid)/cmdline")" '^[^ ]*irqbalance --foreground *$'
vm_check "the record is gone" test ! -e /run/numaplan/irqs
note "after remove"
systemctl stop irqbalance.service

# verify fails a replica whose adapter's interrupt was moved to the other node by hand
"$NUMAPLAN" apply >/dev/null 2>&1
systemctl start $LLAMA
wait_ready 8080 60 || vm_not_ok "the replica serves"
echo 0-1 >"/proc/irq/${nic1[1]}/smp_affinity_list"
verify_json --no-warmup $LLAMA
vm_check_eq "verify fails" "$VERIFY_RC" 1
vm_check_eq "irq-locality fails: 1 of 3 outside" "$(check_of "$FLAT" 0 irq-locality got)" "1 of 3 outside"
vm_check_match "naming the interrupt, where it is set and served" "$(check_of "$FLAT" 0 irq-locality detail)" \
	"^IRQ ${nic1[1]} of $NIC1 is set to CPUs 0-1 \(served by [0-3]+\), outside 2-3"
vm_check_eq "and it is the only check that fails" "$(grep -c '^units\.0\.checks\.[0-9]*\.ok	false$' <<<"$FLAT")" 1
vm_diag "irq-locality: $(check_of "$FLAT" 0 irq-locality detail)"
systemctl stop $LLAMA
"$NUMAPLAN" remove >/dev/null 2>/tmp/remove.err
vm_check_match "remove leaves the one moved since apply, and says so" "$(cat /tmp/remove.err)" \
	"IRQ ${nic1[1]} of $NIC1 is set to CPUs 0-1, not the 2-3 numaplan set: changed since"
restored=0
for q in "${nic1[@]}"; do [ "$(set_of "$q")" = "${before[$q]}" ] && restored=$((restored + 1)); done
vm_check_eq "and gives the other two back" "$restored" 2

# as found: what irqbalance, and this scenario's hands, changed set back
for q in "${nic1[@]}" "${nic0[@]}"; do echo "${original[$q]}" >"/proc/irq/$q/smp_affinity_list"; done
back=0
for q in "${nic1[@]}" "${nic0[@]}"; do [ "$(set_of "$q")" = "${original[$q]}" ] && back=$((back + 1)); done
vm_check_eq "every interrupt is set as the guest had it" "$back" $((${#nic1[@]} + ${#nic0[@]}))
vm_check_eq "irqbalance is stopped" "$(systemctl is-active irqbalance.service)" inactive
llama_conf
vm_done

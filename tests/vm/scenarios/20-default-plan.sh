#!/bin/bash
# The built-in default plan on this topology: no configuration, no compute accelerator (both
# display devices are QEMU's), so one replica per node with CPUs.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

rm -rf /etc/numaplan
flat=$("$NUMAPLAN" show --json | json_flat)
vm_check_eq "show: two nodes" "$(json_count nodes <<<"$flat")" 2
vm_check_eq "show: node 1's CPUs" "$(json_get nodes.1.cpus <<<"$flat")" 2-3
vm_check_eq "show: distance 0 -> 1" "$(json_get nodes.0.distances.1 <<<"$flat")" 21
vm_check_eq "show: the VGA behind node 1's expander is on node 1" "$(json_get accelerators.1.numa_node <<<"$flat")" 1
vm_check_eq "show: ... by numa_node" "$(json_get accelerators.1.numa_source <<<"$flat")" numa_node
vm_check_eq "show: QEMU's display is not a compute accelerator" "$(json_get accelerators.1.compute <<<"$flat")" false

flat=$("$NUMAPLAN" plan --json | json_flat)
vm_check_eq "default plan: one replica per node" "$(json_count replicas <<<"$flat")" 2
for i in 0 1; do
	vm_check_eq "default plan: inference-$i is inference@$i.service" "$(json_get replicas.$i.unit <<<"$flat")" "inference@$i.service"
	vm_check_eq "default plan: inference-$i on node $i" "$(json_get replicas.$i.nodes.0 <<<"$flat")" "$i"
	vm_check_eq "default plan: inference-$i bound" "$(json_get replicas.$i.policy <<<"$flat")" bind
	vm_check_eq "default plan: inference-$i with CPUAffinity=numa" "$(json_get replicas.$i.cpu_affinity <<<"$flat")" numa
done
vm_check_eq "default plan: node 0's CPUs" "$(json_get replicas.0.cpus <<<"$flat")" 0-1
vm_check_eq "default plan: node 1's CPUs" "$(json_get replicas.1.cpus <<<"$flat")" 2-3
"$NUMAPLAN" apply --check >/dev/null 2>&1
vm_check_eq "apply --check: changes pending (exit 1)" "$?" 1
vm_check "apply --check wrote nothing" test ! -e "$UNITS/inference@0.service.d"
vm_done

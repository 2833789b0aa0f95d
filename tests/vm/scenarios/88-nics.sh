#!/bin/bash
# The nearest adapter: the guest has a virtio network adapter on each node's expander (0000:22:00.0,
# enp34s0, node 0; 0000:42:00.0, ens1, node 1), each interface below virtioN/net/, and soft-RoCE
# (rxe0) is put on ens1. show names both interfaces and rxe0; a replica per node (per = node)
# gets its node's adapter (nics = auto), and the variables prepare writes at its start reach the
# server's environment: NCCL_IB_HCA with rxe0 on node 1 only. Also: udev renames the interfaces
# after sysinit.target, after numaplan.service and the generator run, which is why the names are
# the start's. Leaves the guest as it found it: no rxe link, ens1 down, rdma_rxe unloaded, the
# units and the variables' files gone, numaplan's configuration llama_conf's.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

TEMPLATE=nic@.service
had_llama=no
[ -e "$UNITS/$LLAMA.d/50-numaplan.conf" ] && had_llama=yes
t0=$SECONDS

cleanup() {
	systemctl stop nic@0.service nic@1.service 2>/dev/null
	rm -f "$UNITS/$TEMPLATE"
	rdma link delete rxe0 2>/dev/null
	ip link set ens1 down 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	"$NUMAPLAN" remove >/dev/null 2>&1
	rm -rf /run/numaplan/nics
	llama_conf
	[ "$had_llama" = yes ] && "$NUMAPLAN" apply >/dev/null 2>&1
	systemctl daemon-reload
}
trap cleanup EXIT

# When udev names the interfaces at boot, against when numaplan's boot steps run.
renamed=$(journalctl -b -o short-monotonic -k --grep 'renamed from eth' 2>/dev/null | sed -n 's/^\[ *\([0-9.]*\)\].* \([^ ]*\): renamed from \(eth[0-9]*\).*/\2 at \1 s (was \3)/p' | tr '\n' ';')
sysinit=$(journalctl -b -o short-monotonic _PID=1 --grep 'Reached target sysinit.target' 2>/dev/null | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' | head -n 1)
vm_diag "figure: boot: sysinit.target at ${sysinit:-?} s; interfaces renamed by udev: ${renamed:-none seen}"

modprobe rdma_rxe && ip link set ens1 up && rdma link add rxe0 type rxe netdev ens1
vm_check_eq "soft-RoCE rxe0 on ens1" "$(cat /sys/class/infiniband/rxe0/parent 2>&1)" ens1

flat=$("$NUMAPLAN" show --json | json_flat)
nic_of() { # nic_of PCI: the index of that adapter in show's document
	awk -F '\t' -v pci="$1" '$1 ~ /^nics\.[0-9]+\.pci$/ && $2 == pci { split($1, p, "."); print p[2]; exit }' <<<"$flat"
}
n0=$(nic_of 0000:22:00.0)
n1=$(nic_of 0000:42:00.0)
vm_check_eq "show: node 0's virtio adapter by its interface below virtio3/net/" "$(json_get "nics.$n0.interface" <<<"$flat")" enp34s0
vm_check_eq "show: node 1's, ens1, with rxe0 tied by its interface" \
	"$(json_get "nics.$n1.interface" <<<"$flat") $(json_get "nics.$n1.rdma_devices.0.name" <<<"$flat") $(json_get "nics.$n1.rdma_devices.0.via" <<<"$flat")" \
	"ens1 rxe0 netdev"
vm_check_eq "show: their nodes" "$(json_get "nics.$n0.numa_node" <<<"$flat") $(json_get "nics.$n1.numa_node" <<<"$flat")" "0 1"

cat >"$UNITS/$TEMPLATE" <<'UNIT'
[Unit]
Description=numaplan's adapter test, replica %i

[Service]
ExecStart=/bin/sleep 600
UNIT
write_conf "[numaplan]
headroom = 10%

[replicas nic]
unit = nic@%i.service
per = node
memory = 64M"
flat=$("$NUMAPLAN" plan --json | json_flat)
vm_check_eq "plan: nic-0 gets node 0's adapter, nic-1 node 1's (nics = auto, CPU-only replicas: their node's)" \
	"$(json_get replicas.0.nics.adapters.0.pci <<<"$flat") $(json_get replicas.0.nics.adapters.0.interface <<<"$flat") $(json_get replicas.1.nics.adapters.0.pci <<<"$flat") $(json_get replicas.1.nics.adapters.0.interface <<<"$flat") $(json_count replicas.1.nics.adapters <<<"$flat")" \
	"0000:22:00.0 enp34s0 0000:42:00.0 ens1 1"
vm_check "apply" "$NUMAPLAN" apply
vm_check_match "nic@1's drop-in hands its adapter to prepare and reads what prepare writes" \
	"$(grep -E '^(EnvironmentFile|ExecStartPre)=' "$UNITS/nic@1.service.d/50-numaplan.conf" | tr '\n' ' ')" \
	'^EnvironmentFile=-/run/numaplan/nics/%n ExecStartPre=-\+"[^"]*" prepare --nodes 1 --nics "0000:42:00.0" --nics-env "/run/numaplan/nics/%n" $'
journal_mark
systemctl start nic@0.service nic@1.service
env_of() { # env_of UNIT: its server's environment, a variable a line, once it runs the server
	local pid deadline=$((SECONDS + $(vm_seconds 10)))
	pid=$(systemctl show -P MainPID "$1")
	# A simple service is started once forked: until its exec it has the manager's environment.
	while [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != sleep ] && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
	tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -E '^(NUMAPLAN_NICS|NCCL_|GLOO_|UCX_)' | sort
}
e0=$(env_of nic@0.service)
e1=$(env_of nic@1.service)
vm_check_eq "nic@0's server: node 0's interface, no RDMA, the interface for UCX" "$e0" "GLOO_SOCKET_IFNAME=enp34s0
NCCL_SOCKET_IFNAME==enp34s0
NUMAPLAN_NICS=enp34s0
UCX_NET_DEVICES=enp34s0"
vm_check_eq "nic@1's server: ens1, and soft-RoCE in NCCL_IB_HCA and UCX_NET_DEVICES" "$e1" "GLOO_SOCKET_IFNAME=ens1
NCCL_IB_HCA==rxe0
NCCL_SOCKET_IFNAME==ens1
NUMAPLAN_NICS=ens1
UCX_NET_DEVICES=rxe0:1"
vm_check_eq "systemctl show: nic@1 reads the file prepare wrote" "$(systemctl show -P EnvironmentFiles nic@1.service)" \
	"/run/numaplan/nics/nic@1.service (ignore_errors=yes)"
vm_check_match "prepare said what it found, in the unit's journal" "$(unit_said nic@1.service 'named to the server')" \
	"network adapters ens1 \(0000:42:00.0; RDMA rxe0\): named to the server in /run/numaplan/nics/nic@1.service"
vm_check "status: both drop-ins in effect" "$NUMAPLAN" status nic@0.service nic@1.service
vm_diag "figure: nic@0 $(tr '\n' ' ' <<<"$e0"); nic@1 $(tr '\n' ' ' <<<"$e1"); udev's record of ens1: $(ls /run/udev/data/n"$(cat /sys/class/net/ens1/ifindex)" 2>&1)"
cleanup
trap - EXIT
vm_check_eq "left as found: no RDMA device, rdma_rxe unloaded, ens1 down, no variables' files" \
	"$(ls /sys/class/infiniband 2>/dev/null | wc -l) $(grep -c '^rdma_rxe ' /proc/modules) $(cat /sys/class/net/ens1/operstate) $(ls /run/numaplan/nics 2>/dev/null | wc -l)" \
	"0 0 down 0"
vm_diag "figure: guest time $((SECONDS - t0)) s"
vm_done

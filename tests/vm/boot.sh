#!/bin/bash
# Boots the end-to-end tier's guest once (see build-image.sh) with two NUMA nodes and a display
# device on each node's PCI expander, and waits until it powers off or a timeout kills it.
#
# Usage: tests/vm/boot.sh [options] IMAGE_DIR SHARE_DIR
#   IMAGE_DIR          what build-image.sh printed
#   SHARE_DIR          host directory shared with the guest as 9p tag host0 (/mnt/host there); the
#                      guest runs its guest-run.sh and then powers off
#   --disk FILE        boot this disk (a qcow2 overlay or a raw copy of IMAGE_DIR/root.ext4) and keep
#                      what the guest writes; default: IMAGE_DIR/root.ext4 with snapshot=on
#   --log FILE         serial console to FILE (default: this script's stdout)
#   --boot-timeout S   kill QEMU if the guest's runner has not started after S s (default 300;
#                      needs --log, as it watches the console for the runner's start marker)
#   --timeout S        kill QEMU after S s in all (default 1800)
#
# A file named swap-pci-nodes in SHARE_DIR (a scenario writes $SHARE/swap-pci-nodes before a reboot)
# puts the two expanders on each other's node for this boot: VGA on node 0, bochs-display on node
# 1, at the same PCI addresses, as if the device had been moved to the other socket.
#
# Environment: VM_ACCEL (default tcg, with a translation cache of 256 MiB: below; kvm where
# /dev/kvm really works), VM_CPU (default: qemu's default model under tcg, host under kvm), VM_QEMU
# (default qemu-system-x86_64), VM_APPEND (more kernel arguments), VM_QEMU_ARGS (more QEMU
# arguments, split on spaces).
#
# Exit status: 0 the guest ran its runner to the end and powered off; 3 QEMU failed or the guest
# stopped without the runner's end marker; 124 a timeout killed QEMU; 2 bad usage.
# The last line on stderr says how long the boot took.
set -u

usage() {
	sed -n '2,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2
	exit 2
}
disk=
log=
boot_timeout=300
timeout=1800
while [ $# -gt 0 ]; do
	case $1 in
	--disk) disk=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--boot-timeout) boot_timeout=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
img=$1
share=$2
for f in vmlinux initrd.img root.ext4 cmdline; do
	[ -f "$img/$f" ] || { echo "boot.sh: $img/$f is missing (run build-image.sh)" >&2; exit 2; }
done
[ -d "$share" ] || { echo "boot.sh: $share is not a directory" >&2; exit 2; }

accel=${VM_ACCEL:-tcg}
# Under TCG, QEMU 7.2 keeps its translations of guest code until its translation cache (1 GiB by
# default) fills: a page whose code ran keeps them after the guest freed it (a program dropped from
# the page cache, a page migrated), and the guest's next writes into it, as data, throw them away
# one at a time, each time flushing every vCPU's jump cache. Writing 32 MiB on node 1 took 20-49 s
# after the scenarios up to 70 (0.2 s on fresh memory), whoever wrote it: numaplan prepare, a
# replica, dd. A cache of 256 MiB fills within minutes and is flushed whole, stale translations
# with it: the same writes then took 0.2 s.
accel_opts=$accel
[ "$accel" = tcg ] && accel_opts=tcg,tb-size=256
qemu=${VM_QEMU:-qemu-system-x86_64}
cpu=()
if [ -n "${VM_CPU:-}" ]; then
	cpu=(-cpu "$VM_CPU")
elif [ "$accel" = kvm ]; then
	cpu=(-cpu host)
fi

if [ -n "$disk" ]; then
	case $disk in
	*.qcow2) fmt=qcow2 ;;
	*) fmt=raw ;;
	esac
	drive="if=none,id=root,file=$disk,format=$fmt,cache=unsafe,discard=unmap"
else
	drive="if=none,id=root,file=$img/root.ext4,format=raw,snapshot=on,cache=unsafe"
fi
if [ -n "$log" ]; then
	: >"$log"
	serial=(-serial "file:$log")
else
	serial=(-serial stdio)
fi

# Topology: node 0 = CPUs 0-1 + 1 GiB, node 1 = CPUs 2-3 + 1 GiB, distance 21. PCI: expander
# pxb1 (numa_node=1, buses 0x40..) -> root port -> VGA (class 0x030000); expander pxb0
# (numa_node=0, buses 0x20..) -> root port -> bochs-display (0x038000). Both vendor 0x1234. Every
# other device sits on pcie.0 explicitly (QEMU would otherwise try the expanders). Beside each
# display, on a root port of its own under the same expander, a virtio network adapter: one on
# each node, as a host's NICs sit beside its accelerators. Their networks lead nowhere (QEMU's
# user network, restricted): what the guest sees is the adapter, its interface and its interrupts.
node_pxb0=0 node_pxb1=1
[ -e "$share/swap-pci-nodes" ] && node_pxb0=1 node_pxb1=0
# shellcheck disable=SC2054,SC2206 # commas inside QEMU arguments; VM_QEMU_ARGS split on purpose
args=(
	-accel "$accel_opts" "${cpu[@]}"
	-machine q35 -m 2G -smp 4,sockets=2,cores=2,threads=1
	-object memory-backend-ram,id=m0,size=1G -numa node,nodeid=0,cpus=0-1,memdev=m0
	-object memory-backend-ram,id=m1,size=1G -numa node,nodeid=1,cpus=2-3,memdev=m1
	-numa dist,src=0,dst=1,val=21
	-device pxb-pcie,id=pxb0,bus_nr=32,numa_node=$node_pxb0,bus=pcie.0
	-device pcie-root-port,id=rp0,bus=pxb0,chassis=10,slot=0
	-device bochs-display,bus=rp0
	-device pxb-pcie,id=pxb1,bus_nr=64,numa_node=$node_pxb1,bus=pcie.0
	-device pcie-root-port,id=rp1,bus=pxb1,chassis=11,slot=0
	-device VGA,bus=rp1
	-netdev user,id=net0,restrict=on -device pcie-root-port,id=rp0n,bus=pxb0,chassis=12,slot=1
	-device virtio-net-pci,netdev=net0,bus=rp0n,mac=52:54:00:00:00:10
	-netdev user,id=net1,restrict=on -device pcie-root-port,id=rp1n,bus=pxb1,chassis=13,slot=1
	-device virtio-net-pci,netdev=net1,bus=rp1n,mac=52:54:00:00:00:11
	-drive "$drive" -device virtio-blk-pci,drive=root,bus=pcie.0
	-fsdev "local,id=fs0,path=$share,security_model=none"
	-device virtio-9p-pci,fsdev=fs0,mount_tag=host0,bus=pcie.0
	-kernel "$img/vmlinux" -initrd "$img/initrd.img"
	-append "$(cat "$img/cmdline") ${VM_APPEND:-}"
	-nographic "${serial[@]}" -monitor none -no-reboot -nodefaults
	${VM_QEMU_ARGS:-}
)

now() { echo "${EPOCHREALTIME/[.,]/}"; }
secs() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1e6 }'; }

pid=
# shellcheck disable=SC2317
on_signal() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	exit 130
}
trap on_signal INT TERM

t0=$(now)
if [ -n "$log" ]; then
	"$qemu" "${args[@]}" </dev/null 2>"$log.qemu-stderr" &
else
	"$qemu" "${args[@]}" </dev/null &
fi
pid=$!

started=
result=
while kill -0 "$pid" 2>/dev/null; do
	el=$(($(now) - t0))
	if [ -z "$started" ] && [ -n "$log" ] && grep -qa 'NUMAPLAN-VM: runner start' "$log"; then
		started=$el
	fi
	if [ $el -ge $((timeout * 1000000)) ]; then
		result="timeout: killed after ${timeout} s"
	elif [ -z "$started" ] && [ -n "$log" ] && [ $el -ge $((boot_timeout * 1000000)) ]; then
		result="timeout: the runner had not started after ${boot_timeout} s"
	fi
	if [ -n "$result" ]; then
		kill "$pid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null
		break
	fi
	sleep 0.25
done
wait "$pid"
qrc=$?
pid=
t1=$(now)
if [ -n "$log" ] && [ -z "$started" ] && grep -qa 'NUMAPLAN-VM: runner start' "$log"; then
	started=$((t1 - t0))
fi

status=0
if [ -n "$result" ]; then
	status=124
elif [ $qrc -ne 0 ]; then
	result="QEMU exited with status $qrc"
	[ -n "$log" ] && [ -s "$log.qemu-stderr" ] && result+=": $(tail -n 3 "$log.qemu-stderr" | tr '\n' ' ')"
	status=3
elif [ -n "$log" ] && ! grep -qa 'NUMAPLAN-VM: runner end' "$log"; then
	result="the guest powered off without the runner's end marker"
	status=3
else
	result="powered off"
fi
msg="boot: $(secs $((t1 - t0))) s wall"
[ -n "$started" ] && msg+=", runner started at $(secs "$started") s"
echo "$msg; $result (accel $accel)" >&2
exit $status

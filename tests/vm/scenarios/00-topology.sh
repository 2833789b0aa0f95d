#!/bin/bash
# Smoke test of the guest itself: systemd 252 as PID 1, cgroup v2 with cpuset, two NUMA nodes at
# distance 21, a display device on each node as numaplan sees it, and the sysfs bind-mount trick that
# makes the node-1 device look like an NVIDIA H200 (0x10de:0x2335, class 0x030200: its modalias, and
# the class, vendor and device files a capture without modalias is read from).
# shellcheck source=tests/vm/scenario-lib.sh
. "$VM_LIB"

vm_check_eq "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
vm_check_match "systemd is version 252" "$(systemctl --version | head -n 1)" '^systemd 252[ .]'
vm_check_eq "cgroup2 is mounted on /sys/fs/cgroup" "$(stat -f -c %T /sys/fs/cgroup)" cgroup2fs
vm_check_match "the cpuset controller is available" " $(cat /sys/fs/cgroup/cgroup.controllers) " ' cpuset '

node=/sys/devices/system/node
vm_check_eq "two NUMA nodes online" "$(cat $node/online)" 0-1
vm_check_eq "node 0 has CPUs 0-1" "$(cat $node/node0/cpulist)" 0-1
vm_check_eq "node 1 has CPUs 2-3" "$(cat $node/node1/cpulist)" 2-3
vm_check_eq "node 0 distances" "$(cat $node/node0/distance)" "10 21"
vm_check_eq "node 1 distances" "$(cat $node/node1/distance)" "21 10"

# shellcheck disable=SC2317 # called through vm_check
show() { # show FLATFILE: numaplan show --json, flattened
	local json rc
	json=$("$NUMAPLAN" show --json 2>"$1.err")
	rc=$?
	printf '%s\n' "$json" | json_flat >"$1"
	return "$rc"
}

vm_check "numaplan show --json succeeds" show before.flat
[ -s before.err ] && vm_diag "numaplan stderr: $(cat before.err)"
vm_check_eq "numaplan reports 2 nodes" "$(json_count nodes <before.flat)" 2
vm_check_eq "numaplan reports distance 21 from node 0 to node 1" "$(json_get nodes.0.distances.1 <before.flat)" 21

accel_on() { # accel_on NODE: index of the (first) accelerator numaplan places on NODE
	awk -F '\t' -v node="$1" '$1 ~ /^accelerators\.[0-9]+\.numa_node$/ && $2 == node {
		split($1, p, "."); print p[2]; exit }' before.flat
}
i1=$(accel_on 1)
i0=$(accel_on 0)
vm_check_eq "numaplan reports 2 accelerators" "$(json_count accelerators <before.flat)" 2
if [ -n "$i1" ]; then
	vm_ok "an accelerator on node 1"
	vm_check_eq "its numa_source is numa_node" "$(json_get "accelerators.$i1.numa_source" <before.flat)" numa_node
	vm_check_eq "its vendor is 0x1234" "$(json_get "accelerators.$i1.vendor" <before.flat)" 0x1234
	vm_check_match "its class is a display controller" "$(json_get "accelerators.$i1.class" <before.flat)" '^0x03'
else
	vm_not_ok "an accelerator on node 1" "$(cat before.flat)"
fi
if [ -n "$i0" ]; then
	vm_ok "an accelerator on node 0"
	vm_check_eq "its numa_source is numa_node" "$(json_get "accelerators.$i0.numa_source" <before.flat)" numa_node
else
	vm_not_ok "an accelerator on node 0" "$(cat before.flat)"
fi

# The PCIe links as the guest sees them: QEMU's PCI Express devices behind a pcie-root-port have
# link files and a PCI Express capability; a conventional PCI device has neither. MaxReadReq as
# lspci reads it as root; a user gets only 64 bytes of config space, and no sizes. Few processes:
# each costs ~0.1 s here.
pcie() { # pcie FLAT I: accelerator I's link, MaxReadReq and config_space as one line
	awk -F '\t' -v p="accelerators.$2.pcie." 'index($1, p) == 1 { v[substr($1, length(p) + 1)] = $2 }
		END { printf "%s x%s, max %s x%s, MaxReadReq %s, %s\n", v["speed"], v["width"], v["max_speed"],
			v["max_width"], v["max_read_request"], v["config_space"] }' "$1"
}
setpriv --reuid=65534 --regid=65534 --clear-groups "$NUMAPLAN" show --json 2>user.err | json_flat >user.flat
links=0
for i in $i0 $i1; do
	pci=$(json_get "accelerators.$i.pci" <before.flat)
	dev=/sys/bus/pci/devices/$pci
	if [ -e "$dev/current_link_speed" ]; then
		links=$((links + 1))
		read -r speed <"$dev/current_link_speed" && read -r width <"$dev/current_link_width" &&
			read -r max_speed <"$dev/max_link_speed" && read -r max_width <"$dev/max_link_width"
		mrrs=$(lspci -vv -s "$pci" | sed -n 's/.*MaxReadReq \([0-9]*\) bytes.*/\1/p')
		link="$speed x$width, max $max_speed x$max_width"
		vm_check_eq "$pci: show's link is sysfs's, its MaxReadReq lspci's" "$(pcie before.flat "$i")" \
			"$link, MaxReadReq ${mrrs%%$'\n'*}, read"
		vm_check_eq "$pci: as a user, the link without MaxReadReq: config space short" "$(pcie user.flat "$i")" \
			"$link, MaxReadReq null, short"
	else
		vm_check_eq "$pci: no link files, no link in show" "$(pcie before.flat "$i")" \
			"null xnull, max null xnull, MaxReadReq null, no-capability"
	fi
done
vm_check "at least one device behind a root port has its link in show" test "$links" -gt 0

# Bind-mount NVIDIA H200 ids over the node-1 device's sysfs files; undo whatever happens.
[ -n "$i1" ] || vm_done
pci=$(json_get "accelerators.$i1.pci" <before.flat)
dev=$(readlink -f "/sys/bus/pci/devices/$pci")
orig_class=$(cat "$dev/class")
mounted=()
undo() {
	local m
	for m in "${mounted[@]}"; do
		umount "$m" 2>/dev/null
	done
	mounted=()
}
trap undo EXIT
fake() { # fake FILE VALUE
	printf '%s\n' "$2" >"fake-$1"
	mount --bind "$PWD/fake-$1" "$dev/$1" && mounted+=("$dev/$1")
}
if fake modalias pci:v000010DEd00002335sv000010DEsd00000000bc03sc02i00 2>fake.err && fake class 0x030200 2>>fake.err &&
	fake vendor 0x10de 2>>fake.err && fake device 0x2335 2>>fake.err; then
	vm_ok "bind-mount modalias, class, vendor, device of $pci"
else
	vm_not_ok "bind-mount modalias, class, vendor, device of $pci" "$(cat fake.err)"
fi
vm_check_eq "sysfs now says class 0x030200" "$(cat "$dev/class")" 0x030200
vm_check "numaplan show --json succeeds with the fake ids" show after.flat
j=$(awk -F '\t' -v pci="$pci" '$1 ~ /^accelerators\.[0-9]+\.pci$/ && $2 == pci { split($1, p, "."); print p[2]; exit }' after.flat)
vm_check_eq "numaplan reports class 0x030200 for $pci" "$(json_get "accelerators.$j.class" <after.flat)" 0x030200
vm_check_eq "numaplan reports vendor 0x10de for $pci" "$(json_get "accelerators.$j.vendor" <after.flat)" 0x10de
vm_check_eq "numaplan reports device 0x2335 for $pci" "$(json_get "accelerators.$j.device" <after.flat)" 0x2335
vm_check_eq "numaplan keeps it on node 1" "$(json_get "accelerators.$j.numa_node" <after.flat)" 1
vm_check_eq "numaplan calls it compute" "$(json_get "accelerators.$j.compute" <after.flat)" true
vm_diag "name: $(json_get "accelerators.$j.name" <after.flat)"
vm_diag "lspci: $(lspci -nn -s "$pci" 2>&1)"

undo
vm_check_eq "after the bind mounts are undone, sysfs class is back" "$(cat "$dev/class")" "$orig_class"
vm_check "no bind mount left on $dev" eval "! grep -q ' $dev/' /proc/self/mounts"
vm_done

#!/bin/bash
# What each node's memory is: show --json's memory fields on a GB200-like tray (GPU memory nodes
# and the nodes reserved without memory) and on a host of tiered memory (HBM, DRAM, NVDIMM, CXL,
# HMAT, the kernel's tiers); the table's columns; and a snapshot of each replaying the same.
# Usage: memory.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tray=$fixtures/hosts/gb200-tray
tiered=$fixtures/hosts/tiered-memory

py() { # py DESCRIPTION PYTHON: PYTHON with d = the last run's JSON; passes when it asserts nothing false
	local desc=$1 o
	shift
	if o=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
def node(i): return [n for n in d['nodes'] if n['id'] == i][0]
def dev(pci): return [a for a in d['accelerators'] if a['pci'] == pci][0]
$1" "$scratch/out" 2>&1); then ok "$desc"; else fail "$desc" "$o"; fi
}
# The memory fields of every node, to compare a replay with its host.
memory_of() { # memory_of FILE
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
for n in d['nodes']:
    print(n['id'], n['memory_kind'], n['accelerator'], n['memory_tier'], n['kernel_memory_tier'], n['bandwidth'], n['latency'])
for a in d['accelerators']:
    print(a['pci'], a['memory_nodes'])" "$1"
}

# ---- the tray ----
run show --json -c /dev/null --sysfs-root "$tray"
is "show of the tray exits 0" "$rc" 0
py "each GPU's first node is its memory, named GPUMemory, owned by it, in tier 1" "
for g, pci in enumerate(['0008:01:00.0', '0009:01:00.0', '0018:01:00.0', '0019:01:00.0']):
    n = node(2 + 8 * g)
    assert (n['memory_kind'], n['accelerator'], n['memory_tier']) == ('GPUMemory', pci, 1), n
    assert dev(pci)['memory_nodes'] == [2 + 8 * g], dev(pci)"
py "Grace's memory: tier 0, no kind; the nodes reserved without memory: nothing" "
assert [(node(i)['memory_kind'], node(i)['memory_tier']) for i in (0, 1)] == [(None, 0)] * 2
assert all(node(i)['memory_kind'] is None and node(i)['memory_tier'] is None and node(i)['accelerator'] is None
           for i in range(3, 34) if i % 8 != 2)
assert all(n['bandwidth'] is None and n['latency'] is None and n['kernel_memory_tier'] is None for n in d['nodes'])"
memory_of "$scratch/out" >"$scratch/tray.memory"
run show -c /dev/null --sysfs-root "$tray"
check "the table names node 2 GPUMemory in tier 1" grep -Eq '^ +2 +memory-only .* GPUMemory +1 ' "$scratch/out"
check "and the GPU's own memory under the accelerators" grep -q '^  GPU memory of 0019:01:00.0: node 26$' "$scratch/out"

# ---- the tiered host ----
run show --json -c /dev/null --sysfs-root "$tiered"
is "show of the tiered host exits 0" "$rc" 0
py "HBM, DRAM, CXL-DRAM, NVM, in hwloc's tiers by bandwidth" "
got = [(node(i)['memory_kind'], node(i)['memory_tier']) for i in range(6)]
assert got == [('DRAM', 1), ('DRAM', 1), ('HBM', 0), ('HBM', 0), ('NVM', 3), ('CXL-DRAM', 2)], got"
py "HMAT's figures (access1 before access0), the kernel's tiers" "
assert node(0)['bandwidth'] == {'read': 100000, 'write': 90000} and node(0)['latency'] == {'read': 100, 'write': 110}, node(0)
assert node(4)['bandwidth'] == {'read': 20000, 'write': 8000}, node(4)
assert [node(i)['kernel_memory_tier'] for i in range(6)] == [4, 4, 3, 3, 22, 12]
assert all(a['memory_nodes'] == [] for a in d['accelerators']) and len(d['accelerators']) == 2"
memory_of "$scratch/out" >"$scratch/tiered.memory"

# ---- a node two of the kernel's tiers list: the lowest, warned of ----
cp -r "$tiered" "$scratch/overlap"
echo 0-1,4-5 >"$scratch/overlap/sys/devices/virtual/memory_tiering/memory_tier22/nodelist"
run show --json -c /dev/null --sysfs-root "$scratch/overlap"
is "show of a host whose tiers 4, 12 and 22 list nodes 0, 1 and 5 twice exits 0" "$rc" 0
py "each keeps the lower tier, and overlapping-memory-tiers names each node with its tiers" "
assert [node(i)['kernel_memory_tier'] for i in range(6)] == [4, 4, 3, 3, 22, 12], [node(i)['kernel_memory_tier'] for i in range(6)]
w = sorted((w['node'], w['message']) for w in d['warnings'] if w['code'] == 'overlapping-memory-tiers')
assert [s for s, m in w] == [0, 1, 5] and 'memory tiers 4, 22 ' in w[0][1] and 'memory tiers 12, 22 ' in w[2][1], w"

# ---- snapshots replay the same ----
for host in tray tiered; do
	root=$tray
	[ "$host" = tiered ] && root=$tiered
	mkdir "$scratch/$host"
	run snapshot --sysfs-root "$root" -o "$scratch/$host.tar"
	is "a snapshot of the $host host" "$rc" 0
	tar -xf "$scratch/$host.tar" -C "$scratch/$host"
	run show --json -c /dev/null --sysfs-root "$scratch/$host"
	memory_of "$scratch/out" >"$scratch/$host.replayed"
	if diff -u "$scratch/$host.memory" "$scratch/$host.replayed" >"$scratch/diff"; then
		ok "the $host host's snapshot replays every node's memory kind, owner, tiers and figures"
	else fail "the $host host's snapshot replays its memory" "$(head -20 "$scratch/diff")"; fi
done

done_testing

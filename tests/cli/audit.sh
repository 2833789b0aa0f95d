#!/bin/bash
# The audit of an inference host in show: each warning on the untuned fixture host, none on the
# tuned one, the facts in JSON, config space as root and as a user, captures from before (facts
# null, no new warning), every way the IOMMU's mode is decided, malformed files, the snapshot of
# it all, and plan reading none of it.
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
untuned=$fixtures/hosts/untuned-2s-8gpu
tuned=$fixtures/hosts/tuned-2s-8gpu

show() { # show ROOT [ARGS...]: show --json of ROOT into $scratch/out; sets rc
	local root=$1
	shift
	"$numaplan" show --json -c /dev/null --sysfs-root "$root" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	output_seen "$scratch/out" "$scratch/err" "$rc" show --json "$@"
}
py() { # py DESCRIPTION PYTHON: PYTHON with d = the last show's JSON; passes when it asserts nothing false
	local d=$1
	shift
	if out=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
w = d['warnings']
def codes(c): return [x for x in w if x['code'] == c]
def dev(pci): return [a for a in d['accelerators'] + d['nics'] if a['pci'] == pci][0]
$1" "$scratch/out" 2>&1); then ok "$d"; else fail "$d" "$out"; fi
}
audit_codes="'pcie-link-narrow', 'pcie-link-slow', 'pcie-mrrs-small', 'cpu-governor', 'cstates-deep', 'zone-reclaim', 'iommu-translated', 'swap-bound-replica'"

# ---- every warning of the audit on the untuned host, each naming its subject ----
show "$untuned"
is "show of the untuned host exits 0" "$rc" 0
py "pcie-link-narrow: the GPU at x8 and the NIC at x8, by address" "
assert sorted(x['pci'] for x in codes('pcie-link-narrow')) == ['0000:01:00.0', '0000:11:00.0'], w
assert all(x['severity'] == 'warning' for x in codes('pcie-link-narrow'))"
py "pcie-link-slow: the idle GPU, a notice saying GPUs lower their speed when idle" "
x = codes('pcie-link-slow')
assert [y['pci'] for y in x] == ['0000:41:00.0'] and x[0]['severity'] == 'notice', x
assert 'lower their link speed when idle' in x[0]['message'], x"
py "pcie-mrrs-small: the two GPUs at 512, naming the size" "
x = codes('pcie-mrrs-small')
assert [y['pci'] for y in x] == ['0000:a1:00.0', '0000:c1:00.0'] and '512 bytes, not 4096' in x[0]['message'], x"
py "cpu-governor: for the host, naming schedutil, its CPUs and the driver" "
x = codes('cpu-governor')
assert len(x) == 1 and 'pci' not in x[0] and 'node' not in x[0], x
assert 'run the schedutil governor (cpufreq driver acpi-cpufreq)' in x[0]['message'], x"
py "cstates-deep: C2 at 400 us, not the disabled C3" "
x = codes('cstates-deep')
assert len(x) == 1 and 'C2 (400 us)' in x[0]['message'] and 'C3' not in x[0]['message'], x"
py "zone-reclaim: mode 1" "assert 'vm.zone_reclaim_mode is 1' in codes('zone-reclaim')[0]['message'], w"
py "iommu-translated: a notice saying how that was decided" "
x = codes('iommu-translated')
assert len(x) == 1 and x[0]['severity'] == 'notice' and 'DMA-FQ' in x[0]['message'] and 'iommu=pt' in x[0]['message'], x"
py "swap-bound-replica: 8 GiB of swap beside the default plan's bound replicas" "
x = codes('swap-bound-replica')
assert len(x) == 1 and 'swap is on (8.0 GiB)' in x[0]['message'] and 'inference-7' in x[0]['message'], x"
py "and the audit's own findings from before: node 0 nearly full, NUMA balancing on" "
assert codes('memory-imbalance') and codes('numa-balancing-on'), w"

# ---- the facts, as JSON has them ----
py "pcie: the narrowed GPU's link as sysfs writes it, and its Device Control sizes" "
p = dev('0000:01:00.0')['pcie']
assert p == {'speed': '32.0 GT/s PCIe', 'width': 8, 'max_speed': '32.0 GT/s PCIe', 'max_width': 16,
             'max_read_request': 4096, 'max_payload': 256, 'config_space': 'read'}, p
assert dev('0000:c1:00.0')['pcie']['max_payload'] == 128"
py "host: cpufreq with a count per governor, the enabled idle states, the knobs, the IOMMU" "
h = d['host']
assert h['cpufreq'] == {'driver': 'acpi-cpufreq', 'governor': {'performance': 2, 'schedutil': 30}}, h
assert h['cpuidle'] == [{'name': 'POLL', 'latency_us': 0}, {'name': 'C1', 'latency_us': 1}, {'name': 'C2', 'latency_us': 400}], h
assert h['zone_reclaim_mode'] == 1 and h['swap_bytes'] == 8 << 30 and h['kernel'] == '6.1.0-18-amd64', h
assert h['iommu']['mode'] == 'translated' and '0000:01:00.0' in h['iommu']['how'], h"
"$numaplan" show -c /dev/null --sysfs-root "$untuned" >"$scratch/txt" 2>&1
grep -q '^host tuning:$' "$scratch/txt" && grep -q '^  swap  *8.0 GiB$' "$scratch/txt" &&
	grep -q '0000:01:00.0 .* x8 32.0GT/s (max x16 32.0GT/s)  4096/256 ' "$scratch/txt" &&
	ok "the table: a host tuning section, and the link below its maximum says both" || fail "the table" "$(cat "$scratch/txt")"

# ---- the tuned host: every fact known, no warning at all ----
show "$tuned"
py "the tuned host: no warning" "assert w == [], w"
py "its facts: one governor, passthrough decided by the groups' type, swap off" "
h = d['host']
assert h['cpufreq'] == {'driver': 'amd-pstate-epp', 'governor': 'performance'}, h
assert h['swap_bytes'] == 0 and h['iommu']['mode'] == 'passthrough' and 'identity' in h['iommu']['how'], h
assert all(a['pcie']['config_space'] == 'read' and a['pcie']['max_read_request'] == 4096 for a in d['accelerators'] + d['nics'])"

# ---- config space as a user sees it: 64 bytes ----
cp -a "$tuned" "$scratch/user"
find "$scratch/user/sys/devices" -name config -exec truncate -s 64 {} +
show "$scratch/user"
py "captured by a user (64 bytes of config space): sizes null, config_space short, links kept, no warning" "
for a in d['accelerators'] + d['nics']:
    p = a['pcie']
    assert p['max_read_request'] is None and p['max_payload'] is None and p['config_space'] == 'short', p
    assert p['width'] == 16 and p['speed'] is not None, p
assert w == [], w"
"$numaplan" show -c /dev/null --sysfs-root "$scratch/user" >"$scratch/txt" 2>&1
grep -q '^  (mrrs/mps -: sysfs gives a reader other than root only the first 64 bytes of config space: run (or capture) as root)$' \
	"$scratch/txt" && ok "and the table says why, under each devices table" || fail "the table's note" "$(cat "$scratch/txt")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$numaplan" "$scratch/np" && chmod 0755 "$scratch" "$scratch/np"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$scratch/np" show --json -c /dev/null >"$scratch/out" 2>"$scratch/err"
	rc=$?
	output_seen "$scratch/out" "$scratch/err" "$rc" show --json
	is "this host, as a user: show exits 0" "$rc" 0
	# A device the kernel gives no link attributes is conventional PCI: no-capability, config
	# space unread.
	py "and no device's sizes come from config space a user cannot read" "
import os
for a in d['accelerators'] + d['nics']:
    pcie = os.path.exists('/sys/bus/pci/devices/%s/max_link_speed' % a['pci'])
    ok = ('short', 'absent', 'unread') if pcie else ('no-capability',)
    assert a['pcie']['config_space'] in ok and a['pcie']['max_read_request'] is None, a"
	"$numaplan" show --json -c /dev/null >"$scratch/out" 2>"$scratch/err"
	output_seen "$scratch/out" "$scratch/err" "$?" show --json
	py "as root, none of them is short" "
assert all(a['pcie']['config_space'] != 'short' for a in d['accelerators'] + d['nics']), d['nics']"
else
	ok "# SKIP show as a user needs root and setpriv"
	ok "# SKIP show as a user needs root and setpriv"
	ok "# SKIP show as a user needs root and setpriv"
fi

# ---- config space without the capability, or reading as all ones ----
cp -a "$tuned" "$scratch/cfg"
gpu0=$(readlink -f "$scratch/cfg/sys/bus/pci/devices/0000:01:00.0")
gpu1=$(readlink -f "$scratch/cfg/sys/bus/pci/devices/0000:21:00.0")
printf '\x00\x00' | dd of="$gpu0/config" bs=1 seek=6 conv=notrunc status=none # no capability list
printf '\xff\xff' | dd of="$gpu1/config" bs=1 seek=$((0x70)) conv=notrunc status=none # Device Control
rm "$scratch/cfg/sys/bus/pci/devices/0000:11:00.0/config"
show "$scratch/cfg"
py "no capability list: no-capability; Device Control all ones: invalid; no config file: absent" "
assert dev('0000:01:00.0')['pcie']['config_space'] == 'no-capability', dev('0000:01:00.0')
assert dev('0000:21:00.0')['pcie']['config_space'] == 'invalid' and dev('0000:21:00.0')['pcie']['max_read_request'] is None
assert dev('0000:11:00.0')['pcie']['config_space'] == 'absent'
assert w == [], w"

# ---- captures from before: every fact null, no new warning ----
for host in "$fixtures/hosts/captured-firecracker-vm.tar" "$fixtures/hosts/dgx-2s-8gpu"; do
	show "$(fixture_root "$host" "$scratch")"
	py "$(host_name "$host"), from before: host facts and links null, none of the audit's warnings" "
assert all(v is None for v in d['host'].values()), d['host']
for a in d['accelerators'] + d['nics']:
    p = a['pcie']
    assert [k for k, v in p.items() if v is not None] == ['config_space'] and p['config_space'] in ('absent', 'unread'), p
assert not [x for x in w if x['code'] in ($audit_codes)], w"
done

# ---- how the IOMMU's mode is decided ----
iommu() { # iommu DESCRIPTION MODE HOW_WORDS: show of $scratch/io says MODE, its how containing HOW_WORDS
	show "$scratch/io"
	py "$1" "
h = d['host']['iommu']
assert h['mode'] == '$2' and '$3' in h['how'], h"
}
cp -a "$tuned" "$scratch/io"
find "$scratch/io/sys/kernel/iommu_groups" -name type -delete
iommu "no type file (before 5.6): iommu=pt on the command line" passthrough "iommu=pt on the kernel command line"
sed -i 's/ iommu=pt//' "$scratch/io/proc/cmdline"
iommu "no type file, no iommu=pt: translated, the kernel's default" translated "and no iommu=pt"
find "$scratch/io/sys/devices" -name iommu_group -delete
echo DMA >"$scratch/io/sys/kernel/iommu_groups/11/type"
echo identity >"$scratch/io/sys/kernel/iommu_groups/10/type"
iommu "no accelerator's group: the lowest-numbered group's type" passthrough "IOMMU group 10"
rm -r "$scratch/io/sys/kernel/iommu_groups"/* && mkdir -p "$scratch/io/sys/class/iommu"
iommu "no IOMMU group: off" off "no IOMMU groups"
mkdir "$scratch/io/sys/class/iommu/dmar0"
iommu "no group, though an IOMMU is registered: off, saying so" off "lists dmar0"
rm -r "$scratch/io/sys/kernel/iommu_groups"
show "$scratch/io"
py "no /sys/kernel/iommu_groups at all: unknown" "assert d['host']['iommu'] is None, d['host']"

# ---- malformed files: a warning naming each, that fact unknown ----
cp -a "$untuned" "$scratch/bad"
echo x16 >"$(readlink -f "$scratch/bad/sys/bus/pci/devices/0000:01:00.0")/current_link_width"
echo fast >"$(readlink -f "$scratch/bad/sys/bus/pci/devices/0000:41:00.0")/current_link_speed"
echo Unknown >"$(readlink -f "$scratch/bad/sys/bus/pci/devices/0000:21:00.0")/current_link_speed"
echo "no header" >"$scratch/bad/proc/swaps"
echo -1 >"$scratch/bad/proc/sys/vm/zone_reclaim_mode"
echo fast >"$scratch/bad/sys/devices/system/cpu/cpu0/cpuidle/state2/latency"
show "$scratch/bad"
is "malformed files: show still exits 0" "$rc" 0
py "each is sysfs-malformed, naming the file, and its fact unknown" "
m = ' '.join(x['message'] for x in codes('sysfs-malformed'))
for f in ('0000:01:00.0/current_link_width', '0000:41:00.0/current_link_speed', '/proc/swaps', 'zone_reclaim_mode',
          'state2/latency'):
    assert f in m, (f, m)
assert '0000:21:00.0' not in m and dev('0000:21:00.0')['pcie']['speed'] == 'Unknown', m
assert dev('0000:41:00.0')['pcie']['speed'] is None and not codes('pcie-link-slow'), w
assert d['host']['swap_bytes'] is None and d['host']['zone_reclaim_mode'] is None
assert dev('0000:01:00.0')['pcie']['width'] is None and not codes('swap-bound-replica') and not codes('zone-reclaim')
assert not [x for x in codes('pcie-link-narrow') if x['pci'] == '0000:01:00.0'] and not codes('cstates-deep')"

# ---- the text: each said as what it is, errors first, each code once ----
# severities FILE: the severity word of each line of show's warnings section, in order
severities() { sed -n '/^warnings:/,$p' "$1" | sed -n 's/^  \([a-z]*\): [a-z0-9-]*: .*/\1/p' | uniq | tr '\n' ' '; }
"$numaplan" show -c /dev/null --sysfs-root "$untuned" >"$scratch/txt" 2>&1
if grep -q '^  notice: pcie-link-slow: the PCIe link of 0000:41:00.0' "$scratch/txt" &&
	grep -q '^  notice: iommu-translated: ' "$scratch/txt" && ! grep -q 'warning: \(pcie-link-slow\|iommu-translated\)' "$scratch/txt"; then
	ok "show: notices printed as notices"
else fail "show: notices as notices" "$(sed -n '/^warnings:/,$p' "$scratch/txt")"; fi
is "show: warnings, then notices" "$(severities "$scratch/txt")" "warning notice "
codes=$(sed -n '/^warnings:/,$p' "$scratch/txt" | sed -n 's/^  \(error: \|warning: \|notice: \)\?\([a-z0-9-]*\): .*/\2/p')
is "show: each code once" "$(sort <<<"$codes" | uniq -d | tr '\n' ' ')" ""
grep -q '^  warning: pcie-mrrs-small: devices 0000:a1:00.0, 0000:c1:00.0: ' "$scratch/txt" &&
	ok "a code of two devices: one line naming both" || fail "pcie-mrrs-small folded" "$(grep mrrs "$scratch/txt")"
cp -a "$untuned" "$scratch/err-host"
echo "0-15,x" >"$scratch/err-host/sys/devices/system/node/node1/cpulist"
rm -f "$scratch/err-host/sys/devices/system/node/node1/cpumap"
"$numaplan" show -c /dev/null --sysfs-root "$scratch/err-host" >"$scratch/txt" 2>&1
is "show of a host with an error: errors, then warnings, then notices" "$(severities "$scratch/txt")" "error warning notice "
"$numaplan" plan -c /dev/null --sysfs-root "$untuned" >"$scratch/txt" 2>&1
if grep -q '^notice: memory-unset: ' "$scratch/txt" && ! grep -q '^warning: memory-unset' "$scratch/txt" &&
	[ "$(grep -c '^warning: nic-remote: ' "$scratch/txt")" = 1 ] &&
	grep -q '^warning: nic-remote: replicas inference-4, inference-5, inference-6, inference-7: ' "$scratch/txt"; then
	ok "plan: a notice as a notice, and nic-remote once, naming its four replicas"
else fail "plan's warnings" "$(grep -E '^(warning|notice|error):' "$scratch/txt")"; fi
"$numaplan" apply --check --no-reload -c /dev/null --sysfs-root "$untuned" --unit-dir "$scratch/units" >/dev/null 2>"$scratch/err"
if [ "$(grep -c 'warning: nic-remote: ' "$scratch/err")" = 1 ] && grep -q 'warning: nic-remote: replicas inference-4, ' "$scratch/err"; then
	ok "apply's stderr: nic-remote once, naming its four replicas"
else fail "apply's warnings" "$(cat "$scratch/err")"; fi
"$numaplan" -v apply --check --no-reload -c /dev/null --sysfs-root "$untuned" --unit-dir "$scratch/units" >/dev/null 2>"$scratch/err"
is "and with -v, each in full" "$(grep -c 'warning: nic-remote: replica inference-[4-7] has no network adapter on node 1' "$scratch/err")" 4

# ---- snapshot: every file of the audit, config space included; the kernel command line trimmed ----
rm -rf "$scratch/x" && mkdir "$scratch/x"
"$numaplan" snapshot --sysfs-root "$untuned" -o "$scratch/s.tar" 2>"$scratch/err"
tar -xf "$scratch/s.tar" -C "$scratch/x"
show "$untuned" && cp "$scratch/out" "$scratch/a"
show "$scratch/x"
if [ $rc -eq 0 ] && [ -s "$scratch/a" ] && cmp -s "$scratch/a" "$scratch/out"; then
	ok "the snapshot of the untuned host replays byte for byte"
else fail "the snapshot of the untuned host replays byte for byte" "exit $rc" "$(diff "$scratch/a" "$scratch/out" | head -20)"; fi
is "it holds each device's config space whole" \
	"$(stat -c %s "$(readlink -f "$scratch/x/sys/bus/pci/devices/0000:01:00.0")/config" 2>&1)" 4096
rm -rf "$scratch/x" && mkdir "$scratch/x"
cp -a "$tuned" "$scratch/cl" && find "$scratch/cl/sys/kernel/iommu_groups" -name type -delete
"$numaplan" snapshot --sysfs-root "$scratch/cl" -o "$scratch/s.tar" 2>"$scratch/err"
tar -xf "$scratch/s.tar" -C "$scratch/x"
is "of the kernel command line it keeps the IOMMU's parameters only" "$(cat "$scratch/x/proc/cmdline")" "iommu=pt"

# ---- plan reads none of it ----
"$numaplan" plan -vv -c /dev/null --sysfs-root "$untuned" >/dev/null 2>"$scratch/err"
if grep -q '^' "$scratch/err" && ! grep -E 'read /(.*_link_|.*/config |.*cpufreq|.*cpuidle|proc/swaps|proc/cmdline|.*iommu)' "$scratch/err"; then
	ok "plan reads no link, config space, cpufreq, cpuidle, swap or IOMMU file"
else fail "plan reads the audit's files" "$(grep -E '_link_|config|cpufreq|cpuidle|swaps|iommu' "$scratch/err" | head -5)"; fi
"$numaplan" plan --json -c /dev/null --sysfs-root "$untuned" >"$scratch/out" 2>"$scratch/err"
output_seen "$scratch/out" "$scratch/err" "$?" plan --json
py "nor warns of it" "assert not [x for x in w if x['code'] in ($audit_codes)], w"
done_testing

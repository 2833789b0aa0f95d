#!/bin/bash
# Interrupts: show's section and JSON on the fixture hosts that have them (the untuned host's
# served from the wrong node, with irqbalance running), irq-remote and what it judges, a PCI
# filter, the snapshot of them; apply with irq-affinity = yes on a replayed host writes
# irqbalance's drop-in into the test's unit directory and steers nothing (no write to this host's
# /proc, the capture's files untouched), --check, --diff, the per-replica key, remove; 10,000
# interrupts (show, apply twice, remove, an older drop-in past what numaplan writes); an admin's
# file at the name of numaplan's irqbalance drop-in, and another that sets ExecStart=.
# Usage: irqs.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
untuned=$fixtures/hosts/untuned-2s-8gpu
tuned=$fixtures/hosts/tuned-2s-8gpu

py() { # py DESCRIPTION PYTHON: PYTHON with d = the last run's JSON; passes when it asserts nothing false
	local desc=$1 o
	shift
	if o=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
w = d.get('warnings', [])
def codes(c): return [x for x in w if x['code'] == c]
def dev(pci): return [a for a in d['accelerators'] + d['nics'] if a['pci'] == pci][0]
$1" "$scratch/out" 2>&1); then ok "$desc"; else fail "$desc" "$o"; fi
}
conf() { # conf NAME TEXT: a config file owned by root, mode 0644
	printf '%s\n' "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}

# ---- show: the facts, in JSON ----
run show --json -c /dev/null --sysfs-root "$untuned"
is "show of the untuned host exits 0" "$rc" 0
py "each GPU's one MSI interrupt, with the CPUs it is set to and those that served it" "
assert dev('0000:81:00.0')['interrupts'] == [{'irq': 124, 'kind': 'msi', 'affinity': '0-7,16-23', 'effective': '3'}], dev('0000:81:00.0')
assert dev('0000:01:00.0')['interrupts'] == [{'irq': 120, 'kind': 'msi', 'affinity': '0-7,16-23', 'effective': '0'}]"
py "the NIC's four, two of them set to the other node" "
i = dev('0000:11:00.0')['interrupts']
assert [q['irq'] for q in i] == [60, 61, 62, 63] and [q['affinity'] for q in i] == ['0-7,16-23'] * 2 + ['8-15,24-31'] * 2, i"
py "irqbalance runs, by its pid" "assert d['host']['irqbalance'] == {'running': True, 'pid': 812}, d['host']"
py "irq-remote: the GPU and the NIC set to the other node only, by address" "
x = codes('irq-remote')
assert sorted(y['pci'] for y in x) == ['0000:11:00.0', '0000:81:00.0'] and all(y['severity'] == 'warning' for y in x), x"
py "naming each interrupt, where it is set and where it was served" "
m = [y['message'] for y in codes('irq-remote') if y['pci'] == '0000:81:00.0'][0]
assert 'IRQ 124 set to 0-7,16-23 (served by 3)' in m and '(node 1, CPUs 8-15,24-31)' in m, m
m = [y['message'] for y in codes('irq-remote') if y['pci'] == '0000:11:00.0'][0]
assert m.startswith('2 of the 4 interrupts of 0000:11:00.0') and 'IRQ 62' in m and 'IRQ 60' not in m, m"
py "an interrupt set to every CPU (the kernel's default) is not warned of, though the other node served it" "
assert dev('0000:a1:00.0')['interrupts'][0] == {'irq': 125, 'kind': 'msi', 'affinity': '0-31', 'effective': '2'}
assert not [y for y in codes('irq-remote') if y['pci'] == '0000:a1:00.0'], w"
run show --json -c /dev/null --sysfs-root "$tuned"
py "the tuned host: every interrupt on its node, irqbalance not running, no warning" "
assert d['host']['irqbalance'] == {'running': False, 'pid': None}, d['host']
assert all(q['affinity'] for a in d['accelerators'] + d['nics'] for q in a['interrupts']) and w == [], w"
run show --json -c /dev/null --sysfs-root "$fixtures/hosts/pcie-switches"
py "a host whose devices have no interrupt (irq 0): empty lists; no process under /proc: irqbalance null" "
assert all(a['interrupts'] == [] for a in d['accelerators'] + d['nics']) and d['host']['irqbalance'] is None, d['host']"
run show --json -c /dev/null --sysfs-root "$fixtures/hosts/dgx-2s-8gpu"
py "a legacy line, from irq: kind line" "assert dev('0000:03:00.0')['interrupts'] == [{'irq': 16, 'kind': 'line', 'affinity': '0-63', 'effective': '0'}]"

# ---- show: the table ----
run show -c /dev/null --sysfs-root "$untuned"
case $out in
*"interrupts (irqbalance runs, pid 812):"*"0000:81:00.0     1  124    msi   0-7,16-23 (node 0)   3 (node 0)"*)
	ok "the table: a section of interrupts, each set and served with its nodes, irqbalance's pid in its heading" ;;
*) fail "the table's interrupts" "$out" ;;
esac
grep -q '^  warning: irq-remote: devices 0000:81:00.0, 0000:11:00.0: ' "$scratch/out" &&
	ok "and the warning under it, once for both devices" || fail "the warning in the table" "$out"
is "irq-remote in one line of the table at most" "$(grep -c irq-remote "$scratch/out")" 1
run -v show -c /dev/null --sysfs-root "$untuned"
grep -q '^  warning: irq-remote: the interrupt of 0000:81:00.0 (node 1' "$scratch/out" &&
	grep -q '^  warning: irq-remote: 2 of the 4 interrupts of 0000:11:00.0' "$scratch/out" &&
	ok "-v: each device's own irq-remote, in full" || fail "show -v: irq-remote" "$out"
for host in dgx-2s-8gpu nps4-2s-8gpu cloud-vm-2n-2gpu; do
	run show --json -c /dev/null --sysfs-root "$fixtures/hosts/$host"
	py "$host: its interrupts set to every CPU, none warned of wherever they were served" "
assert any(q['affinity'] and q['effective'] for a in d['accelerators'] + d['nics'] for q in a['interrupts'] or []), d
assert codes('irq-remote') == [], codes('irq-remote')"
done
run show -c /dev/null --sysfs-root "$untuned" 0000:11:00.0
if grep -q '^  0000:11:00.0     0  60-63' "$scratch/out" && ! grep -q '^  0000:81:00.0 .* msi ' "$scratch/out"; then
	ok "PCI addresses after show limit the interrupts shown too"
else fail "show PCI: the interrupts" "$out"; fi
run show -c /dev/null --sysfs-root "$fixtures/hosts/pcie-switches"
if grep -q '^interrupts' "$scratch/out"; then fail "no section without interrupts" "$out"; else ok "no section without interrupts"; fi

# ---- snapshot: the interrupts replay, irqbalance's name is kept and no other process's ----
mkdir "$scratch/x"
"$numaplan" snapshot --sysfs-root "$untuned" -o "$scratch/s.tar" 2>"$scratch/err"
tar -xf "$scratch/s.tar" -C "$scratch/x"
run show --json -c /dev/null --sysfs-root "$scratch/x"
py "the snapshot replays each device's interrupts and irqbalance" "
assert dev('0000:11:00.0')['interrupts'][2] == {'irq': 62, 'kind': 'msi', 'affinity': '8-15,24-31', 'effective': '10'}
assert d['host']['irqbalance']['pid'] == 812 and len(codes('irq-remote')) == 2, d['host']"
if [ -f "$scratch/x/proc/812/comm" ] && [ ! -e "$scratch/x/proc/640" ] && [ ! -e "$scratch/x/proc/1" ]; then
	ok "it holds irqbalance's /proc/PID/comm and no other process's"
else fail "the snapshot's processes" "$(cd "$scratch/x" && ls proc)"; fi

# ---- apply on a replayed host: irqbalance's drop-in in the test's tree, nothing steered ----
cp -a "$untuned" "$scratch/host"
before=$(cd "$scratch/host" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
own_before=$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | sha256sum)
yes=$(conf yes.conf "[numaplan]
irq-affinity = yes")
units=$scratch/units
run apply --check --no-reload -c "$yes" --sysfs-root "$scratch/host" --unit-dir "$units"
is "apply --check with irq-affinity = yes: changes pending (exit 1)" "$rc" 1
grep -q '^irqbalance.service: would be created .*/irqbalance.service.d/50-numaplan.conf$' "$scratch/out" &&
	ok "--check names irqbalance's drop-in" || fail "--check and irqbalance" "$out"
trace=()
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	# LeakSanitizer stops the world with ptrace, which a traced process cannot: leaks are checked
	# by every other run.
	trace=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=open,openat,openat2
		-o "$scratch/trace")
fi
"${trace[@]}" "$numaplan" apply --json --no-reload -c "$yes" --sysfs-root "$scratch/host" --unit-dir "$units" \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
output_seen "$scratch/out" "$scratch/err" "$rc" apply --json
is "apply exits 0" "$rc" 0
py "its JSON: irqbalance.service created, no interrupt steered" "
assert {'unit': 'irqbalance.service', 'action': 'created'} in d['units'] and d['interrupts'] == [], d"
grep -q 'interrupts are steered only by an apply to systemd.s unit directories of this host: none steered' "$scratch/err" &&
	ok "and says why none is steered" || fail "the notice" "$(cat "$scratch/err")"
ib=$units/irqbalance.service.d/50-numaplan.conf
if grep -q '^ExecStart=$' "$ib" &&
	grep -Eq '^ExecStart="/[a-z/]+/irqbalance" --foreground \$IRQBALANCE_ARGS --banirq=60 --banirq=61 --banirq=62 --banirq=63 --banirq=120 --banirq=121 --banirq=122 --banirq=123 --banirq=124 --banirq=125 --banirq=126 --banirq=127$' "$ib"; then
	ok "the drop-in bans every steered interrupt, the capture's numbers, and keeps \$IRQBALANCE_ARGS"
else fail "irqbalance's drop-in" "$(cat "$ib")"; fi
grep -q '^# 0000:11:00.0 (replicas inference-0, inference-1, inference-2, inference-3): IRQs 60-63 on CPUs 0-7,16-23$' "$ib" &&
	ok "node 0's NIC goes to the CPUs of the four replicas there, which use it" || fail "the NIC's line" "$(cat "$ib")"
grep -q '^# 0000:81:00.0 (replica inference-4): IRQ 124 on CPUs 8-9,24-25$' "$ib" &&
	ok "the remote GPU's interrupt goes to its replica's CPUs, on its node" || fail "the GPU's line" "$(cat "$ib")"
after=$(cd "$scratch/host" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
is "the capture's files are as they were" "$after" "$before"
is "this host's interrupts are as they were" "$(cat /proc/irq/*/smp_affinity_list 2>/dev/null | sha256sum)" "$own_before"
if [ ${#trace[@]} -eq 0 ]; then
	ok "# SKIP strace cannot trace here"
elif grep -E '"/proc/irq|proc/irq/[0-9]+/smp_affinity' "$scratch/trace" | grep -q 'O_WRONLY\|O_RDWR'; then
	fail "apply opens no file of /proc/irq for writing" "$(grep -E 'proc/irq' "$scratch/trace" | head)"
else
	ok "apply opens no file of /proc/irq for writing (strace)"
fi
run apply --check --no-reload -c "$yes" --sysfs-root "$scratch/host" --unit-dir "$units"
is "again: --check finds it up to date (exit 0)" "$rc" 0
echo 8-15,24-31 >"$scratch/host/proc/irq/124/smp_affinity_list"
run apply --check --no-reload -c "$yes" --sysfs-root "$scratch/host" --unit-dir "$units"
is "an interrupt moved on a replayed host is not this host's to steer: still up to date" "$rc" 0

# ---- the key per replica; its drop-in follows the plan ----
one=$(conf one.conf "[replicas gpu]
unit = gpu@%i.service

[replica nic]
unit = nic.service
accelerators = 0000:81:00.0
irq-affinity = yes")
run apply --diff --no-reload -c "$one" --sysfs-root "$scratch/host" --unit-dir "$units"
is "apply of a plan with one replica's irq-affinity = yes exits 0" "$rc" 0
if grep -q -- '^-ExecStart=.*--banirq=60' "$scratch/out" && grep -q -- '^+ExecStart=.* --banirq=124$' "$scratch/out"; then
	ok "--diff shows irqbalance's drop-in down to that replica's interrupt"
else fail "--diff of the drop-in" "$out"; fi
run remove --json --no-reload --sysfs-root "$scratch/host" --unit-dir "$units"
py "remove takes irqbalance's drop-in with the replicas'" "
assert {'unit': 'irqbalance.service', 'action': 'removed'} in d['units'] and d['interrupts'] == [], d"
if [ -e "$ib" ]; then fail "irqbalance's drop-in is gone" "$(ls -R "$units")"; else ok "irqbalance's drop-in is gone"; fi
run apply --no-reload -c "$one" --sysfs-root "$scratch/host" --unit-dir "$units"
no=$(conf no.conf "[replicas gpu]
unit = gpu@%i.service")
run apply --json --no-reload -c "$no" --sysfs-root "$scratch/host" --unit-dir "$units"
py "a plan without irq-affinity removes it" "assert {'unit': 'irqbalance.service', 'action': 'removed'} in d['units'], d"
run plan -vv -c "$no" --sysfs-root "$scratch/host"
if grep -q 'proc/irq\|msi_irqs' "$scratch/err"; then fail "without irq-affinity nothing reads interrupts" "$(grep irq "$scratch/err" | head -3)"
else ok "without irq-affinity, plan reads no interrupt"; fi

# ---- 10,000 interrupts, as 8 adapters with a queue a CPU have on a host of 1,024 CPUs ----
# The untuned host's nine devices given 10,000 message-signalled interrupts between them, their
# numbers interleaved and listed in no order; the new ones without /proc/irq/N (their CPUs
# unknown), so that the test makes a third of the files.
many=$scratch/many
cp -a "$untuned" "$many"
python3 - "$many" 10000 <<'EOF'
import glob, os, random, sys
root, total = sys.argv[1], int(sys.argv[2])
devs = sorted(glob.glob(root + "/sys/devices/*/*/*/msi_irqs"))
numbers = list(range(1000, 1000 + total - len(os.listdir(root + "/proc/irq"))))
random.Random(1).shuffle(numbers)
for n in numbers:
    open("%s/%d" % (devs[n % len(devs)], n), "w").close()
EOF
"$numaplan" show --json -c /dev/null --sysfs-root "$many" >"$scratch/out" 2>"$scratch/err"
is "show of 10,000 interrupts exits 0" "$?" 0
py "each device's in number order, each once: 10,000" "
i = [[q['irq'] for q in a['interrupts']] for a in d['accelerators'] + d['nics']]
assert all(x == sorted(set(x)) for x in i) and sum(map(len, i)) == 10000, [len(x) for x in i]"
mu=$scratch/many-units
mib=$mu/irqbalance.service.d/50-numaplan.conf
run apply --no-reload -c "$yes" --sysfs-root "$many" --unit-dir "$mu"
is "apply steering 10,000 interrupts exits 0" "$rc" 0
size=$(stat -c %s "$mib" 2>/dev/null || echo 0)
bans=$(grep '^ExecStart=.' "$mib" | tr ' ' '\n' | grep -c '^--banirq=')
sorted=$(grep '^ExecStart=.' "$mib" | tr ' ' '\n' | sed -n 's/^--banirq=//p' | sort -nu | wc -l)
if [ "$bans" = 10000 ] && [ "$sorted" = 10000 ] && [ "$size" -lt $((512 * 1024)) ]; then
	ok "irqbalance's drop-in bans each of them once, in $size bytes, within what numaplan reads back"
else fail "the drop-in of 10,000 bans" "$bans bans, $sorted distinct, $size bytes"; fi
run apply --no-reload -c "$yes" --sysfs-root "$many" --unit-dir "$mu"
is "a second apply exits 0" "$rc" 0
case $out in *"nothing to do: 9 drop-ins up to date"*) ok "with nothing to do" ;; *) fail "nothing to do" "$out$err" ;; esac
run remove --no-reload --unit-dir "$mu"
if [ "$rc" = 0 ] && [ ! -e "$mib" ]; then ok "remove takes irqbalance's drop-in away"
else fail "remove of the large drop-in" "$rc: $err"; fi

# What an older numaplan wrote past the size it reads (its header tells it): taken away all the same.
mkdir -p "$mu/irqbalance.service.d"
{
	echo "# Generated by numaplan from numaplan.conf. Do not edit: run numaplan apply."
	printf '[Service]\nExecStart=\nExecStart="/usr/sbin/irqbalance" --foreground $IRQBALANCE_ARGS'
	seq -f ' --banirq=%g' 100000 140000 | tr -d '\n'
	echo
} >"$mib"
run remove --no-reload --unit-dir "$mu"
if [ "$rc" = 0 ] && [ ! -e "$mib" ]; then ok "remove takes away a drop-in of numaplan's past 512 KiB"
else fail "remove of an old drop-in past 512 KiB" "$rc: $err"; fi
# A drop-in that cannot be read is said, never passed over.
mkdir -p "$mu/irqbalance.service.d"
rm -f "$mib"
mkfifo "$mib"
run remove --no-reload --unit-dir "$mu"
case $err in
*"warning: $mib is a FIFO, a device or a socket, not a drop-in: left alone"*) ok "remove names a FIFO where a drop-in belongs" ;;
*) fail "remove and a FIFO" "$rc: $err" ;;
esac
rm -f "$mib"

# ---- irqbalance's drop-ins are the admin's: never replaced or removed, another ExecStart= said ----
printf '[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground --oneshot\n' >"$mib"
state() { (cd "$mu" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s.%N 2>&1; cat "$mib"); }
before=$(state)
run apply --no-reload -c "$yes" --sysfs-root "$many" --unit-dir "$mu"
is "an admin's file at the name of numaplan's irqbalance drop-in: apply exits 3" "$rc" 3
case $err in
*"error: $mib is not numaplan's"*"refused, nothing written"*) ok "naming it and what to do" ;;
*) fail "the refusal" "$err" ;;
esac
is "the unit directory, the admin's file with it, as it was" "$(state)" "$before"
run remove --no-reload --unit-dir "$mu"
is "remove leaves it" "$(cat "$mib")" "$(printf '[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground --oneshot')"
mv "$mib" "$mu/irqbalance.service.d/60-local.conf"
run apply --no-reload -c "$yes" --sysfs-root "$many" --unit-dir "$mu"
case $rc:$err in
0:*"warning: $mu/irqbalance.service.d/60-local.conf sets ExecStart= too"*"after 50-numaplan.conf's, is the one that runs"*)
	ok "once renamed, apply writes its own and says that the admin's ExecStart= wins, by the names' order" ;;
*) fail "another drop-in's ExecStart=" "$rc: $err" ;;
esac
done_testing

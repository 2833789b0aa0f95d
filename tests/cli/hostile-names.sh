#!/bin/bash
# Bytes that are not UTF-8, and control bytes, in what numaplan prints: in a configuration value,
# a configuration path and the names a replayed capture holds (a network interface, a
# /sys/class/iommu entry, the kernel command line, transparent huge pages' word). Every --json
# document, the error document included, must decode as strict UTF-8 and parse (python3's json);
# the text of show, show --matrix and plan must hold no control byte but newline and tab, no DEL
# or C1 control and no invalid UTF-8, and show each name in its escaped form. Then captures of the
# same family (every byte 0x01-0xff in one name, the longest names, a 1 MiB /proc/cmdline, empty
# files, directories and loops of links where files belong) must give show's exit 0, plan's 0 or
# 3, a warning naming what could not be read, and never a crash or a hang. Everything is written
# under one temporary directory.
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
base=$fixtures/hosts/untuned-2s-8gpu

# What a strict reader makes of a file: `json FILE` decodes it as UTF-8 and parses it, `text FILE`
# decodes it and finds some text, with no control character but newline and tab, `get FILE EXPR`
# prints ascii() of EXPR on the parsed document `d`.
cat >"$scratch/check.py" <<'PY'
import json, sys
mode, path = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
try:
    text = raw.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit('not UTF-8: %s, near %r' % (e, raw[max(0, e.start - 20):e.end + 20]))
if mode == 'text':
    if not text.strip():
        sys.exit('no text at all')  # clean, but of nothing: what a broken binary prints
    bad = [(i, c) for i, c in enumerate(text) if (ord(c) < 0x20 and c not in '\n\t') or 0x7f <= ord(c) < 0xa0]
    if bad:
        i = bad[0][0]
        sys.exit('%d control characters, the first %r in %r' % (len(bad), bad[0][1], text[max(0, i - 30):i + 30]))
elif mode == 'json':
    try:
        json.loads(text)
    except ValueError as e:
        sys.exit('no JSON: %s' % e)
elif mode == 'get':
    print(ascii(eval(sys.argv[3], {"d": json.loads(text)})))
PY

hang=$(scaled 60) # how long a command may take before it counts as hung
run() { # run NAME ARGS...: numaplan ARGS into $scratch/NAME.{out,err}; sets rc
	local name=$1
	shift
	timeout "$hang" "$numaplan" "$@" >"$scratch/$name.out" 2>"$scratch/$name.err"
	rc=$?
	output_seen "$scratch/$name.out" "$scratch/$name.err" "$rc" "$@"
}
crashed() { # crashed NAME: the run ended by a signal, a timeout or a sanitizer's report
	[ "$rc" -ge 124 ] || grep -q -E 'runtime error:|AddressSanitizer|LeakSanitizer' "$scratch/$1.err"
}
doc_ok() { # doc_ok MODE DESCRIPTION NAME: NAME's stdout passes check.py's MODE (json or text)
	local why
	if crashed "$3"; then
		fail "$2" "exit $rc" "$(head -c 2000 "$scratch/$3.err")"
	elif why=$(python3 "$scratch/check.py" "$1" "$scratch/$3.out" 2>&1); then
		ok "$2"
	else fail "$2" "exit $rc: $why"; fi
}
json_ok() { doc_ok json "$@"; } # json_ok DESCRIPTION NAME
text_ok() { doc_ok text "$@"; } # text_ok DESCRIPTION NAME
has() { # has DESCRIPTION NAME TEXT: NAME's stdout holds TEXT as it is
	if grep -q -F -- "$3" "$scratch/$2.out"; then ok "$1"; else fail "$1" "no '$3' in:" "$(head -c 3000 "$scratch/$2.out")"; fi
}
get() { # get NAME EXPR: ascii() of EXPR on NAME's document, d
	python3 "$scratch/check.py" get "$scratch/$1.out" "$2" 2>&1
}
conf() { # conf NAME: a file of printf's format in $scratch/NAME, mode 0644; prints its path
	local path=$scratch/$1
	printf "$2" >"$path"
	chmod 0644 "$path"
	echo "$path"
}
copy_host() { # copy_host NAME: a writable copy of the base host
	cp -r "$base" "$scratch/$1"
	echo "$scratch/$1"
}
nic_dir() { readlink -f "$1/sys/bus/pci/devices/0000:11:00.0"; }

good=$(conf good.conf '[replica a]\nunit = a.service\naccelerators = 0000:21:00.0\nmemory = 4G\n')
# ---- A configuration value that is not UTF-8: the error document of every verb that reads it ----
bad=$(conf bad-value.conf '[replica a]\nunit = a.service\nmemory = 1G\xff\xfe\n')
run plan-bad plan --json -c "$bad" --sysfs-root "$base"
json_ok "plan --json, a value with bytes 0xff 0xfe: the error document parses (exit $rc)" plan-bad
is "its message names the line and the first byte, escaped" \
	"$(get plan-bad "d['error']['code'], 'bad-value.conf:3: ' in d['error']['message'] and '(\\\\xff)' in d['error']['message']")" \
	"(2, True)"
run status-bad status --json -c "$bad" --sysfs-root "$base"
json_ok "status --json: the same (exit $rc)" status-bad
run verify-bad verify --json --no-warmup -c "$bad" --sysfs-root "$base"
json_ok "verify --json: the same (exit $rc)" verify-bad
run apply-bad apply --check --json -c "$bad" --sysfs-root "$base" --unit-dir "$scratch/units"
json_ok "apply --check --json: the same (exit $rc)" apply-bad
run migrate-bad migrate --dry-run --json -c "$bad" --sysfs-root "$base"
json_ok "migrate --dry-run --json: the same (exit $rc)" migrate-bad
run show-bad show --json -c "$bad" --sysfs-root "$base"
json_ok "show --json, which leaves that configuration out: its document parses (exit $rc)" show-bad

# ---- A configuration path that is not UTF-8, and one with an escape sequence ----
odd=$scratch/$'conf-\xfe\xff\x1b[31m.conf'
cp "$good" "$odd"
run plan-path plan --json -c "$odd" --sysfs-root "$base"
json_ok "plan --json -c PATH with bytes 0xfe 0xff and ESC: its document parses (exit $rc)" plan-path
cp "$bad" "$odd"
run plan-path-bad plan --json -c "$odd" --sysfs-root "$base"
json_ok "and the error document of a bad configuration at that path parses (exit $rc)" plan-path-bad
cp "$good" "$odd"
run plan-path-text plan -c "$odd" --sysfs-root "$base"
cp "$scratch/plan-path-text.err" "$scratch/plan-path-said.out" # the message, on stderr
: >"$scratch/plan-path-said.err"
text_ok "plan's message names that path with no control byte and no invalid UTF-8 (exit $rc)" plan-path-said
if [ "$rc" -eq 2 ] && grep -q -F 'conf-\xfe\xff\x1b[31m.conf: a control character or a byte that is not UTF-8 in the configuration' \
	"$scratch/plan-path-text.err"; then
	ok "... refused, since the drop-ins name it: exit 2, the path escaped"
else fail "a configuration path with such bytes is refused" "exit $rc" "$(cat "$scratch/plan-path-text.err")"; fi

# ---- A capture's names: escape sequences and bytes that are not UTF-8 ----
names=$(copy_host names)
nic=$(nic_dir "$names")
mv "$nic/net/"* "$nic/net/"$'eth\x1b[31mred\xff\xfe\x01'
rm -r "$names/sys/kernel/iommu_groups/"*
mkdir -p "$names/sys/class/iommu/"$'dmar\x1b]0;pwned\x07\xff'
mkdir -p "$names/sys/kernel/mm/transparent_hugepage"
printf 'always [\x1b[5mmadvise\xff] never\n' >"$names/sys/kernel/mm/transparent_hugepage/enabled"
printf '\x1b[31m\n' >"$(readlink -f "$names/sys/bus/pci/devices/0000:21:00.0")/numa_node"

run names-json show --json -c /dev/null --sysfs-root "$names"
json_ok "show --json of a capture with such names parses (exit $rc)" names-json
is "the interface as it is, each byte that is no UTF-8 as U+FFFD" "$(get names-json "d['nics'][0]['interface']")" \
	"'eth\\x1b[31mred\\ufffd\\ufffd\\x01'"
is "the IOMMU entry and the huge pages' word the same" \
	"$(get names-json "'\x1b]0;pwned\x07\ufffd' in d['host']['iommu']['how'], d['transparent_hugepages']")" \
	"(True, '\\x1b[5mmadvise\\ufffd')"
run names-plan-json plan --json -c "$good" --sysfs-root "$names"
json_ok "plan --json of it parses (exit $rc)" names-plan-json
run names-status-json status --json -c "$good" --sysfs-root "$names"
json_ok "status --json of it parses (exit $rc)" names-status-json
run names-show show -c /dev/null --sysfs-root "$names"
is "show exits 0" "$rc" 0
text_ok "show's text holds no control byte and no invalid UTF-8" names-show
has "the interface escaped in the table" names-show 'eth\x1b[31mred\xff\xfe\x01'
has "the /sys/class/iommu entry escaped" names-show 'lists dmar\x1b]0;pwned\x07\xff)'
has "transparent huge pages' word escaped" names-show 'transparent huge pages: \x1b[5mmadvise\xff'
has "a warning's value escaped" names-show "'\\x1b[31m' is no node number"
run names-matrix show --matrix -c /dev/null --sysfs-root "$names"
text_ok "show --matrix: no control byte, no invalid UTF-8 (exit $rc)" names-matrix
has "the interface escaped in its legend (NIC0: PCI, name, interface)" names-matrix ' eth\x1b[31mred\xff\xfe\x01'
run names-plan plan -c "$good" --sysfs-root "$names"
text_ok "plan's text: no control byte, no invalid UTF-8 (exit $rc)" names-plan
has "its warning escaped" names-plan "'\\x1b[31m' is no node number"

# ---- The NVIDIA driver's GPU directories (/proc/driver/nvidia/gpus): a GPU's node, and one CDMM keeps ----
gpus=$scratch/gpus
cp -r "$fixtures/hosts/gb200-tray" "$gpus"
mv "$gpus/proc/driver/nvidia/gpus/0009:01:00.0" "$gpus/proc/driver/nvidia/gpus/"$'gpu\x1b[31m\nA'
mkdir -p "$gpus/proc/driver/nvidia/gpus/"$'cdmm\x1b[31m\nB\xff'
printf 'Status:    offline\n' >"$gpus/proc/driver/nvidia/gpus/"$'cdmm\x1b[31m\nB\xff/numa_status'
run gpus-show show -c /dev/null --sysfs-root "$gpus"
text_ok "GPU directories named with ESC [ 31m and a newline: show's text clean (exit $rc)" gpus-show
run gpus-show -v show -c /dev/null --sysfs-root "$gpus" # each warning in full, not one line a code
text_ok "and with -v (exit $rc)" gpus-show
has "one that names a node: left out, its name escaped" gpus-show \
	'/proc/driver/nvidia/gpus/gpu\x1b[31m\nA: malformed: not a PCI address, left out'
has "one whose memory is no node: the same" gpus-show \
	'/proc/driver/nvidia/gpus/cdmm\x1b[31m\nB\xff: malformed: not a PCI address, left out'
has "the other GPUs as before" gpus-show 'GPU memory of 0008:01:00.0: node 2'
run gpus-json show --json -c /dev/null --sysfs-root "$gpus"
json_ok "show --json of it parses (exit $rc)" gpus-json
warns() { # warns DESCRIPTION NAME CODE TEXT: NAME's show --json has a warning CODE whose message holds TEXT
	is "$1" "$(get "$2-json" "any(w['code'] == '$3' and '$4' in w['message'] for w in d['warnings'])")" True
}
warns "its warning there, the name escaped" gpus sysfs-malformed 'gpus/gpu\\x1b[31m\\nA: malformed'
is "no node's memory owned by a name that is no PCI address" \
	"$(get gpus-json "[n['accelerator'] for n in d['nodes'] if n['id'] in (2, 10)]")" "['0008:01:00.0', None]"

# ---- Every byte from 0x01 to 0xff (but '/') in one name, and the longest names ----
all=$(copy_host all-bytes)
every=$(python3 -c 'import sys; sys.stdout.buffer.write(bytes(b for b in range(1, 256) if b != 0x2f))')
nic=$(nic_dir "$all")
mv "$nic/net/"* "$nic/net/$every"
rm -r "$all/sys/kernel/iommu_groups/"*
mkdir -p "$all/sys/class/iommu/$every"
run all-json show --json -c /dev/null --sysfs-root "$all"
json_ok "show --json, an interface and an IOMMU named with every byte 0x01-0xff: parses (exit $rc)" all-json
is "the interface: bytes 0x01-0x7f as they are, each byte from 0x80 as U+FFFD" \
	"$(get all-json "d['nics'][0]['interface'] == bytes(b for b in range(1, 256) if b != 0x2f).decode('utf-8', 'replace')")" True
run all-show show -c /dev/null --sysfs-root "$all"
text_ok "show's text of it: no control byte, no invalid UTF-8 (exit $rc)" all-show
has "each control byte as \\xNN and the backslash doubled" all-show '\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e'
has "... the backslash doubled, DEL and the bytes from 0x80 as \\xNN" all-show 'Z[\\]^_`a'
has "... and so to 0xff" all-show '~\x7f\x80\x81'
run all-matrix show --matrix -c /dev/null --sysfs-root "$all"
text_ok "show --matrix of it: no control byte, no invalid UTF-8 (exit $rc)" all-matrix
run all-plan plan -c "$good" --sysfs-root "$all"
text_ok "plan's text of it (exit $rc)" all-plan

long=$(copy_host long)
nic=$(nic_dir "$long")
mv "$nic/net/"* "$nic/net/$(head -c 255 /dev/zero | tr '\0' '\377')"
rm -r "$long/sys/kernel/iommu_groups/"*
mkdir -p "$long/sys/class/iommu/$(head -c 255 /dev/zero | tr '\0' '\033')"
run long-show show -c /dev/null --sysfs-root "$long"
text_ok "names of 255 bytes 0xff and 255 ESCs: show's text clean (exit $rc)" long-show
has "the longest escaped whole (1020 characters)" long-show "$(printf '\\xff%.0s' {1..255})  -     x8"
run long-json show --json -c /dev/null --sysfs-root "$long"
json_ok "and show --json parses (exit $rc)" long-json

# ---- The kernel command line: an escape sequence in the IOMMU's parameter, 1 MiB long ----
cmd=$(copy_host cmdline)
find "$cmd/sys/kernel/iommu_groups" -name type -delete
{
	printf 'ro iommu=pt,\x1b[2J\x1b[H\xff quiet '
	head -c 1048576 /dev/zero | tr '\0' 'a'
} >"$cmd/proc/cmdline"
run cmd-show show -c /dev/null --sysfs-root "$cmd"
text_ok "a 1 MiB /proc/cmdline with iommu=pt,ESC...: show's text clean (exit $rc)" cmd-show
has "the parameter escaped" cmd-show 'passthrough (iommu=pt,\x1b[2J\x1b[H\xff on the kernel command line'
run cmd-json show --json -c /dev/null --sysfs-root "$cmd"
json_ok "show --json of it parses (exit $rc)" cmd-json

# ---- Files that are empty, directories, or loops of links ----
# Each case is a copy of the base host changed by a shell command run in it: show exits 0 with a
# document that parses and text that is clean; plan exits 0 or 3 (saying why on stderr).
hostile() { # hostile NAME COMMAND
	local root
	root=$(copy_host "case-$1")
	(cd "$root" && eval "$2") || {
		fail "$1: the capture could not be made"
		return
	}
	run "$1-show" show -c /dev/null --sysfs-root "$root"
	local show_rc=$rc
	text_ok "$1: show exits $show_rc, its text clean" "$1-show"
	run "$1-json" show --json -c /dev/null --sysfs-root "$root"
	if [ "$show_rc" = 0 ] && [ "$rc" = 0 ]; then json_ok "$1: show --json exits 0, its document parses" "$1-json"; else
		fail "$1: show exits 0" "show $show_rc, show --json $rc" "$(head -c 2000 "$scratch/$1-json.err")"
	fi
	run "$1-plan" plan --json -c /dev/null --sysfs-root "$root"
	if crashed "$1-plan" || ! { [ "$rc" = 0 ] || { [ "$rc" = 3 ] && [ -s "$scratch/$1-plan.err" ]; }; }; then
		fail "$1: plan exits 0, or 3 saying why" "exit $rc" "$(head -c 2000 "$scratch/$1-plan.err")"
	else json_ok "$1: plan exits $rc, its document parses" "$1-plan"; fi
}
no_types='find sys/kernel/iommu_groups -name type -delete'

hostile empty-files 'for f in sys/kernel/iommu_groups/*/type proc/cmdline proc/swaps proc/sys/kernel/osrelease \
	proc/sys/kernel/numa_balancing proc/sys/vm/zone_reclaim_mode; do : >"$f"; done
	for d in sys/bus/pci/devices/*/; do for f in modalias vendor device class numa_node local_cpulist current_link_speed; do
		if [ -e "$d$f" ]; then : >"$d$f"; fi; done; done'
hostile dirs 'for f in proc/cmdline proc/swaps proc/sys/kernel/osrelease proc/sys/vm/zone_reclaim_mode; do
	rm "$f" && mkdir "$f"; done; d=sys/bus/pci/devices/0000:21:00.0/; rm "$d/numa_node" && mkdir "$d/numa_node"'
warns "dirs: a directory where /proc/swaps belongs is named" dirs sysfs-malformed '/proc/swaps: not a regular file'
warns "... and one where zone_reclaim_mode belongs" dirs sysfs-malformed '/proc/sys/vm/zone_reclaim_mode: not a regular file'
hostile cmdline-dir "$no_types"'; rm proc/cmdline && mkdir proc/cmdline'
warns "cmdline-dir: /proc/cmdline named" cmdline-dir sysfs-malformed '/proc/cmdline: not a regular file'
hostile cmdline-loop "$no_types"'; rm proc/cmdline && ln -s cmdline proc/cmdline'
warns "cmdline-loop: /proc/cmdline named" cmdline-loop sysfs-malformed '/proc/cmdline: Too many levels of symbolic links'
hostile iommu-groups-loop 'rm -r sys/kernel/iommu_groups && ln -s iommu_groups sys/kernel/iommu_groups'
warns "iommu-groups-loop: /sys/kernel/iommu_groups named" iommu-groups-loop sysfs-malformed '/sys/kernel/iommu_groups: Too many'
hostile class-iommu-loop 'rm -r sys/kernel/iommu_groups/* && mkdir -p sys/class && ln -s iommu sys/class/iommu'
hostile net-loop 'd=$(readlink -f sys/bus/pci/devices/0000:11:00.0) && rm -r "$d/net" && ln -s net "$d/net"'
hostile device-loop 'rm sys/bus/pci/devices/0000:21:00.0 && ln -s 0000:21:00.0 sys/bus/pci/devices/0000:21:00.0'
warns "device-loop: the device named" device-loop pci-incomplete 'PCI device 0000:21:00.0: no readable class'
hostile devices-loop 'rm -r sys/bus/pci/devices && ln -s devices sys/bus/pci/devices'
warns "devices-loop: /sys/bus/pci/devices named, the accelerators unknown" devices-loop host-unplannable \
	'/sys/bus/pci/devices: Too many levels of symbolic links'
is "... and plan refuses: exit 3" "$(get devices-loop-plan "d['error']['code']")" 3
hostile nodes-loop 'rm -r sys/devices/system/node && ln -s node sys/devices/system/node'
warns "nodes-loop: /sys/devices/system/node named, the nodes unknown" nodes-loop host-unplannable \
	'/sys/devices/system/node: Too many levels of symbolic links'
is "... and plan refuses: exit 3" "$(get nodes-loop-plan "d['error']['code']")" 3
has "... and show says the nodes are unknown, not that the kernel has no NUMA" nodes-loop-show 'the NUMA nodes are unknown'
hostile cpu-loop 'rm -r sys/devices/system/cpu && ln -s cpu sys/devices/system/cpu'
done_testing

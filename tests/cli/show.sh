#!/bin/bash
# The command line of show and snapshot: exit codes, messages that name the bad file, and the
# snapshot round trip (capture, extract, replay) on this host and on a fixture host.
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run --help
is "--help exits 0" "$rc" 0
case $out in *"Usage: numaplan"*show*snapshot*) ok "--help lists the commands" ;; *) fail "--help lists the commands" "$out" ;; esac
run --version
is "--version exits 0" "$rc" 0
case $out in "numaplan "[0-9]*) ok "--version prints the version" ;; *) fail "--version prints the version" "$out" ;; esac
run show --help
case $out in *"Usage: numaplan show"*) ok "show --help is show's help" ;; *) fail "show --help is show's help" "$out" ;; esac
run snapshot --help
case $out in *"Usage: numaplan snapshot"*) ok "snapshot --help is snapshot's help" ;; *) fail "snapshot --help" "$out" ;; esac
run sho
is "a command prefix is not a command (exit 2)" "$rc" 2
run frobnicate
is "an unknown command exits 2" "$rc" 2
run show --frobnicate
is "an unknown option exits 2" "$rc" 2
run show extra
is "an unexpected argument exits 2" "$rc" 2
run show --sysfs-root "$scratch/does-not-exist"
is "a missing root exits 3" "$rc" 3
run --sysfs-root="$fixtures/hosts/dgx-2s-8gpu" show --json
check "--sysfs-root=DIR before the command works: that host's two nodes" test "$rc" = 0 -a \
	"$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$scratch/out" 2>&1)" = 2

# A malformed file: show reports the rest, warning about it by name; plan refuses (exit 3) saying
# why, with nothing on stdout.
cp -r "$fixtures/hosts/dgx-2s-8gpu" "$scratch/bad"
echo "0-15,x" >"$scratch/bad/sys/devices/system/node/node1/cpulist"
run show --json --sysfs-root "$scratch/bad"
check "a malformed cpulist beside a good cpumap: read from the mask, with a warning naming both" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["warnings"] if x["code"] == "sysfs-malformed" and "node1/cpulist" in x["message"]]
assert w and "node1/cpumap instead" in w[0]["message"] and d["nodes"][1]["cpus"] != "", (w, d["nodes"][1])' "$scratch/out"
rm -f "$scratch/bad/sys/devices/system/node/node1/cpumap"
run show --json --sysfs-root "$scratch/bad"
is "a malformed cpulist: show still exits 0" "$rc" 0
check "it is a host-unplannable warning (severity error) naming the file" python3 -c '
import json, sys
w = [x for x in json.load(open(sys.argv[1]))["warnings"] if x["code"] == "host-unplannable"]
assert w and w[0]["severity"] == "error" and "/sys/devices/system/node/node1/cpulist: malformed" in w[0]["message"], w' "$scratch/out"
run plan --sysfs-root "$scratch/bad" -c /dev/null
if [ $rc -eq 3 ] && grep -q "node1/cpulist: malformed: node 1's CPUs are unknown" <<<"$err" && [ -z "$out" ]; then
	ok "plan refuses it (exit 3), naming the file and why, nothing on stdout"
else fail "plan on a malformed cpulist" "exit $rc" "$err"; fi
echo "Node 1 MemTotal: lots" >"$scratch/bad/sys/devices/system/node/node1/meminfo"
echo "0-15" >"$scratch/bad/sys/devices/system/node/node1/cpulist"
run plan --sysfs-root "$scratch/bad" -c /dev/null
case "$rc:$err" in 3:*node1/meminfo*"memory is unknown"*) ok "a malformed meminfo: plan exits 3 naming the file" ;; *) fail "malformed meminfo" "$rc" "$err" ;; esac

# A trimmed PCI device directory: reported from what is there, with a warning, never fatal.
run show --json --sysfs-root "$fixtures/hosts/gpus-numa-minus1"
is "a trimmed PCI tree still exits 0" "$rc" 0
check "the trimmed device is a pci-incomplete warning in the JSON, naming the missing file as the host does" python3 -c '
import json, sys
w = [x for x in json.load(open(sys.argv[1]))["warnings"] if x["code"] == "pci-incomplete"]
assert len(w) == 1 and w[0]["pci"] == "0000:e2:00.0", w
assert "/sys/bus/pci/devices/0000:e2:00.0/vendor" in w[0]["message"] and "fixtures" not in w[0]["message"], w' "$scratch/out"
cp -r "$fixtures/hosts/dgx-2s-8gpu" "$scratch/trim"
find "$scratch/trim/sys/bus/pci/devices" -name class -path '*18:00.0*' -delete
run show --json --sysfs-root "$scratch/trim"
case "$rc:$out" in 0:*"0000:2a:00.0"*) ok "a device without a class is skipped, the others reported" ;; *) fail "classless device" "$rc" "$err" ;; esac

# Numbers no kernel writes: reported as far as they are true, with a warning, never wrapped.
cp -r "$fixtures/hosts/dgx-2s-8gpu" "$scratch/odd"
printf 'Node 0 MemTotal: 18014398509481983 kB\nNode 0 MemFree: 18014398509481983 kB\n' \
	>"$scratch/odd/sys/devices/system/node/node0/meminfo"
printf 'Node 1 MemTotal: 1024 kB\nNode 1 MemFree: 2048 kB\n' >"$scratch/odd/sys/devices/system/node/node1/meminfo"
echo 99999999999999 >"$scratch/odd/sys/bus/pci/devices/0000:18:00.0/numa_node"
echo "10 0" >"$scratch/odd/sys/devices/system/node/node0/distance"
run show --json --sysfs-root "$scratch/odd"
is "odd numbers: show still exits 0" "$rc" 0
check "a MemTotal of 2^64 - 1 KiB prints as itself, not negative" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nodes"][0]["memory_total_bytes"] == 18014398509481983 * 1024, d["nodes"][0]' "$scratch/out"
check "a numa_node beyond int: a warning naming it, and the node from the local CPUs instead" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for x in d["warnings"] if x["code"] == "pci-incomplete" and x.get("pci") == "0000:18:00.0"]
assert w and "99999999999999" in w[0]["message"], d["warnings"]
a = [x for x in d["accelerators"] if x["pci"] == "0000:18:00.0"][0]
assert a["numa_node"] == 0 and a["numa_source"] == "local_cpus", a' "$scratch/out"
check "a distance of 0 and an asymmetric table: distances-invalid" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [x["message"] for x in d["warnings"] if x["code"] == "distances-invalid"]
assert any("distance of 0" in m for m in w), w' "$scratch/out"
check "MemFree above MemTotal: meminfo-invalid on that node" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [x for x in d["warnings"] if x["code"] == "meminfo-invalid" and x.get("node") == 1], d["warnings"]' "$scratch/out"
printf '[replica a]\nunit = a\0.service\n' >"$scratch/nul.conf"
chmod 0644 "$scratch/nul.conf"
run plan --sysfs-root "$fixtures/hosts/dgx-2s-8gpu" -c "$scratch/nul.conf"
if [ $rc -eq 2 ] && grep -q "nul.conf:2: a NUL byte" <<<"$err"; then ok "a NUL in a value is named as such, at its line"; else
	fail "NUL in a value" "exit $rc" "$err"; fi

# Snapshot round trips: the replay shows what the captured host showed.
for src in / "$fixtures/hosts/pcie-switches" "$fixtures/hosts/nps4-2s-8gpu"; do
	rm -rf "$scratch/x" && mkdir "$scratch/x"
	run snapshot --sysfs-root "$src" -o "$scratch/s.tar"
	is "snapshot of $src exits 0" "$rc" 0
	tar -xf "$scratch/s.tar" -C "$scratch/x"
	"$numaplan" show --json --sysfs-root "$src" | grep -v memory_free_bytes >"$scratch/a"
	"$numaplan" show --json --sysfs-root "$scratch/x" | grep -v memory_free_bytes >"$scratch/b"
	if diff -u "$scratch/a" "$scratch/b" >"$scratch/d" && grep -q '"nodes"' "$scratch/a"; then
		ok "show of the extracted snapshot of $src matches show of $src"
	else
		fail "snapshot round trip of $src" "$(head -30 "$scratch/d")"
	fi
	# A fixture is static: its whole table must come back, sizes included. This host's free
	# memory moves between two reads: its node lines are compared without that column.
	if [ "$src" = / ]; then
		mask() { awk '/^ *[0-9]+  (cpu|memory)/ { $8 = "FREE"; $9 = "" } { print }'; }
	else
		mask() { cat; }
	fi
	"$numaplan" show --sysfs-root "$src" | mask >"$scratch/a"
	"$numaplan" show --sysfs-root "$scratch/x" | mask >"$scratch/b"
	if diff -u "$scratch/a" "$scratch/b" >"$scratch/d" && grep -q "GiB" "$scratch/a"; then
		ok "the table round-trips too, sizes included ($src)"
	else fail "table round trip ($src)" "$(head -30 "$scratch/d")"; fi
done
# A fixture is static: its replay must match byte for byte, free memory included.
"$numaplan" show --json --sysfs-root "$fixtures/hosts/nps4-2s-8gpu" >"$scratch/a"
"$numaplan" show --json --sysfs-root "$scratch/x" >"$scratch/b"
check "a static host round-trips byte for byte" test -s "$scratch/a" -a -s "$scratch/b" -a "$(cmp "$scratch/a" "$scratch/b" 2>&1)" = ""
json_seen show "$scratch/b"
n_files=$(tar -tf "$scratch/s.tar" | grep -vc '/$')
n_read=$(cd "$scratch/x" && find . -type f | wc -l)
is "the tar holds files only once" "$n_files" "$([ "$n_read" -gt 0 ] && echo "$n_read")"
if ! tar -tf "$scratch/s.tar" | grep -qE '(^|/)sys/devices/system/node/node0/cpulist$'; then
	fail "the snapshot holds only files numaplan reads" "it has no node0/cpulist: $(tar -tf "$scratch/s.tar" 2>&1 | head -3)"
elif tar -tf "$scratch/s.tar" | grep -q 'thread_siblings$\|core_id$\|possible$\|surplus'; then
	fail "the snapshot holds only files numaplan reads" "$(tar -tf "$scratch/s.tar" | grep 'thread_siblings$\|core_id$\|possible$\|surplus' | head -3)"
else
	ok "the snapshot holds only files numaplan reads"
fi
run snapshot --sysfs-root "$scratch/does-not-exist" -o "$scratch/none.tar"
is "snapshot of a missing root exits 3" "$rc" 3
check "a failed snapshot leaves no file" test "$rc" = 3 -a ! -e "$scratch/none.tar"
# ---- show --json --matrix: one document, everything --json holds and the matrix ----
nics=$fixtures/hosts/nics-4n-8gpu
"$numaplan" show --json -c /dev/null --sysfs-root "$nics" >"$scratch/plain.json"
run show --json --matrix -c /dev/null --sysfs-root "$nics"
if python3 - "$scratch/plain.json" "$scratch/out" <<'PY'; then
import json, sys
plain, both = (json.load(open(p)) for p in sys.argv[1:])
m = both.pop("matrix")
assert plain == both, "the rest differs from show --json"
assert m["devices"][:2] == ["0000:13:00.0", "0000:17:00.0"] and len(m["devices"]) == 14, m["devices"]
assert all(len(row) == 14 for row in m["paths"]) and m["paths"][0][:2] == ["X", "PHB"], m["paths"][0]
assert "cpufreq" in both["host"] and both["accelerators"][0]["interrupts"], "tuning or interrupts left out"
PY
	ok "show --json --matrix: what show --json holds (tuning, interrupts, warnings), and the matrix"
else fail "show --json --matrix" "$(head -c 600 "$scratch/out")"; fi
run show -c /dev/null --sysfs-root "$nics" --matrix
grep -q "^GPU0  X     PHB" "$scratch/out" && ok "show --matrix alone still prints the table" || fail "show --matrix" "$out"

# ---- a PCI address that names no device here ----
run show -c /dev/null --sysfs-root "$nics" 0000:13:00.0 0000:99:00.0
if [ "$rc" = 2 ] && grep -qx "numaplan: error: no PCI device 0000:99:00.0 on this host (numaplan show lists them)" "$scratch/err" &&
	[ ! -s "$scratch/out" ]; then
	ok "show with an address no device has: said, exit 2, nothing on stdout"
else fail "show of a missing device" "rc $rc" "$err" "$out"; fi
run show --json -c /dev/null --sysfs-root "$nics" 99:00.0
is "and with --json, the error document" "$rc $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["code"])' "$scratch/out")" "2 2"
# Class and IDs come from modalias where the kernel wrote one, from class, vendor and device where
# it did not (older captures) or wrote something else.
cp -r "$fixtures/hosts/dgx-2s-8gpu" "$scratch/alias"
gpu=$(readlink -f "$scratch/alias/sys/bus/pci/devices/0000:18:00.0")
nic=$(readlink -f "$scratch/alias/sys/bus/pci/devices/0000:17:00.0")
echo 0xffff >"$gpu/vendor" # read over by its modalias
rm "$nic/modalias" && echo 0x8086 >"$nic/vendor"
bmc=$(readlink -f "$scratch/alias/sys/bus/pci/devices/0000:03:00.0")
echo "pci:v00001A03d2000" >"$bmc/modalias" # cut short: the files answer
run show --json --sysfs-root "$scratch/alias"
is "modalias gives the IDs, and the files where it is missing or malformed" "$rc $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
devs = {x["pci"]: x for x in d["accelerators"] + d["nics"]}
print(devs["0000:18:00.0"]["vendor"], devs["0000:17:00.0"]["vendor"], devs["0000:03:00.0"]["vendor"],
      devs["0000:03:00.0"]["class"], [w["code"] for w in d["warnings"] if w["code"] == "pci-incomplete"])' \
	"$scratch/out" 2>&1)" "0 0x10de 0x8086 0x1a03 0x030000 []"
is "the malformed modalias said (sysfs-malformed, the file named), the missing one not" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([w["message"].split(": ")[:2] for w in d["warnings"] if w["code"] == "sysfs-malformed" and "modalias" in w["message"]])' \
	"$scratch/out" 2>&1)" "[['/sys/bus/pci/devices/0000:03:00.0/modalias', 'malformed']]"

# ---- show PCI: that device's warnings and the host's, no other device's ----
untuned=$fixtures/hosts/untuned-2s-8gpu
run show -c /dev/null --sysfs-root "$fixtures/hosts/dgx-2s-8gpu" 0000:18:00.0
others=$(sed -n '/^warnings:/,$p' "$scratch/out" | grep -o '[0-9a-f]\{4\}:[0-9a-f]\{2\}:[0-9a-f]\{2\}\.[0-7]' | grep -v '^0000:18:00\.0$')
if [ "$rc" = 0 ] && grep -q '^  warning: numa-balancing-on: ' "$scratch/out" && [ -z "$others" ]; then
	ok "show 0000:18:00.0: the host's warnings, and no other device named among them"
else fail "show PCI: other devices' warnings" "rc $rc" "$others" "$(sed -n '/^warnings:/,$p' "$scratch/out")"; fi
run show -c /dev/null --sysfs-root "$untuned" 0000:81:00.0
w=$(sed -n '/^warnings:/,$p' "$scratch/out" | grep -v '^  notice: iommu-translated: ') # the host's, naming an example
if grep -q '^  warning: irq-remote: the interrupt of 0000:81:00.0 ' <<<"$w" && grep -q '^  warning: memory-imbalance: ' <<<"$w" &&
	! grep -q '0000:11:00.0\|0000:01:00.0\|0000:a1:00.0\|0000:41:00.0' <<<"$w"; then
	ok "show of one GPU: its own irq-remote in full, the host's and the nodes' warnings, not the NIC's or other GPUs'"
else fail "show PCI: its warnings" "$w"; fi
run show --json -c /dev/null --sysfs-root "$untuned" 0000:81:00.0
check "and in JSON: no warning about another device" python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
assert {x.get("pci") for x in w} == {None, "0000:81:00.0"} and any(x["code"] == "numa-balancing-on" for x in w), w' "$scratch/out"

# ---- the socket column in JSON, as the table has it ----
for host in "$fixtures"/hosts/*/; do
	name=$(basename "$host")
	"$numaplan" -v show -c /dev/null --sysfs-root "$host" >"$scratch/t" 2>/dev/null
	run show --json -c /dev/null --sysfs-root "$host"
	check "$name: each node's sockets in JSON are the table's socket column" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) > 5 and f[0].isdigit() and f[1] in ("cpu+memory", "memory-only", "cpu-only", "unknown"):
        rows[int(f[0])] = f[4]
def text(s):
    if not s:
        return "-"
    out, i = [], 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[j] + 1:
            j += 1
        out.append(str(s[i]) if i == j else "%d-%d" % (s[i], s[j]))
        i = j + 1
    return ",".join(out)
assert rows and all("sockets" in n for n in d["nodes"]), d["nodes"][0]
bad = [(n["id"], n["sockets"], rows.get(n["id"])) for n in d["nodes"] if text(n["sockets"]) != rows.get(n["id"])]
assert not bad, bad' "$scratch/out" "$scratch/t"
done
run show --json -c /dev/null --sysfs-root "$fixtures/hosts/nics-4n-8gpu"
check "nics-4n-8gpu: two nodes a socket; the schema asks for sockets" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [n["sockets"] for n in d["nodes"]] == [[0], [0], [1], [1]], d["nodes"]
s = json.load(open(sys.argv[2]))["$defs"]["node"]
assert "sockets" in s["required"] and "sockets" in s["properties"], s["required"]' "$scratch/out" "$tap_src/schemas/show.schema.json"

# ---- huge page sizes in binary units ----
run show -c /dev/null --sysfs-root "$fixtures/hosts/dgx-2s-8gpu"
if grep -qE '^ +0  cpu\+memory .*  2 MiB 1024/1024, 1 GiB 0/0$' "$scratch/out" && ! grep -q '[0-9]kB' "$scratch/out"; then
	ok "huge page pools: 2 MiB and 1 GiB, not 2048kB and 1048576kB"
else fail "huge page sizes" "$(grep cpu+memory "$scratch/out")"; fi

# ---- 34 nodes, 28 of them empty: folded, the distances between the others ----
tray=$fixtures/hosts/gb200-tray
run show -c /dev/null --sysfs-root "$tray"
nodes=$(sed -n '/^node  kind/,/^$/p' "$scratch/out" | grep -cE '^ +[0-9]+  ')
if [ "$nodes" = 6 ] && grep -qx '  nodes 3-9,11-17,19-25,27-33: no CPUs, no memory online (-v lists them)' "$scratch/out" &&
	grep -qE '^  node +0 +1 +2 +10 +18 +26$' "$scratch/out" && [ "$(grep -n '^accelerators:' "$scratch/out" | cut -d: -f1)" -lt 40 ]; then
	ok "gb200-tray: the 28 empty nodes in one line, the distances between the six others, the accelerators on the first screens"
else fail "gb200-tray folded" "$nodes rows" "$(head -30 "$scratch/out")"; fi
long=$(sed -n '1,/^accelerators:/p' "$scratch/out" | awk 'length > 100')
is "and no line of it wider than 100 columns before the accelerators" "$long" ""
run -v show -c /dev/null --sysfs-root "$tray"
nodes=$(sed -n '/^node  kind/,/^$/p' "$scratch/out" | grep -cE '^ +[0-9]+  ')
if [ "$nodes" = 34 ] && grep -qE '^  node +0 +1 +2 +3 .* 33$' "$scratch/out" && ! grep -q 'no memory online' "$scratch/out"; then
	ok "-v: every node and the whole distance table"
else fail "gb200-tray -v" "$nodes rows"; fi
cp -r "$tray" "$scratch/many"
for m in "$scratch"/many/sys/devices/system/node/node*/meminfo; do
	sed -i 's/MemTotal: *0 kB/MemTotal: 1048576 kB/' "$m"
done
run show -c /dev/null --sysfs-root "$scratch/many"
if grep -qx 'node distances: 34 nodes, too many for a table here (-v prints it; show --json has them)' "$scratch/out" &&
	! grep -q '^  node  ' "$scratch/out"; then
	ok "34 nodes with memory: the distance table is one line saying where it is"
else fail "34 nodes' distances" "$(grep -A3 distances "$scratch/out")"; fi
run show -c /dev/null --sysfs-root "$fixtures/hosts/big-16n-1024c-32gpu"
grep -qE '^  node +0 +1 .* 15$' "$scratch/out" && ok "16 nodes: the distance table still printed" ||
	fail "16 nodes' distances" "$(grep -A2 distances "$scratch/out")"

done_testing

#!/bin/bash
# The network adapters: show lists each adapter's interfaces (a virtio adapter's below virtioN/net/)
# and RDMA devices (by their device link, and soft-RoCE by its interface), and its PCIe path to each
# accelerator; nics = gives each replica the nearest, a list names them (an unknown name: its line,
# exit 2), and the drop-in has prepare write the variables NCCL, Gloo and UCX read, which
# systemd-analyze verify and the file's own text confirm. On replayed hosts, in temporary directories.
# Usage: nics.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 0755 "$scratch"
rail=$fixtures/hosts/nics-4n-8gpu
vm=$fixtures/hosts/cloud-vm-2n-2gpu
units=$scratch/units

conf() { # conf NAME PRINTF-TEXT: a configuration file owned by root, mode 0644
	# shellcheck disable=SC2059 # the text is printf's format on purpose
	printf "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}
json() { # json EXPRESSION: python's value of EXPRESSION over the last run's document, as d
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$scratch/out" "$1" 2>&1
}

# ---- show ----
run show -c /dev/null --sysfs-root "$vm"
if [ "$rc" -eq 0 ] && grep -qE '^  0000:22:00\.0 +0 .* enp34s0 +- ' <<<"$out" && grep -qE '^  0000:42:00\.0 +1 .* ens1 +rxe0 ' <<<"$out"; then
	ok "show: a virtio adapter's interface, below virtioN/net/, and the rxe device on it"
else fail "show of a cloud VM's virtio adapters" "exit $rc" "$out"; fi
run show --json -c /dev/null --sysfs-root "$vm"
is "show --json: the virtio interface, and soft-RoCE tied by its interface" \
	"$(json '[(n["interface"], n["interfaces"], n["rdma_devices"]) for n in d["nics"]]')" \
	"[('enp34s0', ['enp34s0'], []), ('ens1', ['ens1'], [{'name': 'rxe0', 'ports': [1], 'via': 'netdev'}])]"

run show -c /dev/null --sysfs-root "$rail"
if grep -qE '^  0000:56:00\.0 +1 .* ib0 +mlx5_2 ' <<<"$out" && grep -qE '^  0000:14:00\.0 +0 .* ens1f0np0 +mlx5_0 ' <<<"$out"; then
	ok "show: each adapter's first interface by name and its RDMA device"
else fail "show's adapters" "$out"; fi
if grep -qE '^  0000:14:00\.0 +PIX +PHB +SYS +SYS +SYS +SYS +SYS +SYS$' <<<"$out" &&
	grep -qE '^  0000:46:00\.0 +SYS +SYS +PXB +NODE ' <<<"$out" && grep -qE '^  0000:a2:00\.0( +SYS){4} +NODE +NODE +SYS +SYS$' <<<"$out"; then
	ok "show: each adapter's PCIe path to each GPU, as --matrix says it"
else fail "show's adapter paths" "$out"; fi
run show --json -c /dev/null --sysfs-root "$rail"
is "show --json: every interface of an adapter, by name" "$(json '[n["interfaces"] for n in d["nics"] if n["pci"] == "0000:56:00.0"]')" \
	"[['ib0', 'ib0.8001']]"
is "show --json: an RDMA device by its device link, with its ports" \
	"$(json '[n["rdma_devices"] for n in d["nics"] if n["pci"] == "0000:14:00.0"]')" "[[{'name': 'mlx5_0', 'ports': [1], 'via': 'device'}]]"
is "show --json: a virtual function is marked" "$(json '[n["pci"] for n in d["nics"] if n["virtual_function"]]')" "['0000:14:00.2']"
is "show --json: the path to each compute accelerator, by its address" \
	"$(json '[(n["pcie_distance"]["0000:43:00.0"], n["pcie_distance"]["0000:52:00.0"]) for n in d["nics"] if n["pci"] == "0000:46:00.0"]')" \
	"[('PXB', 'NODE')]"
run show --json -c /dev/null --sysfs-root "$rail" 0000:46:00.0
is "show PCI: an adapter alone" "$(json '[n["pci"] for n in d["nics"]] + d["accelerators"]')" "['0000:46:00.0']"

# ---- plan ----
run plan --json -c /dev/null --sysfs-root "$rail"
is "plan: the nearest adapters, PIX before PXB before PHB before NODE, none from another node" \
	"$(json '[(r["name"], [(a["pci"], a["link"]) for a in r["nics"]["adapters"]]) for r in d["replicas"]][::2]')" \
	"[('inference-0', [('0000:14:00.0', 'PIX')]), ('inference-2', [('0000:46:00.0', 'PXB')]), ('inference-4', [('0000:a2:00.0', 'NODE')]), ('inference-6', [])]"
is "plan: inference-3's adapter on its host bridge" "$(json '[(a["pci"], a["interface"], a["rdma_devices"], a["link"]) for a in d["replicas"][3]["nics"]["adapters"]]')" \
	"[('0000:56:00.0', 'ib0', ['mlx5_2'], 'PHB')]"
is "plan: nic-remote for each replica of the node without an adapter, naming the nearest" \
	"$(json '[(w["replica"], "0000:a2:00.0 (ens7f0np0; RDMA mlx5_3) on node 2" in w["message"]) for w in d["warnings"] if w["code"] == "nic-remote"]')" \
	"[('inference-6', True), ('inference-7', True)]"
run plan -c /dev/null --sysfs-root "$rail"
if grep -qE '^  inference-1 +auto +0000:18:00\.0 ens2f0np0 mlx5_1 \(PIX\)$' <<<"$out"; then
	ok "plan's text: each replica's adapters, interface, RDMA device and path"
else fail "plan's text of the adapters" "$out"; fi

c=$(conf unknown.conf '[replica a]\nunit = a.service\naccelerators = 13:00.0\nnics = ens1f0np0 ens9\n')
run plan -c "$c" --sysfs-root "$rail"
if [ "$rc" -eq 2 ] && grep -q "^$c:4: replica a: nics names ens9, which no network adapter of this host has; their interfaces: ens1f0np0, " <<<"$err"; then
	ok "nics = LIST with an unknown name: an error at its line, exit 2"
else fail "an unknown interface in nics =" "exit $rc" "$err"; fi
run plan --json -c "$c" --sysfs-root "$rail"
is "... and --json's error document names the line" "$rc $(json '":4: " in d["error"]["message"]')" "2 True"
mkdir -p "$units"
run apply --no-reload -c "$c" --sysfs-root "$rail" --unit-dir "$units"
is "... apply writes nothing" "$rc $(find "$units" -mindepth 1 | wc -l)" "2 0"
c=$(conf bad.conf '[numaplan]\nnics = auto\n[replica a]\nunit = a.service\nnics = ens1/x\n')
run plan -c "$c" --sysfs-root "$rail"
if [ "$rc" -eq 2 ] && grep -q "^$c:5: bad nics entry 'ens1/x'" <<<"$err"; then ok "a name no interface can have: its line, exit 2"; else
	fail "a bad interface name" "exit $rc" "$err"; fi

# ---- the drop-in and the variables ----
printf '[Unit]\nDescription=a replica\n[Service]\nExecStart=/bin/true\n' >"$units/a.service"
printf '[Unit]\nDescription=a replica\n[Service]\nExecStart=/bin/true\n' >"$units/b.service"
c=$(conf two.conf '[replica a]\nunit = a.service\naccelerators = 13:00.0 17:00.0\n[replica b]\nunit = b.service\naccelerators = c2:00.0\nnics = ib0.8001, ens5f0\n')
run apply --no-reload -c "$c" --sysfs-root "$rail" --unit-dir "$units"
dropin=$units/a.service.d/50-numaplan.conf
if [ "$rc" -eq 0 ] && grep -qxF "EnvironmentFile=-$units/.numaplan/nics/%n" "$dropin" &&
	grep -qF " prepare --nodes 0 --nics \"0000:14:00.0,0000:18:00.0\" --nics-env \"$units/.numaplan/nics/%n\"" "$dropin"; then
	ok "the drop-in has prepare name the adapters by address at the start, and reads what it writes"
else fail "the drop-in's adapters" "exit $rc" "$err" "$(cat "$dropin")"; fi
if grep -qF ' --nics "ib0.8001,ens5f0" ' "$units/b.service.d/50-numaplan.conf"; then
	ok "a list's names are handed on as written, another node's included"
else fail "a list in the drop-in" "$(cat "$units/b.service.d/50-numaplan.conf")"; fi
if command -v systemd-analyze >/dev/null; then
	SYSTEMD_UNIT_PATH="$units:" private_run systemd-analyze verify "$units/a.service" "$units/b.service" >"$scratch/verify" 2>&1
	vrc=$?
	if [ "$vrc" -eq 0 ] && [ -s "$dropin" ] && ! grep -qiE 'ignoring|invalid|unbalanced|unknown|failed' "$scratch/verify"; then
		ok "systemd-analyze verify reads the drop-ins without a complaint"
	else fail "systemd-analyze verify of the drop-ins" "exit $vrc" "$(cat "$scratch/verify")" "$(cat "$dropin")"; fi
else
	ok "systemd-analyze verify # SKIP systemd-analyze is not installed"
fi

# The prepare of each drop-in, run as systemd would (its words unquoted, %n the unit), on the host.
prepare_of() { # prepare_of UNIT: runs the drop-in's ExecStartPre= with --sysfs-root, sets rc, env
	python3 - "$units/$1.d/50-numaplan.conf" "$1" >"$scratch/argv" <<'EOF'
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("ExecStartPre=")][0]
words = re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', line.split("=", 1)[1][2:])
for q, w in words:
    print((q if q else w).replace("%n", sys.argv[2]).replace("%%", "%"))
EOF
	mapfile -t argv <"$scratch/argv"
	"$numaplan" --sysfs-root "$rail" "${argv[@]:1}" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	env=$(cat "$units/.numaplan/nics/$1" 2>&1)
}
prepare_of a.service
is "prepare at the start: the variables, exact names after '=' for NCCL, DEVICE:PORT for UCX" "$rc
$env" "0
# The replica's network adapters, as numaplan prepare found them at its start.
NUMAPLAN_NICS=\"ens1f0np0,ens2f0np0\"
NCCL_SOCKET_IFNAME=\"=ens1f0np0,ens2f0np0\"
GLOO_SOCKET_IFNAME=\"ens1f0np0,ens2f0np0\"
NCCL_IB_HCA=\"=mlx5_0,mlx5_1\"
UCX_NET_DEVICES=\"mlx5_0:1,mlx5_1:1\""
if grep -q "network adapters ens1f0np0 (0000:14:00.0; RDMA mlx5_0), ens2f0np0 (0000:18:00.0; RDMA mlx5_1): named to the server in $units/.numaplan/nics/a.service" "$scratch/err"; then
	ok "... and says what it found, in one line"
else fail "prepare's line" "$(cat "$scratch/err")"; fi
prepare_of b.service
is "a list (ib0.8001, ens5f0): the interfaces named, in PCI-address order; the E810 without RDMA by its interface for UCX" "$rc
$(grep -E '^(NUMAPLAN_NICS|NCCL_SOCKET_IFNAME|NCCL_IB_HCA|UCX_NET_DEVICES)=' <<<"$env")" "0
NUMAPLAN_NICS=\"ens5f0,ib0.8001\"
NCCL_SOCKET_IFNAME=\"=ens5f0,ib0.8001\"
NCCL_IB_HCA=\"=mlx5_2\"
UCX_NET_DEVICES=\"ens5f0,mlx5_2:1\""
run prepare --sysfs-root "$vm" --nodes 1 --nics 0000:42:00.0 --dry-run
if [ "$rc" -eq 0 ] && grep -qxF 'NCCL_IB_HCA="=rxe0"' <<<"$out" && grep -qxF 'UCX_NET_DEVICES="rxe0:1"' <<<"$out" &&
	grep -qxF 'NUMAPLAN_NICS="ens1"' <<<"$out"; then
	ok "prepare --dry-run: a virtio adapter with soft-RoCE on it"
else fail "prepare of a virtio adapter" "exit $rc" "$out" "$err"; fi
run prepare --sysfs-root "$vm" --nodes 1 --nics ens9 --nics-env "$scratch/e"
if [ "$rc" -eq 0 ] && grep -q "interface ens9: no network adapter has it" <<<"$err" && ! grep -q NUMAPLAN_NICS "$scratch/e"; then
	ok "prepare: a name that resolves to nothing is said, never a failed start, and the file holds no variable"
else fail "prepare of an unknown name" "exit $rc" "$err"; fi
run prepare --sysfs-root "$vm" --nodes 1 --nics-env "$scratch/e"
is "prepare --nics-env without --nics: bad usage" "$rc" 2
run prepare --sysfs-root "$vm" --nodes 1 --nics 0000:42:00.0 --nics-env relative
is "prepare --nics-env must be absolute" "$rc" 2

c=$(conf none.conf '[numaplan]\nnics = none\n[replica a]\nunit = a.service\naccelerators = c2:00.0\n')
run apply --no-reload -c "$c" --sysfs-root "$rail" --unit-dir "$units"
if [ "$rc" -eq 0 ] && grep -q "^NUMAPolicy=bind" "$dropin" && ! grep -q nics "$dropin" && ! grep -q "nic-remote" <<<"$out$err"; then
	ok "nics = none: no prepare for adapters, no nic-remote"
else fail "nics = none" "exit $rc" "$out" "$err" "$(cat "$dropin")"; fi
done_testing

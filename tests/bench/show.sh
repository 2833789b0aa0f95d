#!/bin/bash
# numaplan show against its peers in one hyperfine run: lstopo-no-graphics of the same root
# (goal: at most 0.5x) and numactl --hardware on this host (goal: at most 2x), on this host or,
# with --sysfs-root DIR, on a replayed root (lstopo --input DIR).
#
# NO_HWDB=1 measures a host without udev's hwdb.bin, where names come from pci.ids: the run is
# repeated in a mount namespace of its own (unshare, as root or in a user namespace) in which an
# empty tmpfs hides each directory holding a hwdb.bin where sd_hwdb_new() looks; this machine's
# files stay as they are, and the namespace ends with the run. Without any hwdb.bin here, this
# host is one already.
#
# Each figure is also given as own work, less an empty C program's time in the same run
# (tests/bench/ratios.py --empty).
# Needs: hyperfine numactl hwloc-nox (apt-get install -y hyperfine numactl hwloc-nox).
# Usage: [NO_HWDB=1] tests/bench/show.sh [NUMAPLAN] [--sysfs-root DIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
numaplan=$(realpath "${1:-build/src/numaplan}")
shift || true
root=
[ "${1:-}" = --sysfs-root ] && root=$(realpath "$2")
hwdb_dirs=()
for f in /etc/systemd/hwdb/hwdb.bin /etc/udev/hwdb.bin /usr/lib/systemd/hwdb/hwdb.bin /lib/systemd/hwdb/hwdb.bin \
	/usr/lib/udev/hwdb.bin /lib/udev/hwdb.bin; do
	[ -e "$f" ] && hwdb_dirs+=("$(dirname "$(realpath "$f")")")
done
if [ -n "${NO_HWDB:-}" ] && [ -z "${NUMAPLAN_BENCH_HIDE:-}" ] && [ ${#hwdb_dirs[@]} -gt 0 ]; then
	as_root=()
	[ "$(id -u)" -eq 0 ] || as_root=(--map-root-user)
	args=("$numaplan")
	[ -z "$root" ] || args+=(--sysfs-root "$root")
	NUMAPLAN_BENCH_HIDE="${hwdb_dirs[*]}" exec unshare "${as_root[@]}" --mount --propagation private bash -c '
		for d in $NUMAPLAN_BENCH_HIDE; do mount -t tmpfs -o ro,size=4k none "$d" || exit; done
		exec "$@"' bash bash "$0" "${args[@]}"
fi
if [ -n "${NO_HWDB:-}" ]; then
	for f in /etc/systemd/hwdb/hwdb.bin /etc/udev/hwdb.bin /usr/lib/systemd/hwdb/hwdb.bin /lib/systemd/hwdb/hwdb.bin \
		/usr/lib/udev/hwdb.bin /lib/udev/hwdb.bin; do
		[ ! -e "$f" ] || { echo "NO_HWDB: $f is still there" >&2; exit 1; }
	done
	echo "no hwdb.bin in this run: names from pci.ids"
fi
. "$src/tests/bench/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
empty=$(empty_program "$dir")
out=${OUT:-$dir/run.json}
show="$numaplan show -c /dev/null ${root:+--sysfs-root $root}"
lstopo="lstopo-no-graphics ${root:+--input $root}"
hyperfine -N --style none --warmup 100 --runs "${RUNS:-2000}" --export-json "$out" \
	--command-name empty "$empty" --command-name numactl "numactl --hardware" --command-name show "$show" \
	--command-name "show --json" "$show --json" --command-name lstopo "$lstopo --of console"
# numactl reads this host whatever the root: against it, only a run on this host is a goal.
goals=("show<=0.5*lstopo" "own:show<=0.5*lstopo")
[ -n "$root" ] || goals+=("show<=2*numactl" "own:show<=2*numactl")
python3 "$src/tests/bench/ratios.py" "$out" --empty empty empty=empty numactl=numactl show=show \
	"show --json=show --json" lstopo=lstopo -- "${goals[@]}"

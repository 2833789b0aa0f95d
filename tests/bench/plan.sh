#!/bin/bash
# numaplan plan and the generator on the largest fixture host (8 nodes, 128 CPUs, 9 accelerators)
# against lstopo-no-graphics --input of the same root and numactl --hardware on this host, in one
# hyperfine run, and plan's peak memory (maximum resident set, from GNU time). Goals: plan --json
# at most 0.15x lstopo; the generator (its drop-ins written into a fresh temporary directory each
# run, on tmpfs where /dev/shm is one) no slower than plan. `numaplan --version`, a numaplan that
# starts and does nothing, is the floor under every such ratio on the machine of the run; an empty
# C program (tests/bench/lib.sh) the floor of any process: each figure is also given as own work,
# its mean less the empty program's (tests/bench/ratios.py --empty).
# Needs: hyperfine numactl hwloc-nox time (apt-get install -y hyperfine numactl hwloc-nox time).
# Usage: tests/bench/plan.sh [NUMAPLAN]
set -eu
numaplan=$(realpath "${1:-build/src/numaplan}")
src=$(cd "$(dirname "$0")/../.." && pwd)
host="$src/tests/fixtures/hosts/nps4-2s-8gpu"
conf="$src/profiles/per-accelerator.conf"
dir=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$dir"' EXIT
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")
ln -s "$numaplan" "$dir/numaplan-generator" # the generator is numaplan by that name
mkdir "$dir/etc"
out=${OUT:-$dir/run.json}
plan="$numaplan plan -c $conf --sysfs-root $host --unit-dir $dir/etc"
gen="$dir/numaplan-generator -c $conf --sysfs-root $host --unit-dir $dir/etc $dir/gen $dir/gen.early $dir/gen.late"
# One --prepare a command: only the generator's empties its directory (a boot's is empty).
hyperfine -N --warmup 50 --runs "${RUNS:-1000}" --export-json "$out" \
	--command-name empty --prepare true "$empty" \
	--command-name version --prepare true "$numaplan --version" \
	--command-name lstopo --prepare true "lstopo-no-graphics --input $host" \
	--command-name numactl --prepare true "numactl --hardware" \
	--command-name plan --prepare true "$plan" \
	--command-name "plan --json" --prepare true "$plan --json" \
	--command-name generator --prepare "rm -rf $dir/gen $dir/gen.early $dir/gen.late" "$gen" >/dev/null
python3 "$src/tests/bench/ratios.py" "$out" --empty empty empty=empty version=version lstopo=lstopo numactl=numactl \
	plan=plan "plan --json=plan --json" generator=generator -- "plan --json<=0.15*lstopo" "generator<=1*plan" \
	"own:plan --json<=0.15*lstopo" "own:generator<=1*plan"
for args in "plan" "plan --json"; do
	/usr/bin/time -f "$args: peak memory %M KiB" "$numaplan" $args -c "$conf" --sysfs-root "$host" >/dev/null
done

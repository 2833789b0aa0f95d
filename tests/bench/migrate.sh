#!/bin/bash
# numaplan migrate against migratepages(8), and numaplan prepare against evicting a file and
# reading it back, in the two-node test guest (tests/vm), same pages, same run. The guest's CPU
# is emulated: compare the ratios, not the absolute GB/s. Needs what the VM tier needs.
# Usage: tests/bench/migrate.sh [BUILD]   (BENCH_MIB, BENCH_RUNS: size and repeats, 128 and 7)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$top/tests/bench/lib.sh"
mkdir "$dir/bin"
empty=$(empty_program "$dir/bin")
cp "$top/tests/vm/scenarios/numaplan.lib" "$dir/"
sed "s/^mib=.*/mib=${BENCH_MIB:-128}/; s/^runs=.*/runs=${BENCH_RUNS:-7}/" "$top/tests/bench/migrate-guest.sh" >"$dir/50-migrate.sh"
chmod +x "$dir/50-migrate.sh"
VM_SCENARIO_TIMEOUT=1200 "$top/tests/vm/run-vm-tests" "$build/src/numaplan" "$dir" "$build/tests/standin/numaplan-standin" "$empty" \
	"$top/tests/bench/ratios.py" |
	grep -E "BENCH|run [0-9]|^not ok|^ok"

#!/bin/bash
# numaplan plan on the largest fixture host (8 nodes, 128 CPUs, 9 accelerators) against
# numactl --hardware on this host, in one hyperfine run (goal: ratio at most 1.0), and plan's
# peak memory (maximum resident set, from GNU time).
# Needs: hyperfine numactl time (apt-get install -y hyperfine numactl time).
# Usage: tests/bench/plan.sh [NUMAPLAN]
set -eu
numaplan=${1:-build/src/numaplan}
src=$(cd "$(dirname "$0")/../.." && pwd)
host="$src/tests/fixtures/hosts/nps4-2s-8gpu"
conf="$src/profiles/per-accelerator.conf"
out=${OUT:-/tmp/numaplan-bench-plan.json}
hyperfine -N --warmup 50 --runs "${RUNS:-1000}" --export-json "$out" \
	"numactl --hardware" \
	"$numaplan plan -c $conf --sysfs-root $host" \
	"$numaplan plan --json -c $conf --sysfs-root $host"
python3 - "$out" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["numactl --hardware"]["mean"]
for cmd, x in r.items():
    print("%-40.40s mean %.3f ms  ratio to numactl %.2f" % (cmd.replace(" -c ", " ... "), x["mean"] * 1e3, x["mean"] / base))
PY
for args in "plan" "plan --json"; do
	/usr/bin/time -f "$args: peak memory %M KiB" "$numaplan" $args -c "$conf" --sysfs-root "$host" >/dev/null
done

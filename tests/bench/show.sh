#!/bin/bash
# numaplan show against its peers on this host, in one hyperfine run: numactl --hardware (the
# goal: no slower) and lstopo-no-graphics (hwloc's full topology).
# Needs: hyperfine numactl hwloc-nox (apt-get install -y hyperfine numactl hwloc-nox).
# Usage: tests/bench/show.sh [NUMAPLAN] [--sysfs-root DIR]
set -eu
numaplan=${1:-build/src/numaplan}
shift || true
runs=${RUNS:-2000}
hyperfine -N --warmup 100 --runs "$runs" --export-json "${OUT:-/tmp/numaplan-bench-show.json}" \
	"numactl --hardware" \
	"$numaplan show $*" \
	"$numaplan show --json $*" \
	"lstopo-no-graphics --of console"
python3 - "${OUT:-/tmp/numaplan-bench-show.json}" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["numactl --hardware"]["mean"]
for cmd, x in r.items():
    print("%-45s mean %.3f ms  median %.3f ms  ratio to numactl %.2f" % (cmd, x["mean"] * 1e3, x["median"] * 1e3, x["mean"] / base))
PY

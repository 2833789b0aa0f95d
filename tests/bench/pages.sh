#!/bin/bash
# verify's page scan against `numastat -p` on the same large process, in one hyperfine run
# (goal: ratio at most 1.0). The process is the stand-in server holding a 256 MiB model file
# and 2 GiB of touched anonymous memory (about 590,000 resident pages), with 4 workers.
# Needs: hyperfine numactl (apt-get install -y hyperfine numactl). Usage: tests/bench/pages.sh [BUILD]
set -eu
build=${1:-build}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
head -c $((256 << 20)) /dev/urandom >"$dir/model"
"$build/tests/standin/numaplan-standin" --listen 127.0.0.1:0 --model "$dir/model" --kv-mib 2048 --workers 4 \
	--worker-mib 64 --threads 8 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -q ready "$dir/log" && break; sleep 0.1; done
echo "process $pid: $(grep -c . /proc/$pid/numa_maps) mappings, $(awk '/VmRSS/ {print $2}' /proc/$pid/status) kB resident"
hyperfine -N --warmup 10 --runs "${RUNS:-200}" --export-json "$dir/out.json" \
	"numastat -p $pid" "$build/tests/bench/pagescan $pid"
python3 - "$dir/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["mean"]
for x in r:
    print("%-40s mean %.3f ms  ratio to numastat -p %.2f" % (x["command"].split("/")[-1], x["mean"] * 1e3, x["mean"] / base))
PY
"$build/tests/bench/pagescan" "$pid"
numastat -p "$pid" | tail -3

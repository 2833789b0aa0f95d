#!/bin/bash
# verify's page scan against `numastat -p` on the same large process, in one hyperfine run
# (goal: ratio at most 1.0, of the whole process and of its own work, its time less an empty C
# program's). The process is the stand-in server holding a 256 MiB model file and 2 GiB of
# touched anonymous memory (about 590,000 resident pages), with 4 workers.
# Needs: hyperfine numactl (apt-get install -y hyperfine numactl). Usage: tests/bench/pages.sh [BUILD]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
dir=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")
head -c $((256 << 20)) /dev/urandom >"$dir/model"
"$build/tests/standin/numaplan-standin" --listen 127.0.0.1:0 --model "$dir/model" --kv-mib 2048 --workers 4 \
	--worker-mib 64 --threads 8 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -q ready "$dir/log" && break; sleep 0.1; done
echo "process $pid: $(grep -c . /proc/$pid/numa_maps) mappings, $(awk '/VmRSS/ {print $2}' /proc/$pid/status) kB resident"
hyperfine -N --warmup 10 --runs "${RUNS:-200}" --export-json "$dir/out.json" --command-name empty "$empty" \
	--command-name "numastat -p" "numastat -p $pid" --command-name pagescan "$build/tests/bench/pagescan $pid" >/dev/null
python3 "$src/tests/bench/ratios.py" "$dir/out.json" --empty empty empty=empty "numastat -p=numastat -p" \
	"verify's page scan=pagescan" -- "verify's page scan<=1*numastat -p" "own:verify's page scan<=1*numastat -p"
"$build/tests/bench/pagescan" "$pid"
numastat -p "$pid" | tail -3

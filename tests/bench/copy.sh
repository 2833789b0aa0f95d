#!/bin/bash
# model-copies' copy step (numaplan prepare --copy-to) against cp of the same model to the same
# tmpfs, in one hyperfine run, each run copying the whole model (goal: ratio at most 1.0). Runs in
# a private mount namespace of its own (unshare -m), so that the tmpfs is nobody else's. The
# model is 512 MiB (BENCH_MIB), in the page cache: what is timed is the copy, not the disk.
# Needs: hyperfine, util-linux's unshare, root. Usage: tests/bench/copy.sh [NUMAPLAN]
set -eu
numaplan=$(realpath "${1:-build/src/numaplan}")
mib=${BENCH_MIB:-512}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c $((mib << 20)) /dev/urandom >"$dir/model.gguf"
cat "$dir/model.gguf" >/dev/null
unshare -m --propagation private bash -eu -s "$numaplan" "$dir" "$mib" "${RUNS:-20}" <<'IN'
numaplan=$1 dir=$2 mib=$3 runs=$4
mkdir "$dir/t"
mount -t tmpfs -o size=$((mib * 3))m bench "$dir/t"
size=$((mib * 2))M
hyperfine -N --warmup 2 --runs "$runs" --export-json "$dir/out.json" \
	--prepare "rm -rf $dir/t/cp $dir/t$dir" \
	"cp $dir/model.gguf $dir/t/cp" \
	"$numaplan prepare --nodes 0 --copy-to $dir/t --copy-size $size -- $dir/model.gguf" >/dev/null
python3 - "$dir/out.json" "$mib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
mib = int(sys.argv[2])
for x in r:
    print("%-16s mean %.1f ms (%.2f GB/s)  ratio to cp %.2f" % (x["command"].split("/")[-1].split()[0], x["mean"] * 1e3, mib * 2**20 / x["mean"] / 1e9, x["mean"] / r[0]["mean"]))
PY
IN

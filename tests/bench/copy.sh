#!/bin/bash
# model-copies' copy step (numaplan prepare --copy-to) against cp of the same model to a tmpfs of
# the same size, in one hyperfine run each, in a private mount namespace of its own (unshare -m),
# so that the tmpfs mounts are nobody else's. The models are in the page cache: what is timed is
# the copy, not the disk.
#   1. one file of BENCH_MIB MiB (512), copied whole at every run: goal, a ratio to cp of at most 1.0;
#   2. BENCH_FILES small files (100,000, of 1 to 4 KiB, all in one directory: the worst case for
#      the names a copy looks up, as a tokenizer cache or a dataset can have them), copied whole
#      at every run against cp -a: goal, at most 2.0;
#   3. the same when the copy is up to date, which every start of a replica does: against the
#      same cp -a, goal at most 2.0 (it copies nothing).
# Each ratio is also given of own work, each time less an empty C program's in the same run.
# Needs: hyperfine, util-linux's unshare, root. Usage: tests/bench/copy.sh [NUMAPLAN]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
numaplan=$(realpath "${1:-build/src/numaplan}")
mib=${BENCH_MIB:-512}
files=${BENCH_FILES:-100000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")
head -c $((mib << 20)) /dev/urandom >"$dir/model.gguf"
python3 - "$dir/small" "$files" <<'PY'
import os, random, sys
top, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
os.makedirs(top)
for i in range(n):
    with open("%s/f%06d.json" % (top, i), "wb") as f:
        f.write(os.urandom(random.randint(1024, 4096)))
PY
cat "$dir/model.gguf" >/dev/null
tar -cf - -C "$dir" small >/dev/null
unshare -m --propagation private bash -eu -s "$numaplan" "$dir" "$mib" "${RUNS:-10}" "$src" "$empty" <<'IN'
numaplan=$1 dir=$2 mib=$3 runs=$4 src=$5 empty=$6
report() { # report JSON PEER GOAL
	python3 "$src/tests/bench/ratios.py" "$1" --empty empty empty=empty "$2=$2" prepare=prepare -- \
		"prepare<=$3*$2" "own:prepare<=$3*$2" | sed 's/^/  /'
}
mkdir "$dir/t"
mount -t tmpfs -o size=$((mib * 3))m bench "$dir/t"
copies=$dir/run/models/node0
echo "one file of $mib MiB:"
hyperfine -N --warmup 2 --runs "$runs" --export-json "$dir/one.json" \
	--prepare "rm -rf $dir/t/cp $copies$dir" --command-name empty "$empty" \
	--command-name cp "cp $dir/model.gguf $dir/t/cp" --command-name prepare \
	"$numaplan prepare --nodes 0 --copy-to $copies --copy-size $((mib * 2))M -- $dir/model.gguf" >/dev/null
report "$dir/one.json" cp 1.0
umount "$dir/t" "$copies"
mount -t tmpfs -o size=2g bench "$dir/t"
echo "$(find "$dir/small" -type f | wc -l) small files:"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$dir/small.json" \
	--prepare "rm -rf $dir/t/cp $copies$dir" --command-name empty "$empty" \
	--command-name "cp -a" "cp -a $dir/small $dir/t/cp" --command-name prepare \
	"$numaplan prepare --nodes 0 --copy-to $copies --copy-size 1G -- $dir/small" >/dev/null
report "$dir/small.json" "cp -a" 2.0
echo "the same, up to date:"
hyperfine -N --warmup 1 --runs "$runs" --export-json "$dir/fresh.json" \
	--prepare "rm -rf $dir/t/cp" --command-name empty "$empty" \
	--command-name "cp -a" "cp -a $dir/small $dir/t/cp" --command-name prepare \
	"$numaplan prepare --nodes 0 --copy-to $copies --copy-size 1G -- $dir/small" >/dev/null
report "$dir/fresh.json" "cp -a" 2.0
IN

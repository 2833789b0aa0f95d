#!/bin/bash
# How numaplan's cost grows with the host, against lstopo-no-graphics --input of the same root,
# each figure also as own work (its time less an empty C program's in the same run, ratios.py).
#   1. One hyperfine run over two fixture hosts: dgx-2s-8gpu (64 CPUs, 2 nodes, 8 GPUs) and
#      big-16n-1024c-32gpu (1,024 CPUs, 16 nodes, 32 GPUs): plan, plan --json, show, show --json,
#      the generator and lstopo on each. Goals on the big host, in own work: plan --json at most
#      0.08x lstopo, show at most 0.10x lstopo, the generator at most 1.2x plan; and each command's
#      work growing from the one host to the other no faster than lstopo's own work. A command's
#      work here is its own work less that of its system calls alone ("syscalls of COMMAND", a
#      program that opens, reads and closes just the files the command read, beneath the same root:
#      lib.sh's syscall_floor), timed in the same rounds: what is left is what numaplan's code
#      costs. The kernel names a core's SMT siblings in one file per core, so the files alone grow
#      with the cores (6-9x from the one host to the other, where lstopo's whole own work grows
#      3.4x); each growth line also says the command's whole own work's growth, what it adds
#      against what lstopo adds, and its system calls' growth.
#   2. The kernel's limits, 1,024 nodes and 8,192 CPUs (with 2,048 GPUs), a host made here by
#      tests/fixtures/make-hosts.py in a temporary directory (about 70,000 files; never committed):
#      plan --json and show --json at most 0.15x lstopo in own work, and a peak memory (GNU time's
#      maximum resident set) below lstopo's.
# RUNS (300) and LIMIT_RUNS (5) set the runs of each part; LIMITS=0 leaves the second out. The
# first part runs in ROUNDS (5) rounds (lib.sh's timed_rounds), and its goals are judged by the
# median of their rounds.
# Needs: hyperfine hwloc-nox time strace python3 cc (apt-get install -y hyperfine hwloc-nox time strace).
# Usage: tests/bench/scale.sh [NUMAPLAN]
set -eu
numaplan=$(realpath "${1:-build/src/numaplan}")
src=$(cd "$(dirname "$0")/../.." && pwd)
conf="$src/profiles/per-accelerator.conf"
dir=$(mktemp -d -p "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
trap 'rm -rf "$dir"' EXIT
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")
ln -s "$numaplan" "$dir/numaplan-generator" # the generator is numaplan by that name
mkdir "$dir/etc"

# commands HOST ROOT: hyperfine's arguments for each command on ROOT, named "COMMAND @HOST", and
# for each numaplan command its system calls alone, "syscalls of COMMAND @HOST" (lib.sh's
# syscall_floor)
commands() {
	local h=$1 root=$2 g="$dir/gen-$1" c i=0
	local plan="$numaplan plan -c $conf --sysfs-root $root --unit-dir $dir/etc"
	local show="$numaplan show -c /dev/null --sysfs-root $root"
	local gen="$dir/numaplan-generator -c $conf --sysfs-root $root --unit-dir $dir/etc $g $g.early $g.late"
	args+=(--command-name "lstopo @$h" --prepare true "lstopo-no-graphics --input $root")
	for c in "plan=$plan" "plan --json=$plan --json" "show=$show" "show --json=$show --json" "generator=$gen"; do
		local prep=true
		[ "${c%%=*}" != generator ] || prep="rm -rf $g $g.early $g.late"
		$prep
		args+=(--command-name "${c%%=*} @$h" --prepare "$prep" "${c#*=}" --command-name "syscalls of ${c%%=*} @$h"
			--prepare true "$(syscall_floor "$dir" "floor-$h-$((i++))" "$root" ${c#*=})")
	done
}
names() { # names HOST...: ratios.py's NAME=COMMAND for each command on each host
	local h c
	for h in "$@"; do
		echo "lstopo @$h=lstopo @$h"
		for c in plan "plan --json" show "show --json" generator; do
			echo "$c @$h=$c @$h"
			echo "syscalls of $c @$h=syscalls of $c @$h"
		done
	done
}

echo "== 64 CPUs (dgx-2s-8gpu) and 1,024 CPUs (big-16n-1024c-32gpu), $(nproc) CPUs here"
args=(--command-name empty --prepare true "$empty")
commands 64 "$src/tests/fixtures/hosts/dgx-2s-8gpu"
commands 1024 "$src/tests/fixtures/hosts/big-16n-1024c-32gpu"
timed_rounds "$dir/scale.json" --warmup 5 "${args[@]}"
goals=("own:plan --json @1024<=0.08*lstopo @1024" "own:show @1024<=0.1*lstopo @1024"
	"own:generator @1024<=1.2*plan @1024")
for c in plan "plan --json" show "show --json" generator; do
	goals+=("beyond:$c @1024/$c @64<=lstopo @1024/lstopo @64")
done
mapfile -t named < <(names 64 1024)
python3 "$src/tests/bench/ratios.py" "$dir/scale.json" --empty empty empty=empty "${named[@]}" -- "${goals[@]}"

[ "${LIMITS:-1}" != 0 ] || exit 0
echo "== the kernel's limits: 1,024 nodes, 8,192 CPUs, 2,048 GPUs"
python3 "$src/tests/fixtures/make-hosts.py" "$dir" limits-1024n-8192c
root=$dir/limits-1024n-8192c
plan="$numaplan plan -c $conf --sysfs-root $root --unit-dir $dir/etc --json"
show="$numaplan show -c /dev/null --sysfs-root $root --json"
hyperfine -N --style none --warmup 1 --runs "${LIMIT_RUNS:-5}" --export-json "$dir/limits.json" \
	--command-name empty "$empty" --command-name lstopo "lstopo-no-graphics --input $root" \
	--command-name "plan --json" "$plan" --command-name "show --json" "$show" >/dev/null
python3 "$src/tests/bench/ratios.py" "$dir/limits.json" --empty empty empty=empty lstopo=lstopo \
	"plan --json=plan --json" "show --json=show --json" -- "own:plan --json<=0.15*lstopo" \
	"own:show --json<=0.15*lstopo"
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; } # KiB
lstopo_kib=$(peak lstopo-no-graphics --input "$root")
echo "peak memory: lstopo $lstopo_kib KiB"
for c in "plan --json" "show --json"; do
	[ "$c" = "plan --json" ] && cmd=$plan || cmd=$show
	kib=$(peak $cmd)
	echo "goal: peak memory of $c below lstopo's: $kib KiB against $lstopo_kib KiB, $([ "$kib" -lt "$lstopo_kib" ] && echo met || echo NOT met)"
done

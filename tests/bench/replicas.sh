#!/bin/bash
# verify's page judgement for replicas side by side, against `numastat -p` of the same processes,
# in one hyperfine run, for 2 and for 8 replicas on a host with 1,000 more processes (goal: ratio
# at most 2.0, of the whole process and of its own work, its time less an empty C program's).
# Each replica is the stand-in server with a model file of its own, 64 MiB of KV cache and a
# worker; all share the stand-in binary and libc, as replicas of one engine do. The
# judgement is what verify does after the warm-up: every replica process's numa_maps and maps,
# one scan of every process's maps on the host for who else maps their files, and the split into
# own and shared pages (tests/bench/pagescan --split); the D-Bus and warm-up parts need systemd
# and are the guest's. Also the scan's cost with and without the 1,000 processes, and, beside it
# in each run, the split from every process's maps (--every-process, as verify made it before
# and migrate still does), whose split must be the same.
# Needs: hyperfine numactl (apt-get install -y hyperfine numactl).
# Usage: tests/bench/replicas.sh [BUILD]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
dir=$(mktemp -d)
pids=()
cleanup() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")

start_replicas() { # start_replicas N: sets GROUPS (one comma list a replica) and ALL (every PID)
	GROUPS_=()
	ALL=()
	for i in $(seq "$1"); do
		head -c $((32 << 20)) /dev/urandom >"$dir/model-$i"
		"$build/tests/standin/numaplan-standin" --listen 127.0.0.1:0 --model "$dir/model-$i" --kv-mib 64 \
			--workers 1 --worker-mib 8 --threads 2 --pidfile "$dir/pid-$i" 2>"$dir/log-$i" &
		pids+=($!)
	done
	for i in $(seq "$1"); do
		for _ in $(seq 100); do [ -s "$dir/pid-$i" ] && break; sleep 0.1; done
		main=$(cat "$dir/pid-$i")
		kids=$(pgrep -P "$main" | tr '\n' ',')
		GROUPS_+=("$main${kids:+,${kids%,}}")
		ALL+=("$main" $(pgrep -P "$main"))
	done
}

bench() { # bench LABEL: hyperfine of numastat -p against pagescan --split for GROUPS_
	echo "$1:"
	hyperfine -N --warmup 5 --runs "${RUNS:-50}" --export-json "$dir/run.json" --command-name empty "$empty" \
		--command-name "numastat -p" "numastat -p ${ALL[*]}" \
		--command-name judgement "$build/tests/bench/pagescan --split ${GROUPS_[*]}" \
		--command-name every "$build/tests/bench/pagescan --split --every-process ${GROUPS_[*]}" >/dev/null
	python3 "$src/tests/bench/ratios.py" "$dir/run.json" --empty empty empty=empty "numastat -p=numastat -p" \
		"verify's page judgement=judgement" "every process's maps=every" -- \
		"verify's page judgement<=2*numastat -p" "own:verify's page judgement<=2*numastat -p"
}

start_replicas 8
all8=("${ALL[@]}")
groups8=("${GROUPS_[@]}")
ALL=("${all8[@]:0:$((${#all8[@]} / 4))}")
GROUPS_=("${groups8[@]:0:2}")
echo "host: $(ls -d /proc/[0-9]* 2>/dev/null | wc -l) processes"
bench "2 replicas"
ALL=("${all8[@]}")
GROUPS_=("${groups8[@]}")
bench "8 replicas"
for _ in $(seq 1000); do sleep 600 & pids+=($!); done
echo "host: $(ls -d /proc/[0-9]* 2>/dev/null | wc -l) processes"
bench "8 replicas, 1,000 more processes"
GROUPS_=("${groups8[@]:0:2}")
ALL=("${all8[@]:0:$((${#all8[@]} / 4))}")
bench "2 replicas, 1,000 more processes"
# One replica of the eight (as verify UNIT): whether others map its binary and libraries is read
# from the host's processes until one does (here the other replicas, early in /proc's order). A
# lone replica whose binary no other process maps has every process read. Not a goal.
GROUPS_=("${groups8[0]}")
ALL=("${all8[@]:0:$((${#all8[@]} / 8))}")
bench "1 replica of 8, 1,000 more processes"
"$build/tests/bench/pagescan" --split "${groups8[@]}" >"$dir/lazy"
"$build/tests/bench/pagescan" --split --every-process "${groups8[@]}" >"$dir/every"
tail -3 "$dir/lazy"
tail -1 "$dir/every"
if diff <(grep -v scanned "$dir/lazy") <(grep -v scanned "$dir/every") >/dev/null; then
	echo "the same split from every process's maps"
else
	echo "the split from every process's maps differs:"
	diff <(grep -v scanned "$dir/lazy") <(grep -v scanned "$dir/every")
fi

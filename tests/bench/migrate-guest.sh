#!/bin/bash
# Inside the test guest (a scenario of tests/bench/migrate.sh): moving memory off node 0 onto
# node 1, timed against its peers in the same run, each run moving the same pages:
#   anonymous memory of a running process: numaplan migrate UNIT against migratepages PID 0 1;
#   a model's page cache: numaplan prepare --nodes 1 FILE against evicting the file and reading
#   it back under a node-1 policy (what "drop the caches" costs a replica).
# Each run times both peers, in alternating order; the guest's clock is at the mercy of the
# emulator's host, so the figures are the fastest and the median run of each, GB/s and ratios;
# then, through ratios.py, the medians' ratios of the whole process and of its own work (its time
# less that of an empty C program timed in the same runs).
# BENCH_MIB (default 128) sizes both, BENCH_RUNS (7) repeats.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

mib=${BENCH_MIB:-128}
runs=${BENCH_RUNS:-7}
unit=bench.service
file=/srv/bench/model.bin
bytes=$((mib << 20))

timed() { # timed COMMAND...: prints the seconds it took
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}
# stats NAME FIXED SECONDS...: sets FAST and MEDIAN (seconds) and SAID, "NAME: fastest X s
# (Y GB/s), median Z s (W GB/s)"; with FIXED (the command's cost when nothing moves) > 0, the
# GB/s of the moving alone follow.
stats() {
	local name=$1 fixed=$2
	shift 2
	read -r FAST MEDIAN < <(printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }')
	SAID=$(awk -v n="$name" -v f="$FAST" -v m="$MEDIAN" -v b="$bytes" -v x="$fixed" 'BEGIN {
		printf "%s: fastest %.3f s (%.3f GB/s), median %.3f s (%.3f GB/s)", n, f, b / f / 1e9, m, b / m / 1e9
		if (x > 0) printf "; %.3f s when nothing moves, so moving alone %.3f GB/s (median)", x, b / (m - x) / 1e9 }')
}
# runs_json FILE NAME "SECONDS..." ...: runs as ratios.py reads them
runs_json() {
	python3 -c 'import json, sys
a = sys.argv[2:]
json.dump({"results": [{"command": a[i], "times": [float(t) for t in a[i + 1].split()]}
                       for i in range(0, len(a), 2)]}, open(sys.argv[1], "w"))' "$@"
}
# own_work LABEL FILE A PEER: the medians' ratios of A to PEER, of the whole process and own work
own_work() {
	vm_diag "$(python3 "$EXTRA/ratios.py" "$2" --median --empty empty empty=empty "$3=$3" "$4=$4" -- \
		"$3<=1*$4" "own:$3<=1*$4" | sed "s/^/BENCH $1: /")"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; } # throughput of the first over the second
# marginal A FIXED_A B FIXED_B: the ratio of the moving alone (median less the fixed cost)
marginal() { awk -v a="$1" -v x="$2" -v b="$3" -v y="$4" 'BEGIN { printf "%.2f", (b - y) / (a - x) }'; }

write_conf "[replica bench]
unit = $unit
accelerators = 41:00.0
memory = $((mib + 64))M
min-local = 99%"
mkdir -p /srv/bench
dd if=/dev/urandom of=$file bs=1M count="$mib" status=none
drop_caches
systemd-run --unit=$unit -p NUMAPolicy=bind -p NUMAMask=0 -p CPUAffinity=0-1 \
	"$STANDIN" --listen 127.0.0.1:8099 --kv-mib "$mib" >/dev/null 2>&1
wait_ready 8099 300 || vm_not_ok "the bench process starts"
pid=$(systemctl show -P MainPID $unit)

np=() mp=() em=()
for r in $(seq "$runs"); do
	em+=("$(timed "$EXTRA/empty")")
	# Every run starts with the process's memory on node 0; the untimed moves back are migratepages'.
	if [ $((r % 2)) -eq 1 ]; then
		np+=("$(timed "$NUMAPLAN" migrate $unit)")
		migratepages "$pid" 1 0
		mp+=("$(timed migratepages "$pid" 0 1)")
		migratepages "$pid" 1 0
	else
		mp+=("$(timed migratepages "$pid" 0 1)")
		migratepages "$pid" 1 0
		np+=("$(timed "$NUMAPLAN" migrate $unit)")
		migratepages "$pid" 1 0
	fi
done
"$NUMAPLAN" migrate $unit >/tmp/bench-migrate.txt
vm_check_match "numaplan migrate moves it all" "$(cat /tmp/bench-migrate.txt)" "on node 1: .* (99\.[0-9]|100\.0)% of"
# What each costs when nothing is left to move (all on node 1): start, reading, D-Bus.
np0=() mp0=()
for r in 1 2 3; do np0+=("$(timed "$NUMAPLAN" migrate $unit)"); mp0+=("$(timed migratepages "$pid" 0 1)"); done
stats x 0 "${np0[@]}"
np_fixed=$MEDIAN
stats x 0 "${mp0[@]}"
mp_fixed=$MEDIAN
stats "numaplan migrate" "$np_fixed" "${np[@]}"
a=$SAID np_fast=$FAST np_med=$MEDIAN
stats "migratepages" "$mp_fixed" "${mp[@]}"
vm_diag "BENCH anon $mib MiB, $runs runs: $a; $SAID; throughput ratio: fastest $(ratio "$np_fast" "$FAST"), median $(ratio "$np_med" "$MEDIAN"), moving alone $(marginal "$np_med" "$np_fixed" "$MEDIAN" "$mp_fixed") (goal >= 1.0)"
runs_json /tmp/bench-anon.json "numaplan migrate" "${np[*]}" migratepages "${mp[*]}" empty "${em[*]}"
own_work anon /tmp/bench-anon.json "numaplan migrate" migratepages

pr=() ev=() em=()
for r in $(seq "$runs"); do
	em+=("$(timed "$EXTRA/empty")")
	drop_caches
	numactl --membind=0 cat $file >/dev/null
	pr+=("$(timed "$NUMAPLAN" prepare --nodes 1 -- $file)")
	drop_caches
	numactl --membind=0 cat $file >/dev/null
	ev+=("$(timed sh -c "dd if=$file iflag=nocache count=0 status=none && numactl --membind=1 cat $file")")
done
said=$("$NUMAPLAN" prepare --nodes 1 -- $file 2>&1)
vm_check_match "numaplan prepare leaves the file's cache on node 1" "$said" "$((mib * 256)) of $((mib * 256)) pages on node 1 already"
stats "numaplan prepare" 0 "${pr[@]}"
a=$SAID pr_fast=$FAST pr_med=$MEDIAN
stats "evict + read back" 0 "${ev[@]}"
vm_diag "BENCH page cache $mib MiB, $runs runs: $a; $SAID; throughput ratio: fastest $(ratio "$pr_fast" "$FAST"), median $(ratio "$pr_med" "$MEDIAN")"
runs_json /tmp/bench-cache.json "numaplan prepare" "${pr[*]}" "evict + read back" "${ev[*]}" empty "${em[*]}"
own_work "page cache" /tmp/bench-cache.json "numaplan prepare" "evict + read back"
systemctl stop $unit
vm_done

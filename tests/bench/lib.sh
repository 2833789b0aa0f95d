# shellcheck shell=bash
# Sourced by the benchmarks in this directory.

# empty_program DIR: builds DIR/empty, a C program that returns at once, with the system's cc as it
# links by default (dynamically, against libc), and prints its path. Timed in a run beside the
# commands, it is what a process costs to start and end on this machine, the floor that ratios.py
# --empty takes from each mean to leave the command's own work.
empty_program() {
	printf 'int main(void);\nint main(void) { return 0; }\n' >"$1/empty.c"
	cc -O2 -o "$1/empty" "$1/empty.c"
	echo "$1/empty"
}

# timed_rounds OUT.json HYPERFINE-ARGS...: ROUNDS (default 5) hyperfine runs of RUNS/ROUNDS runs
# each (RUNS: default 300), merged into OUT.json as one run whose results also hold "rounds", each
# command's times round by round. A round times every command within a minute or so: a slow spell
# of the machine (another tenant, a daemon waking) then weighs on all the commands of one round,
# where one long run would put it on whichever commands ran during it. ratios.py takes a goal's
# figure in each round and judges by their median.
timed_rounds() {
	local out=$1 rounds=${ROUNDS:-5} r
	shift
	local per=$(((${RUNS:-300} + rounds - 1) / rounds))
	for r in $(seq "$rounds"); do
		hyperfine -N --style none --runs "$per" --export-json "$out.$r" "$@" >/dev/null
	done
	python3 - "$out" "$rounds" <<'PY'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
runs = [json.load(open("%s.%d" % (out, r)))["results"] for r in range(1, rounds + 1)]
merged = []
for i, first in enumerate(runs[0]):
    each = [run[i]["times"] for run in runs]
    merged.append({"command": first["command"], "times": [t for ts in each for t in ts], "rounds": each})
json.dump({"results": merged}, open(out, "w"))
PY
}

# syscall_floor DIR NAME ROOT COMMAND...: records the files COMMAND opens beneath ROOT (strace),
# builds DIR/NAME, a program that opens and reads just those, as syscall-floor.py writes it and as
# the empty program is built, and prints its command line: what COMMAND's own work cannot go below
# while it reads those files. Its output goes nowhere; a command that writes must be able to run
# twice (clear what it wrote before the timed runs).
syscall_floor() {
	local dir=$1 name=$2 root=$3
	shift 3
	# Any failure fails the script: a floor of nothing would pass for a fast one.
	strace -f -y -e trace=openat,openat2,readlinkat -o "$dir/$name.strace" "$@" >/dev/null 2>&1 || return
	python3 "$(dirname "${BASH_SOURCE[0]}")/syscall-floor.py" "$root" "$dir/$name.strace" >"$dir/$name.c" || return
	cc -O2 -o "$dir/$name" "$dir/$name.c" || return
	echo "$dir/$name $root"
}

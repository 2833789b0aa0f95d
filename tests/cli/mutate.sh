#!/bin/bash
# Captured hosts nobody tested: every fixture host, 40 of its files in turn made empty, junk,
# huge, absent or a FIFO (a seeded random choice). show must still exit 0 with one JSON document
# (reporting what it could read); plan must exit 0, 2 or 3 with a message, never crash or hang.
# Usage: mutate.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
hang=$(scaled 20) # how long a command may take before it counts as hung
RANDOM=20261201
head -c 1100000 /dev/zero | tr '\0' '7' >"$scratch/huge" # past the 1 MiB a sysfs file may hold
junk=("" "x" "-1" "99999999999999999999" "0-" "," "Node 0 MemTotal: kB" "10 10 10 10 10 10 10 10 10" "$(printf '\377\376')")

for host in "$fixtures"/hosts/*; do
	name=$(host_name "$host")
	base=$(fixture_root "$host" "$scratch/base")
	# 40 files a host, chosen by the seed: every kind of file a kernel writes, in a minute. The
	# host's seed drawn here: a subshell's $RANDOM is reseeded (bash 5.1 and later).
	seed=$RANDOM
	mapfile -t files < <(cd "$base" && find . -type f | sort | awk -v seed="$seed" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' | sort | head -40 | cut -f2)
	[ ${#files[@]} -gt 0 ] || { fail "$name: no file to break (an empty or unreadable host)"; continue; }
	shows=0 plans=0 bad=() said=() rcs=()
	rm -rf "$scratch/m" "$scratch/shows" && cp -a "$base" "$scratch/m" && mkdir "$scratch/shows"
	for f in "${files[@]}"; do
		target=$scratch/m/$f
		cp -p "$target" "$scratch/saved"
		case $((RANDOM % 5)) in
		0) : >"$target" ;;
		1) printf '%s\n' "${junk[RANDOM % ${#junk[@]}]}" >"$target" ;;
		2) cp "$scratch/huge" "$target" ;;
		3) rm -f "$target" ;;
		4) rm -f "$target" && mkfifo "$target" ;;
		esac
		timeout "$hang" "$numaplan" show --json -c /dev/null --sysfs-root "$scratch/m" >"$scratch/shows/${#rcs[@]}" \
			2>"$scratch/err"
		rcs+=($?)
		said+=("$f: exit ${rcs[-1]}$([ -s "$scratch/err" ] && echo " $(head -c 200 "$scratch/err")")")
		timeout "$hang" "$numaplan" plan -c /dev/null --sysfs-root "$scratch/m" >/dev/null 2>"$scratch/err"
		rc=$?
		if [ $rc -le 3 ] && { [ $rc -eq 0 ] || [ -s "$scratch/err" ]; }; then plans=$((plans + 1)); else
			bad+=("plan, $f: exit $rc $(head -c 200 "$scratch/err")"); fi
		rm -f "$target" && cp -p "$scratch/saved" "$target"
	done
	# Every show's document read at once: one python3 a host, not one a run.
	mapfile -t documents < <(python3 - "$scratch/shows" "${#rcs[@]}" <<'PY'
import json, sys
for i in range(int(sys.argv[2])):
    try:
        json.load(open(f"{sys.argv[1]}/{i}"))
        print("one")
    except ValueError:
        print("not one JSON document")
PY
	)
	for i in "${!rcs[@]}"; do
		if [ "${rcs[i]}" = 0 ] && [ "${documents[i]-}" = one ]; then
			shows=$((shows + 1))
			json_seen show "$scratch/shows/$i"
		else
			bad+=("show, ${said[i]}, ${documents[i]-unread}")
		fi
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok "$name: ${#files[@]} files each broken in turn: show reported ($shows), plan answered ($plans)"
	else
		fail "$name: ${#bad[@]} of $((2 * ${#files[@]})) runs misbehaved" "${bad[@]:0:5}"
	fi
done
done_testing

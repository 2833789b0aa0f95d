#!/bin/bash
# `numaplan show` (table, --json and --matrix) for every fixture host against its golden output.
# NUMAPLAN_UPDATE_GOLDEN=1 rewrites the goldens instead (then review the diff).
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for host in "$fixtures"/hosts/*; do
	name=$(host_name "$host")
	root=$(fixture_root "$host" "$scratch")
	for mode in txt json matrix; do
		golden="$fixtures/golden/$name.show.$mode"
		args=(show -c /dev/null --sysfs-root "$root")
		[ "$mode" = json ] && args+=(--json)
		[ "$mode" = matrix ] && args+=(--matrix)
		"$numaplan" "${args[@]}" >"$scratch/out" 2>"$scratch/err"
		rc=$?
		output_seen "$scratch/out" "$scratch/err" "$rc" "${args[@]}"
		if [ -n "${NUMAPLAN_UPDATE_GOLDEN:-}" ]; then
			cp "$scratch/out" "$golden"
			ok "$name: $mode golden rewritten"
			continue
		fi
		if [ $rc -ne 0 ]; then
			fail "$name: show $mode exits 0" "exit $rc" "$(cat "$scratch/err")"
		elif ! diff -u "$golden" "$scratch/out" >"$scratch/diff" 2>&1; then
			fail "$name: show $mode matches $golden" "$(head -40 "$scratch/diff")"
		else
			ok "$name: show $mode matches its golden output"
		fi
	done
done
done_testing

#!/bin/bash
# Tests never touch the machine that runs them: under a private, empty /run (a mount namespace
# of its own), the unit and CLI tests and an apply of a replayed host leave /run empty.
# Usage: private-run.sh NUMAPLAN FIXTURES BUILD_DIR
set -u
numaplan=$(readlink -f "$1")
fixtures=$(readlink -f "$2")
build=$(readlink -f "$3")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "a private /run needs root (unshare --mount)"
command -v unshare >/dev/null || skip_all "unshare (util-linux) is not installed"
if [ -z "${NUMAPLAN_PRIVATE_RUN:-}" ]; then
	# Re-run this script in a mount namespace of its own with a fresh tmpfs on /run.
	exec unshare --mount --propagation private env NUMAPLAN_PRIVATE_RUN=1 bash -c \
		'mount -n -t tmpfs -o mode=0755 numaplan-test /run && exec bash "$0" "$@"' "$0" "$@"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for t in "$build"/tests/basic-test-* "$build"/tests/core-test-* "$build"/tests/host-test-*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	if "$t" "$fixtures" "$here/../.." >"$scratch/log" 2>&1; then ok "$(basename "$t") passes"; else
		fail "$(basename "$t") passes" "$(grep '^not ok' "$scratch/log" | head -5)"; fi
done
for t in apply show golden command-line faults hostile; do
	if bash "$here/$t.sh" "$numaplan" "$fixtures" >"$scratch/log" 2>&1; then ok "tests/cli/$t.sh passes"; else
		fail "tests/cli/$t.sh passes" "$(grep '^not ok' "$scratch/log" | head -5)"; fi
done
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 1G\n' >"$scratch/c.conf"
chmod 0644 "$scratch/c.conf"
"$numaplan" apply --no-reload --sysfs-root "$fixtures/hosts/dgx-2s-8gpu" -c "$scratch/c.conf" --unit-dir "$scratch/units" \
	>/dev/null 2>&1
is "apply --no-reload of a replayed host exits 0" "$?" 0
check "its marker follows the unit directory" test -e "$scratch/units/.numaplan/applied"
is "and /run is as it was: empty" "$(ls -A /run)" ""
done_testing

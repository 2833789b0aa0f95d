#!/bin/bash
# Tests never touch the machine that runs them: under a private, empty /run (a mount namespace
# of its own), the unit and CLI tests and an apply of a replayed host leave /run empty, and send
# nothing to a journal listening on its socket there, as systemd's does on most hosts. Then what
# numaplan sends that journal when it does act on this host's systemd: an apply and a remove
# with systemd's runtime unit directory, the private /run's.
# Usage: private-run.sh NUMAPLAN FIXTURES BUILD_DIR FAULT_PRELOAD
set -u
numaplan=$(readlink -f "$1")
fixtures=$(readlink -f "$2")
build=$(readlink -f "$3")
preload=$(readlink -f "${4:-}")
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
trap ': >"$scratch/journal.stop"; wait; rm -rf "$scratch"' EXIT

# A journal: every datagram sent to its socket, kept in $scratch/journal with a "--" line after
# each; once $scratch/journal.stop exists, it reads what is queued, then leaves.
mkdir -p /run/systemd/journal
python3 - /run/systemd/journal/socket "$scratch/journal" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(0.2)
out = open(sys.argv[2], "wb", buffering=0)
open(sys.argv[2] + ".ready", "w").close()
while True:
    try:
        out.write(s.recv(1 << 20) + b"\n--\n")
    except socket.timeout:
        if os.path.exists(sys.argv[2] + ".stop"):
            break
PY
listener=$!
for _ in $(seq $(($(scaled 10) * 10))); do [ -e "$scratch/journal.ready" ] && break; sleep 0.1; done
journal_entries() { grep -c '^--$' "$scratch/journal"; }

for t in "$build"/tests/basic-test-* "$build"/tests/core-test-* "$build"/tests/host-test-*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	if "$t" "$fixtures" "$here/../.." >"$scratch/log" 2>&1; then ok "$(basename "$t") passes"; else
		fail "$(basename "$t") passes" "$(grep '^not ok' "$scratch/log" | head -5)"; fi
done
for t in apply show golden command-line faults hostile hostile-names irqs; do
	if bash "$here/$t.sh" "$numaplan" "$fixtures" "$preload" >"$scratch/log" 2>&1; then ok "tests/cli/$t.sh passes"; else
		fail "tests/cli/$t.sh passes" "$(grep '^not ok' "$scratch/log" | head -5)"; fi
done
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 1G\n' >"$scratch/c.conf"
chmod 0644 "$scratch/c.conf"
"$numaplan" apply --boot --no-reload --sysfs-root "$fixtures/hosts/dgx-2s-8gpu" -c "$scratch/c.conf" \
	--unit-dir "$scratch/units" >/dev/null 2>&1
is "apply --boot --no-reload of a replayed host exits 0" "$?" 0
check "its boot marker follows the unit directory" grep -qx "AssertPathExists=!$scratch/units/.numaplan/unplaced" \
	"$scratch/units/a.service.d/50-numaplan.conf"
check "and is gone once it succeeded" test -d "$scratch/units/.numaplan" -a ! -e "$scratch/units/.numaplan/unplaced"
is "and /run is as it was: empty but for the journal's socket" "$(cd /run && find . -mindepth 1 | sort | tr '\n' ' ')" \
	"./systemd ./systemd/journal ./systemd/journal/socket "
is "none of them sent the journal an entry" "$(journal_entries)" 0

# This host itself, and systemd's runtime unit directory (the private /run's): the journal hears
# of each unit's drop-in, created and then removed.
printf '[replica a]\nunit = a.service\nmemory = 1M\n' >"$scratch/cpu.conf"
chmod 0644 "$scratch/cpu.conf"
"$numaplan" apply --no-reload --runtime -c "$scratch/cpu.conf" >/dev/null 2>"$scratch/err"
is "apply --runtime --no-reload of this host exits 0" "$?" 0
"$numaplan" remove --no-reload --runtime >/dev/null 2>>"$scratch/err"
is "and remove" "$?" 0
: >"$scratch/journal.stop"
wait "$listener"
entry() { # entry N: the Nth datagram's lines, sorted
	awk -v n="$1" '/^--$/ { k++; next } k == n - 1 && NF' "$scratch/journal" | sort | tr '\n' '|'
}
is "the journal got two entries" "$(journal_entries)" 2
is "apply's: the unit, the outcome, apply's MESSAGE_ID, the drop-in" "$(entry 1)" \
	"MESSAGE=a.service: drop-in created: /run/systemd/system/a.service.d/50-numaplan.conf|MESSAGE_ID=ec2fc912cc4f4a4f9f5293ad0b8ede1b|NUMAPLAN_DROPIN=/run/systemd/system/a.service.d/50-numaplan.conf|NUMAPLAN_OUTCOME=created|NUMAPLAN_UNIT=a.service|PRIORITY=6|SYSLOG_IDENTIFIER=numaplan|"
is "remove's, with remove's MESSAGE_ID" "$(entry 2)" \
	"MESSAGE=a.service: drop-in removed: /run/systemd/system/a.service.d/50-numaplan.conf|MESSAGE_ID=02e9e0ec3d98423e8bf5b48f55b1362f|NUMAPLAN_DROPIN=/run/systemd/system/a.service.d/50-numaplan.conf|NUMAPLAN_OUTCOME=removed|NUMAPLAN_UNIT=a.service|PRIORITY=6|SYSLOG_IDENTIFIER=numaplan|"
rm -rf /run/systemd /run/numaplan /run/numaplan.lock
is "and /run is empty again" "$(ls -A /run)" ""
done_testing

#!/bin/bash
# Tests never touch the machine that runs them: every test of the unit and cli suites, run again
# by meson test, each in a mount namespace of its own with a private /run that holds only a
# journal's socket, as systemd's on most hosts, leaves that /run as it was and sends the journal
# nothing; and so does an apply of a replayed host. Then what numaplan sends that journal when
# it does act on this host's systemd: an apply and a remove with systemd's runtime unit
# directory, the private /run's.
# Usage: private-run.sh NUMAPLAN FIXTURES BUILD_DIR FAULT_PRELOAD (the last for the tests it runs)
#        private-run.sh --wrap SOCKET REPORT COMMAND...: meson test's wrapper of each test (below)
set -u
if [ "${1:-}" = --wrap ]; then
	# COMMAND in a mount namespace of its own, on a fresh tmpfs on /run that holds SOCKET (the
	# listener's) as the journal's socket; what else /run holds once COMMAND is done, REPORT gets
	# as a line: the command, a tab, the paths. COMMAND's exit status is the wrapper's.
	shift
	exec unshare --mount --propagation private bash -c '
		sock=$1 report=$2
		shift 2
		mount -n -t tmpfs -o mode=0755 numaplan-test /run && mkdir -p /run/systemd/journal &&
			: >/run/systemd/journal/socket && mount -n --bind "$sock" /run/systemd/journal/socket ||
			{ echo "Bail out! no private /run for $*"; exit 1; }
		"$@"
		rc=$?
		left=$(cd /run && find . -mindepth 1 ! -path ./systemd ! -path ./systemd/journal \
			! -path ./systemd/journal/socket | sort | tr "\n" " ")
		[ -z "$left" ] || printf "%s\t%s\n" "$*" "$left" >>"$report"
		exit "$rc"' private-run "$@"
fi
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
trap ': >"$scratch/journal.stop"; wait; rm -rf "$scratch"' EXIT

# A journal: every datagram sent to its socket, kept in $scratch/journal with a "--" line after
# each; once $scratch/journal.stop exists, it reads what is queued, then leaves. Its socket is
# $scratch/journal.socket, bound where systemd's is in this /run and in each test's.
python3 - "$scratch" "$scratch/journal" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
os.chdir(sys.argv[1])  # a name, not a path: a long $TMPDIR stays under sun_path's 108 bytes
s.bind("journal.socket")
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
mkdir -p /run/systemd/journal
: >/run/systemd/journal/socket
mount -n --bind "$scratch/journal.socket" /run/systemd/journal/socket || { echo "Bail out! no journal's socket"; exit 1; }

# Every test of the unit and cli suites, as meson test runs them (their arguments, environment,
# time limits, in parallel), each wrapped in a private /run of its own by --wrap above: each must
# pass there too, and leave its /run as it was.
if ! command -v meson >/dev/null; then
	fail "the unit and cli suites run again, each test in a private /run" "meson is not on PATH"
else
	wrapper=$(printf '%q ' bash "$here/private-run.sh" --wrap "$scratch/journal.socket" "$scratch/left")
	: >"$scratch/left"
	meson test -C "$build" --no-rebuild --suite unit --suite cli --wrapper "$wrapper" \
		--timeout-multiplier "${NUMAPLAN_TEST_TIMEOUT_MULTIPLIER:-1}" --logbase testlog-private-run \
		>"$scratch/meson" 2>&1
	log=$(ls -t "$build"/meson-logs/testlog-private-run*.json 2>/dev/null | head -1)
	# One line a test: its name ("cli / apply"), its result, and what it left in its /run, found
	# by its command (meson's log has the wrapper's words before it).
	if ! python3 - "$log" "$scratch/left" "$wrapper" >"$scratch/results" <<'PY'
import json, shlex, sys
left = dict(line.rstrip("\n").split("\t", 1) for line in open(sys.argv[2]) if "\t" in line)
skip = len(shlex.split(sys.argv[3]))
for line in open(sys.argv[1]):
    t = json.loads(line)
    cmd = " ".join(t["command"][skip:])
    print("\t".join([t["name"].split(":", 1)[-1], t["result"], left.get(cmd, "").strip()]))
PY
	then
		fail "meson test's log of the suites" "$(tail -5 "$scratch/meson")"
	fi
	check "meson test ran the unit and cli suites" test -s "$scratch/results"
	while IFS=$'\t' read -r name result paths; do
		case $result in
		OK | EXPECTEDFAIL) ok "$name passes in a private /run" ;;
		SKIP) ok "$name in a private /run # SKIP it skips" ;;
		*) fail "$name passes in a private /run" "$result: $(grep -F "$name" "$scratch/meson" | tail -1)" ;;
		esac
		is "$name leaves /run as it was: empty but for the journal's socket" "$paths" ""
	done <"$scratch/results"
fi

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
umount -n /run/systemd/journal/socket
rm -rf /run/systemd /run/numaplan /run/numaplan.lock
is "and /run is empty again" "$(ls -A /run)" ""
done_testing

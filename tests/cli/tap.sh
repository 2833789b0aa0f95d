# TAP for shell tests: source it, call ok/fail/is, end with done_testing.
tap_n=0
tap_failed=0

ok() { # ok DESCRIPTION: passes
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

fail() { # fail DESCRIPTION [DETAIL...]
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	shift
	for line in "$@"; do printf '%s\n' "$line" | sed 's/^/#   /'; done
}

check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$d"; else fail "$d" "failed: $*"; fi
}

is() { # is DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# scaled S: a test's own limit of S seconds on a command or a wait, times
# NUMAPLAN_TEST_TIMEOUT_MULTIPLIER (default 1; HACKING.md), rounded up to whole seconds.
scaled() {
	awk -v s="$1" -v m="${NUMAPLAN_TEST_TIMEOUT_MULTIPLIER:-1}" \
		'BEGIN { m += 0; if (m <= 0) m = 1; v = s * m; printf "%d\n", (v > int(v) ? int(v) + 1 : v) }'
}

# private_run COMMAND...: a tool that writes to /run whatever it is asked, run as root in a mount
# namespace of its own with an empty tmpfs on /run, so that the machine's /run stays as it was
# (systemd-analyze verify starts a system manager, which makes /run/systemd and leaves
# /run/systemd/systemd-units-load there); as a user as it is, since it cannot write there.
private_run() {
	if [ "$(id -u)" != 0 ]; then
		"$@"
		return
	fi
	command -v unshare >/dev/null || { echo "unshare (util-linux) is not installed: not run" >&2; return 127; }
	unshare --mount --propagation private sh -c 'mount -n -t tmpfs -o mode=0755 numaplan-test /run && exec "$@"' sh "$@"
}

done_testing() {
	[ -z "$tap_json_dir" ] || json_check_seen
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# Two contracts of numaplan's output hold wherever a test produces it: every --json document
# matches its verb's schema (schemas/), and every --diff is one that patch(1) applies with no
# fuzz and no offset. A test's run helper passes each run to output_seen.
tap_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tap_json_dir=
tap_json_n=0

# run ARGS...: runs $numaplan with ARGS, its output kept in $scratch (both set by the test) and
# checked by output_seen; sets rc, out, err.
run() {
	"$numaplan" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	output_seen "$scratch/out" "$scratch/err" "$rc" "$@"
	out=$(cat "$scratch/out")
	err=$(cat "$scratch/err")
}

output_seen() { # output_seen STDOUT_FILE STDERR_FILE EXIT_STATUS NUMAPLAN_ARGS...
	local out=$1 err=$2 rc=$3 verb= a json diff= check= gen=
	shift 3
	for a in "$@"; do
		case $a in
		--json) json=${json-1} ;;
		--tap) json= ;; # --tap's document wins: a usage error is a TAP Bail out!
		--diff) diff=1 ;;
		--check) check=1 ;;
		--generator-dir | --generator-dir=*) gen=1 ;;
		*) # a command whose document has a schema
			[ -n "$verb" ] || [ ! -e "${NUMAPLAN_SCHEMA_DIR:-$tap_src/build/schemas}/$a.schema.json" ] || verb=$a ;;
		esac
	done
	[ -n "${json-}" ] && [ -n "$verb" ] && json_seen "$verb" "$out"
	[ -n "$diff" ] && [ "$rc" -le 1 ] || return 0
	[ -n "${json-}" ] && out=$err # the diff goes to stderr with --json
	grep -q '^@@ ' "$out" || return 0 # nothing changed, nothing to show
	if [ -n "$check" ]; then
		diff_applies "apply --check --diff ($rc): patch takes the diff, no fuzz" "$out"
	elif [ "$rc" = 0 ] && [ -z "$gen" ]; then
		# Applied already: the diff reversed must undo it exactly.
		diff_applies "apply --diff: patch takes the diff (reversed, on the drop-ins written), no fuzz" "$out" -R
	fi
}

json_seen() { # json_seen VERB FILE: FILE holds the document `numaplan VERB --json` printed
	# An empty one too: --json promises a document also when the command fails, and nothing at
	# all is what a binary that never ran prints.
	[ -n "$tap_json_dir" ] || tap_json_dir=$(mktemp -d "${TMPDIR:-/tmp}/numaplan-json.XXXXXX")
	tap_json_n=$((tap_json_n + 1))
	cp "$2" "$tap_json_dir/$tap_json_n.$1.json"
}

json_check_seen() { # one point for every document json_seen kept, checked with Debian's python3-jsonschema
	local py= p out args=() f
	for p in /usr/bin/python3 python3; do
		if "$p" -c 'import jsonschema' 2>/dev/null; then py=$p && break; fi
	done
	for f in "$tap_json_dir"/*.json; do
		f=${f##*/}
		args+=("$(cut -d. -f2 <<<"$f")=$tap_json_dir/$f")
	done
	if [ -z "$py" ]; then
		ok "# SKIP python3-jsonschema is not installed: $tap_json_n --json documents unchecked"
	elif out=$("$py" "$tap_src/tests/lib/json-schema.py" "${NUMAPLAN_SCHEMA_DIR:-$tap_src/build/schemas}" "${args[@]}" 2>&1); then
		ok "every --json document of these tests matches its verb's schema: $(tail -n 1 <<<"$out")"
	else
		fail "every --json document of these tests matches its verb's schema" "$out"
	fi
	rm -rf "$tap_json_dir"
	tap_json_dir=
}

diff_applies() { # diff_applies DESC FILE [-R]: FILE's unified diff of drop-ins (absolute paths) applies now
	local out
	if out=$(patch --dry-run --batch --fuzz=0 -d / -p1 ${3:-} <"$2" 2>&1) && ! grep -q "^Hunk" <<<"$out"; then
		ok "$1"
	else
		fail "$1" "$out" "$(head -n 40 "$2")"
	fi
}

# The fault shim (tests/lib/fault-preload.c) preloaded into one program: "${faulty[@]}" PROGRAM
# ARGS..., with the variables that choose a fault (NUMAPLAN_TEST_KILL_AT_STEP=N, ...) set before.
# In the sanitized build the shim brings ASan's runtime after itself, which ASan must be told is
# fine. A script that uses it takes the shim's path as an argument: without it, it bails out.
fault_shim() { # fault_shim PRELOAD: sets faulty
	if [ -z "${1:-}" ] || [ ! -f "$1" ]; then
		echo "Bail out! the fault shim (libnumaplan-test-faults.so) is not at '${1:-}'"
		exit 1
	fi
	faulty=(env "LD_PRELOAD=$1" "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
}

# A root for a fixture host: the directory itself, or a tar (from numaplan snapshot) extracted.
fixture_root() { # fixture_root PATH SCRATCH
	case $1 in
	*.tar)
		mkdir -p "$2/$(basename "$1" .tar)"
		tar -xf "$1" -C "$2/$(basename "$1" .tar)"
		echo "$2/$(basename "$1" .tar)"
		;;
	*) echo "$1" ;;
	esac
}

host_name() { basename "$1" .tar; }

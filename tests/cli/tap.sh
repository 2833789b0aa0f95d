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

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
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

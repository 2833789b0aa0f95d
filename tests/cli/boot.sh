#!/bin/bash
# Trust at boot, against a temporary unit directory (--no-reload: no systemd here):
# - the boot marker: apply's drop-ins assert that <runtime>/unplaced is not there; apply --boot
#   creates it first and an apply that succeeds removes it, so that a boot step that ran and failed
#   keeps the replicas from starting and one that never ran keeps none; apply --check says which
#   boot step will run at the next boot, and warns when none will;
# - what root runs for a replica: apply, apply --check and the generator refuse (exit 2, nothing
#   written, the path named) drop-ins that would have root run a numaplan binary another user
#   could replace, or write below a directory another user could; plan still shows any path.
# Usage: boot.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
chmod 0755 "$scratch"
trap 'rm -rf "$scratch"' EXIT
dgx="$fixtures/hosts/dgx-2s-8gpu"

run() { # run BINARY ARGS...: sets rc, out, err
	local bin=$1
	shift
	"$bin" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	output_seen "$scratch/out" "$scratch/err" "$rc" "$@"
	out=$(cat "$scratch/out")
	err=$(cat "$scratch/err")
}

conf() { # conf NAME TEXT: a config file owned by root, mode 0644
	printf '%s\n' "$2" >"$scratch/$1"
	chmod 0644 "$scratch/$1"
	echo "$scratch/$1"
}

# A tree's every name, mode, owner and byte: what "nothing written" compares.
tree_state() {
	[ -e "$1" ] || { echo absent; return; }
	(cd "$1" && find . -printf '%p %m %U %T@ %s\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum)
}

head -c 65536 /dev/zero >"$scratch/model.gguf"
good=$(conf good.conf "[replica llama]
unit = llama.service
accelerators = 18:00.0
model = $scratch/model.gguf")
cpu_only=$(conf cpu.conf "[replica worker]
unit = worker.service
memory = 1G
nics = none")
broken=$(conf broken.conf "[replica llama]
unit = llama.service
memory = lots")
units=$scratch/units
A=(--sysfs-root "$dgx" --unit-dir "$units" --no-reload)

# ---- the boot marker ----
run "$numaplan" apply "${A[@]}" -c "$good"
is "apply of a replica with a model exits 0" "$rc" 0
dropin=$units/llama.service.d/50-numaplan.conf
check "its drop-in asserts that the boot marker is not there" grep -qx "AssertPathExists=!$units/.numaplan/unplaced" "$dropin"
check "an apply that is not the boot step creates no marker" test ! -e "$units/.numaplan/unplaced"

before=$(tree_state "$units")
run "$numaplan" apply --boot "${A[@]}" -c "$broken"
is "apply --boot with a configuration that does not parse exits 2" "$rc" 2
check "and leaves the marker that keeps the replicas from starting" test -f "$units/.numaplan/unplaced"
is "and no drop-in changed" "$(tree_state "$units" | grep -v '^\. \|\.numaplan')" "$(echo "$before" | grep -v '^\. \|\.numaplan')"

run "$numaplan" apply --check "${A[@]}" -c "$good"
is "apply --check while the marker is there: exit 1, though every drop-in is current" "$rc" 1
case $err in *"unplaced is there: the boot step has not placed the replicas"*) ok "and it says why" ;;
*) fail "apply --check names the marker" "$err" ;; esac

run "$numaplan" apply "${A[@]}" -c "$good"
is "apply with the configuration fixed exits 0" "$rc" 0
check "and removes the marker" test ! -e "$units/.numaplan/unplaced"
run "$numaplan" apply --check "${A[@]}" -c "$good"
is "apply --check is in sync again" "$rc" 0

run "$numaplan" apply --boot "${A[@]}" -c "$good"
is "apply --boot that succeeds exits 0" "$rc" 0
check "and leaves no marker behind" test -d "$units/.numaplan" -a ! -e "$units/.numaplan/unplaced"

run "$numaplan" apply --boot --check "${A[@]}" -c "$good"
is "apply --boot --check is a usage error" "$rc" 2

# ---- which boot step runs at the next boot ----
run "$numaplan" apply --check "${A[@]}" -c "$good"
case $err in *"warning: no boot step will run at the next boot (numaplan.service is not installed, "*"systemctl enable numaplan.service"*)
	ok "apply --check warns that no boot step will run, and what to do" ;;
*) fail "apply --check without a boot step" "$err" ;; esac
printf '[Service]\nType=oneshot\n' >"$units/numaplan.service"
run "$numaplan" apply --check "${A[@]}" -c "$good"
case $err in *"numaplan.service is not enabled"*) ok "a unit not enabled is said to be so" ;;
*) fail "numaplan.service not enabled" "$err" ;; esac
mkdir -p "$units/sysinit.target.wants"
ln -s ../numaplan.service "$units/sysinit.target.wants/numaplan.service"
run "$numaplan" apply --check "${A[@]}" -c "$good"
case $err in *"warning: no boot step"*) fail "no warning once numaplan.service is enabled" "$err" ;;
*"at the next boot, numaplan.service (wanted by $units/sysinit.target.wants/numaplan.service) plans again"*)
	ok "once enabled, apply --check names numaplan.service and the link that enables it" ;;
*) fail "apply --check names the enabled service" "$err" ;; esac
run "$numaplan" apply "${A[@]}" -c "$good"
case $err in *"boot step"*) fail "plain apply says nothing of a boot step that will run" "$err" ;;
*) ok "plain apply says nothing of a boot step that will run" ;; esac
rm "$units/numaplan.service" && ln -s /dev/null "$units/numaplan.service"
run "$numaplan" apply --check "${A[@]}" -c "$good"
case $err in *"warning: no boot step will run at the next boot (numaplan.service is masked"*) ok "a masked numaplan.service is none" ;;
*) fail "masked numaplan.service" "$err" ;; esac
rm -rf "$units/numaplan.service" "$units/sysinit.target.wants"

# ---- what root runs for a replica: the binary and the runtime directory ----
if [ "$(id -u)" != 0 ]; then
	echo "# not root: the cases that need another owner are left out"
	done_testing
	exit
fi
copy() { # copy DIR OWNER MODE: a copy of numaplan in DIR, which belongs to OWNER with MODE
	mkdir -p "$1"
	cp "$numaplan" "$1/numaplan"
	chmod 0755 "$1/numaplan"
	chown "$2" "$1"
	chmod "$3" "$1"
}
refused() { # refused DESC WHAT BINARY ARGS...: exit 2, nothing written, WHAT named with why
	local desc=$1 what=$2 bin=$3
	shift 3
	local fresh=$scratch/fresh
	rm -rf "$fresh"
	run "$bin" "$@" --sysfs-root "$dgx" --unit-dir "$fresh" --no-reload
	if [ "$rc" = 2 ] && [ ! -e "$fresh" ] && [[ $err == *"$what"*"another user could replace it"*"nothing written"* ]]; then
		ok "$desc: exit 2, nothing written, the path named"
	else
		fail "$desc" "exit $rc" "$err" "$(find "$fresh" 2>&1 | head -5)"
	fi
}
copy "$scratch/user" nobody 0755
refused "apply from a directory another user owns" "$scratch/user belongs to uid $(id -u nobody), not root" \
	"$scratch/user/numaplan" apply -c "$good"
refused "apply --check from there" "$scratch/user belongs to uid" "$scratch/user/numaplan" apply --check -c "$good"
copy "$scratch/group" root 0775
refused "apply from a group-writable directory" "$scratch/group is writable by group or others (mode 0775)" \
	"$scratch/group/numaplan" apply -c "$good"
copy "$scratch/deep/user/bin" root 0755
chown nobody "$scratch/deep/user"
refused "apply from below a directory another user owns" "$scratch/deep/user belongs to uid" \
	"$scratch/deep/user/bin/numaplan" apply -c "$good"
copy "$scratch/writable-binary" root 0755
chmod 0777 "$scratch/writable-binary/numaplan"
refused "apply of a binary others may write" "$scratch/writable-binary/numaplan is writable by group or others" \
	"$scratch/writable-binary/numaplan" apply -c "$good"
# A link root made, in a directory root holds, to a binary in a user's directory: /proc/self/exe
# names where it leads, and so would the drop-in.
mkdir -p "$scratch/linked"
ln -s "$scratch/user/numaplan" "$scratch/linked/numaplan"
refused "apply through a link to a user's copy" "$scratch/user belongs to uid" "$scratch/linked/numaplan" apply -c "$good"
rm -rf "$scratch/gen" && mkdir -p "$scratch/gen"
mkdir -p "$scratch/user/gen-bin" && chown nobody "$scratch/user/gen-bin"
cp "$numaplan" "$scratch/user/gen-bin/numaplan-generator"
"$scratch/user/gen-bin/numaplan-generator" --sysfs-root "$dgx" -c "$good" --unit-dir "$scratch/etc" "$scratch/gen" \
	"$scratch/gen.early" "$scratch/gen.late" >"$scratch/out" 2>"$scratch/err"
rc=$?
if [ "$rc" = 2 ] && [ -z "$(ls -A "$scratch/gen")" ] && grep -q "another user could replace it" "$scratch/err"; then
	ok "the generator from a user's directory: exit 2, nothing written, the path named"
else fail "the generator from a user's directory" "exit $rc" "$(cat "$scratch/err")" "$(ls -A "$scratch/gen")"; fi

# What may run: a directory root holds (below sticky /tmp), and any binary when no drop-in names it.
copy "$scratch/held" root 0755
run "$scratch/held/numaplan" apply "${A[@]}" -c "$good"
is "apply from a directory root holds exits 0" "$rc" 0
check "and its drop-in names that binary" grep -q "^ExecStartPre=-+\"$scratch/held/numaplan\" prepare " "$dropin"
run "$scratch/user/numaplan" apply --sysfs-root "$dgx" --unit-dir "$scratch/cpu-units" --no-reload -c "$cpu_only"
is "a plan whose drop-ins run no binary applies from anywhere" "$rc" 0
run "$scratch/user/numaplan" plan --sysfs-root "$dgx" --unit-dir "$units" -c "$good"
if [ "$rc" = 0 ] && [[ $out == *"ExecStartPre=-+\"$scratch/user/numaplan\" prepare"* ]]; then
	ok "plan, which writes nothing, shows the drop-in with any binary's path"
else fail "plan from a user's directory" "exit $rc" "$err"; fi

# The runtime directory, which prepare writes into and systemd reads the replica's variables from.
mkdir -p "$scratch/runtime-user" && chown nobody "$scratch/runtime-user"
refused "--runtime-dir below a directory another user owns" "$scratch/runtime-user belongs to uid" \
	"$numaplan" apply -c "$good" --runtime-dir "$scratch/runtime-user/state"
mkdir -p "$scratch/runtime-group" && chmod 0775 "$scratch/runtime-group"
refused "a group-writable --runtime-dir" "$scratch/runtime-group is writable by group or others" \
	"$numaplan" apply -c "$good" --runtime-dir "$scratch/runtime-group"
done_testing

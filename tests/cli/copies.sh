#!/bin/bash
# model-copies = per-node's prepare as root, against what a server's user can do to it, in a mount
# namespace of its own (real tmpfs mounts, none seen outside it) and temporary directories: two
# units on one node with and without User=, a copy directory that is a link or already a mount, a
# directory of copies others may write, replicas starting together, a model updated in place in a
# tmpfs with no room for two, a directory model larger than the tmpfs, long names and deep trees,
# and numaplan remove's pruning. For each: what it refuses (said, by name), what the server reads
# (the environment file), and that nothing outside the allowed directories was written, removed
# or mounted. Usage: copies.sh NUMAPLAN FIXTURES
set -u
numaplan=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "mounting a tmpfs needs root"
command -v unshare >/dev/null && command -v setpriv >/dev/null || skip_all "unshare and setpriv (util-linux) are not installed"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
if [ -z "${NUMAPLAN_COPIES_NS:-}" ]; then
	exec unshare --mount --propagation private env NUMAPLAN_COPIES_NS=1 bash "$0" "$@"
fi

scratch=$(mktemp -d)
cleanup() {
	awk -v p="$scratch/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo | sort -r | xargs -r umount -n -l
	rm -rf "$scratch"
}
trap cleanup EXIT
chmod 0755 "$scratch" # the unit's user must reach the model
node=$(cut -d, -f1 /sys/devices/system/node/online 2>/dev/null | cut -d- -f1)
node=${node:-0}
nobody_uid=$(id -u nobody)

# A model: a directory of two shards and a subdirectory, readable by anyone.
model=$scratch/m
mkdir -p "$model/sub"
head -c 65536 /dev/urandom >"$model/a.safetensors"
head -c 4096 /dev/urandom >"$model/sub/b.safetensors"
chmod -R a+rX "$model"
# What must stay as it is: a directory of someone's data.
victim=$scratch/victim
mkdir -p "$victim/inner"
echo precious >"$victim/keep"
echo precious >"$victim/inner/keep"
state() { (cd "$1" && find . -printf '%p %y %m %U %s %T@\n' | sort); }
victim_state=$(state "$victim")
victim_intact() { [ "$(state "$victim")" = "$victim_state" ]; }
# intact DESCRIPTION SAID: someone's directory is as it was, after numaplan said SAID (a regex,
# on stderr): a numaplan that did nothing would leave it as it was too.
intact() {
	if victim_intact && grep -q -- "$2" <<<"$err"; then ok "$1"; else
		fail "$1" "$(diff <(echo "$victim_state") <(state "$victim"))" "it said: $err"; fi
}
mounts() { awk '{ for (i = 7; $i != "-"; i++); print $5, $(i + 1), $(i + 2) }' /proc/self/mountinfo | sort; }
mounts_under() { mounts | awk -v p="$1" 'index($1, p) == 1' | tr '\n' ';'; }

prep() { # prep RUN USER PATH...: prepare into RUN/models/node$node for a unit whose user is USER ("" for root)
	local run=$1 user=$2
	shift 2
	env ${user:+USER=$user} "$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 1M \
		--env-file "$run/models/.env/u.service" -- "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	err=$(cat "$scratch/err")
}
reads() { sed -n 's/^NUMAPLAN_MODEL="\(.*\)"$/\1/p' "$1/models/.env/u.service" 2>/dev/null; }
as_nobody() { setpriv --reuid="$nobody_uid" --regid="$(id -g nobody)" --clear-groups -- "$@"; }

# ---- A copy for a unit without User=: its tmpfs, root's, and the copy read ----
run=$scratch/run1
prep "$run" "" "$model"
place=$run/models/node$node
is "prepare --copy-to: exit 0" "$rc" 0
is "numaplan's tmpfs is mounted there, once" "$(mounts_under "$place")" "$place tmpfs numaplan-models;"
is "the server reads the copy (the environment file says so)" "$(reads "$run")" "$place$model"
check "the copy is whole" cmp "$model/a.safetensors" "$place$model/a.safetensors"
grep -q "the server reads $place$model" <<<"$err" && ok "prepare says that the server reads the copy" ||
	fail "prepare says what the server reads" "$err"

# ---- Two units on one node: the one with User= starts first, its user swaps a directory ----
run=$scratch/run2
place=$run/models/node$node
prep "$run" nobody "$model"
is "a unit with User=nobody: exit 0" "$rc" 0
is "its tmpfs is nobody's" "$(stat -c %u "$place")" "$nobody_uid"
is "and its server reads the copy" "$(reads "$run")" "$place$model"
as_nobody rm -rf "$place$model/sub"
as_nobody ln -s "$victim" "$place$model/sub"
as_nobody ln -sfn "$victim" "$place$model/gone-shard"
check "nobody swapped the copy's sub for a link to someone's directory" test -L "$place$model/sub"
prep "$run" "" "$model"
if [ "$rc" -eq 0 ] && grep -q "the tmpfs on $place belongs to uid $nobody_uid, and this unit's server runs as uid 0: refused" <<<"$err"; then
	ok "the unit without User= (root) refuses nobody's tmpfs, by name"
else fail "root refuses another user's tmpfs" "exit $rc" "$err"; fi
intact "nothing written or removed through the link" "belongs to uid $nobody_uid, .*: refused"
is "that server reads the original, and is told so" "$(reads "$run")" "$model"
grep -q "the server reads $model (the original" <<<"$err" && ok "prepare says the server reads the original" ||
	fail "prepare says the original" "$err"
prep "$run" nobody "$model"
is "nobody's own unit again: exit 0" "$rc" 0
check "its copy has its directory back, and nothing went through the link" \
	bash -c "[ -d '$place$model/sub' ] && [ ! -L '$place$model/sub' ] && [ ! -e '$place$model/gone-shard' ]"
intact "and someone's directory is as it was" "the server reads $place$model"
top=${scratch#/}
top=${top%%/*}
as_nobody mv "$place/$top" "$place/$top.old"
as_nobody ln -s "$victim" "$place/$top"
prep "$run" "" "$model"
intact "nobody swaps a directory above the model's copy for a link: root refuses, and writes nothing there" "refused"
prep "$run" nobody "$model"
check "nobody's own unit: the link replaced, nothing written through it" \
	bash -c "[ ! -L '$place/$top' ] && [ -f '$place$model/a.safetensors' ]"
intact "and someone's directory is as it was" "the server reads $place$model"

# ---- A copy directory that is already a mount (a bind mount of someone's data) ----
run=$scratch/run3
place=$run/models/node$node
mkdir -p "$place"
# -n, here and in every umount: mount(8) and umount(8) without it make /run/mount for libmount's
# utab, and the mount namespace is this test's own but /run is the machine's.
mount -n --bind "$victim" "$place"
before=$(mounts_under "$run")
prep "$run" "" "$model"
if [ "$rc" -eq 0 ] && grep -q "$place is already a mount (.*), not numaplan's tmpfs: refused" <<<"$err"; then
	ok "a copy directory that is another mount: refused by name"
else fail "another mount refused" "exit $rc" "$err"; fi
is "no tmpfs stacked on it" "$(mounts_under "$run")" "$(grep -q "not numaplan's tmpfs: refused" <<<"$err" && echo "$before")"
is "the server reads the original" "$(reads "$run")" "$model"
mkdir -p "$scratch/units3"
"$numaplan" remove --no-reload --unit-dir "$scratch/units3" --runtime-dir "$run" >/dev/null 2>"$scratch/err"
err=$(cat "$scratch/err")
is "numaplan remove leaves the mount: it is not numaplan's" "$(mounts_under "$run")" \
	"$(grep -q "holds a mount that is not numaplan's" <<<"$err" && echo "$before")"
grep -q "holds a mount that is not numaplan's" "$scratch/err" && ok "and says so" || fail "remove says so" "$(cat "$scratch/err")"
umount -n "$place"
intact "someone's data is as it was" "holds a mount that is not numaplan's"

# ---- A copy directory that is a link ----
run=$scratch/run4
place=$run/models/node$node
mkdir -p "$run/models"
ln -s "$victim" "$place"
prep "$run" "" "$model"
if [ "$rc" -eq 0 ] && grep -q "$place is a symbolic link: refused" <<<"$err"; then ok "a copy directory that is a link: refused"; else
	fail "a linked copy directory refused" "exit $rc" "$err"; fi
is "nothing mounted where it points" "$(mounts_under "$victim")" "$(grep -q "is a symbolic link: refused" <<<"$err" || echo said nothing)"
intact "nor written there" "is a symbolic link: refused"
is "the server reads the original" "$(reads "$run")" "$model"

# ---- A directory of copies that others may write ----
run=$scratch/run5
mkdir -p "$run/models"
chmod 0777 "$run/models"
prep "$run" "" "$model"
if [ "$rc" -eq 0 ] && grep -q "$run/models is writable by others (mode 0777): refused" <<<"$err" &&
	[ "$(mounts_under "$run")" = "" ]; then
	ok "a directory of copies others may write: refused, nothing mounted"
else fail "a writable directory of copies" "exit $rc" "$err"; fi

# ---- Replicas starting together: one mount, one copy ----
run=$scratch/run6
head -c $((48 << 20)) /dev/zero >"$scratch/big.gguf"
for i in 1 2 3; do
	"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 64M -- "$scratch/big.gguf" \
		>/dev/null 2>"$scratch/err$i" &
done
wait
is "three prepares at once: one tmpfs" "$(mounts_under "$run" | tr ';' '\n' | grep -c numaplan-models)" 1
copied=$(cat "$scratch/err1" "$scratch/err2" "$scratch/err3" | grep -c ": 1 file (48.0 MiB) copied")
is "and one copy: the others found it fresh" "$copied" 1

# ---- A model updated in place, in a tmpfs with no room for two ----
run=$scratch/run7
head -c $((8 << 20)) /dev/urandom >"$scratch/same.gguf"
"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 8M --env-file "$run/models/.env/u.service" \
	-- "$scratch/same.gguf" >/dev/null 2>&1
head -c $((8 << 20)) /dev/urandom >"$scratch/same.gguf"
touch -d '+1 minute' "$scratch/same.gguf"
"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 8M --env-file "$run/models/.env/u.service" \
	-- "$scratch/same.gguf" >/dev/null 2>"$scratch/err"
if cmp -s "$scratch/same.gguf" "$run/models/node$node$scratch/same.gguf" && [ "$(reads "$run")" = "$run/models/node$node$scratch/same.gguf" ]; then
	ok "a model updated in place (same size, new time) is copied again, the stale copy making room"
else fail "the stale copy replaced" "$(cat "$scratch/err")"; fi

# ---- A directory model larger than the tmpfs ----
run=$scratch/run8
mkdir -p "$scratch/shards"
for i in 1 2 3; do head -c $((4 << 20)) /dev/zero >"$scratch/shards/$i.safetensors"; done
"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 4M --env-file "$run/models/.env/u.service" \
	-- "$scratch/shards" >/dev/null 2>"$scratch/err"
if [ -L "$run/models/node$node$scratch/shards" ] && [ "$(readlink "$run/models/node$node$scratch/shards")" = "$scratch/shards" ] &&
	[ "$(reads "$run")" = "$scratch/shards" ]; then
	ok "a directory model larger than the tmpfs: no shard of it kept, a link to the original, and the server reads it"
else fail "a model larger than the tmpfs" "$(ls -la "$run/models/node$node$scratch/" 2>&1)" "$(cat "$scratch/err")"; fi
grep -q "no whole copy on this node" "$scratch/err" && ok "and prepare says so" || fail "prepare says no whole copy" "$(cat "$scratch/err")"

# ---- Long names and deep trees ----
run=$scratch/run9
long=$(printf 'n%.0s' $(seq 1 243)) # and ".safetensors": 255 bytes
mkdir -p "$scratch/names"
echo x >"$scratch/names/$long.safetensors"
"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 1M -- "$scratch/names" >/dev/null 2>"$scratch/err"
check "a name of 255 bytes is copied" test -f "$run/models/node$node$scratch/names/$long.safetensors"
deep=$scratch/deep
mkdir -p "$deep/$(printf 'd/%.0s' $(seq 1 40))"
echo x >"$deep/$(printf 'd/%.0s' $(seq 1 40))f"
"$numaplan" prepare --nodes "$node" --copy-to "$run/models/node$node" --copy-size 1M -- "$deep" >/dev/null 2>"$scratch/err"
if grep -q "more than 32 directories deep: no whole copy" "$scratch/err" && [ -L "$run/models/node$node$deep" ]; then
	ok "a tree 40 directories deep: said, and the original linked"
else fail "a deep tree" "$(cat "$scratch/err")"; fi

# ---- A dry run changes nothing ----
run=$scratch/run10
"$numaplan" prepare --dry-run --nodes "$node" --copy-to "$run/models/node$node" --copy-size 1M -- "$model" >/dev/null 2>"$scratch/err"
if [ ! -e "$run" ] && grep -q "would mount a tmpfs on $run/models/node$node" "$scratch/err"; then
	ok "a dry run mounts and makes nothing, and says what it would"
else fail "a dry run" "$(cat "$scratch/err")"; fi

# ---- remove takes numaplan's copies away, and only them ----
run=$scratch/run1
mkdir -p "$scratch/units1"
mounted=$(mounts_under "$run/models/node$node")
"$numaplan" remove --no-reload --unit-dir "$scratch/units1" --runtime-dir "$run" >/dev/null 2>"$scratch/err"
# Of the tmpfs the first prepare mounted, and its directory: there before.
is "remove unmounts numaplan's tmpfs" "$mounted -> $(mounts_under "$run")" "$run/models/node$node tmpfs numaplan-models; -> "
check "and removes the directory of copies" test -n "$mounted" -a ! -e "$run/models/node$node"
if victim_intact && [ -n "$mounted" ] && [ ! -e "$run/models/node$node" ]; then ok "someone's data is as it was at the end"; else
	fail "someone's data is as it was at the end" "$(diff <(echo "$victim_state") <(state "$victim"))"; fi
done_testing

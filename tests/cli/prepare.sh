#!/bin/bash
# numaplan prepare and model = against hostile model directories, in temporary directories on this
# host, with --dry-run (which moves nothing; asking where a page is needs no privilege): links out
# of the model's tree, into /proc or to files only root reads; the Hugging Face layout; a model
# truncated while prepared; more shards than descriptors; a large sparse file; names with newlines;
# --nodes values; prepare as root for a unit's user. Usage: prepare.sh NUMAPLAN FIXTURES PRELOAD
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"
fault_shim "${3:-}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 0755 "$scratch" # a unit's user must reach what it may read
host="$fixtures/hosts/dgx-2s-8gpu"

node=$(cut -d, -f1 /sys/devices/system/node/online 2>/dev/null | cut -d- -f1)
node=${node:-0}
prep() { run prepare --dry-run --nodes "$node" -- "$@"; }
cached_pages() { sed -n 's/.* of \([0-9]*\) pages on node.*/\1/p' <<<"$err" | tail -1; }
# A file of N KiB (and so in the page cache: just written).
mkfile() { head -c "$(($2 * 1024))" /dev/urandom >"$1"; }

# ---- Links: followed inside the model's tree, never out of it ----
m=$scratch/models
mkdir -p "$m/plain/sub" "$m/hf/models--org--name/blobs" "$m/hf/models--org--name/snapshots/rev1" "$m/secret"
mkfile "$m/plain/a.safetensors" 64
mkfile "$m/plain/sub/b.safetensors" 64
ln -s sub/b.safetensors "$m/plain/b-link" # inside: the same file, counted once
ln -s / "$m/plain/root"
ln -s /proc "$m/plain/proc"
ln -s /sys/devices "$m/plain/sys"
ln -s /dev "$m/plain/dev"
ln -s ../secret "$m/plain/secret" # a directory beside the tree
mkfile "$m/secret/key" 64
ln -s "$m/plain/a.safetensors" "$m/plain/absolute" # absolute: resolved by no one below the tree
prep "$m/plain"
is "prepare of a tree with links out of it: exit 0" "$rc" 0
is "it counts the tree's own files once each (128 KiB: 32 pages)" "$(cached_pages)" 32
for l in root proc sys dev secret absolute; do
	grep -q "^numaplan: warning: $m/plain/$l: a link out of the model's tree" <<<"$err" &&
		ok "the link to $l is skipped with a warning" || fail "the link to $l is skipped with a warning" "$err"
done
is "one warning per link, and nothing else said" "$(grep -c warning <<<"$err")" 6
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmodel = %s\n' "$m/plain" >"$scratch/m.conf"
chmod 0644 "$scratch/m.conf"
run plan --json -c "$scratch/m.conf" --sysfs-root "$host"
grep -q '"memory_bytes": 131072' <<<"$out" && ok "model = sizes the same files (128 KiB), not the host's" ||
	fail "model = sizes the tree's files" "$(grep memory <<<"$out")" "$err"

hf=$m/hf/models--org--name
mkfile "$hf/blobs/0123abcd" 256
ln -s ../../blobs/0123abcd "$hf/snapshots/rev1/model.safetensors"
prep "$hf"
is "a Hugging Face repository: its blobs, once (256 KiB)" "$(cached_pages)" 64
prep "$hf/snapshots/rev1"
is "a Hugging Face snapshot: its files link to ../../blobs, inside the repository (256 KiB)" "$(cached_pages)" 64
if [ "$(cached_pages)" = 64 ] && ! grep -q warning <<<"$err"; then ok "the snapshot's links are not warned about"; else
	fail "the snapshot's links are not warned about" "$err"; fi
mkdir -p "$scratch/snap/snapshots/rev1"
ln -s ../../../models/hf/models--org--name/blobs/0123abcd "$scratch/snap/snapshots/rev1/x"
prep "$scratch/snap/snapshots/rev1"
grep -q "a link out of the model's tree" <<<"$err" && ok "a snapshots/REV without blobs/ beside it is no repository: its links out are skipped" ||
	fail "snapshots/REV without blobs/" "$err"

# ---- What is no model ----
mkfifo "$scratch/fifo"
for bad in "$scratch/fifo" /dev/zero /proc/self/environ; do
	printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 1G\nmodel = %s\n' "$bad" >"$scratch/bad.conf"
	chmod 0644 "$scratch/bad.conf"
	run plan -c "$scratch/bad.conf" --sysfs-root "$host"
	if [ "$rc" -eq 2 ] && grep -q "$scratch/bad.conf:5: .*model $bad is .*, not a model's file" <<<"$err"; then
		ok "model = $bad: an error at its line, exit 2"
	else fail "model = $bad: an error at its line" "exit $rc" "$err"; fi
	prep "$bad"
	if [ "$rc" -eq 0 ] && grep -q "warning: $bad is .*, not a model's file" <<<"$err" && ! grep -q " cached, [1-9]" <<<"$err"; then
		ok "prepare of $bad: said, nothing prepared"
	else fail "prepare of $bad" "exit $rc" "$err"; fi
done

# ---- Names are escaped in every message ----
mkdir -p "$scratch/evil"
ln -s /nonexistent "$scratch/evil/x
numaplan: error: forged"
prep "$scratch/evil"
# (the name is there, escaped: a prepare that said nothing forges nothing either)
if grep -q 'evil/x\\nnumaplan: error: forged' <<<"$err" && ! grep -q "^numaplan: error: forged" <<<"$err"; then
	ok "a newline in a name forges no line"
else fail "a newline in a name forges no line" "$err"; fi
grep -q 'evil/x\\nnumaplan: error: forged' <<<"$err" && ok "the name is shown escaped" || fail "shown escaped" "$err"
run prepare --nodes "0
numaplan: error: x" -- "$scratch/evil"
if [ "$rc" -eq 2 ] && grep -q '^numaplan prepare: --nodes 0\\nnumaplan: error: x: ' <<<"$err" && ! grep -q "^numaplan: error: x" <<<"$err"; then
	ok "a --nodes value forges no line"
else fail "a --nodes value forges no line" "exit $rc" "$err"; fi

# ---- --nodes ----
for v in abc 99999 1-0 "" 0,x; do
	run prepare --nodes "$v" -- "$m/plain"
	if [ "$rc" -eq 2 ] && grep -q "^numaplan prepare: --nodes $v: " <<<"$err"; then ok "--nodes '$v': exit 2, naming the value"; else
		fail "--nodes '$v': exit 2, naming the value" "exit $rc" "$err"; fi
done
run prepare --nodes 1-0 -- "$m/plain"
grep -q "the range 1-0 goes down" <<<"$err" && ok "--nodes 1-0 says why" || fail "--nodes 1-0 says why" "$err"
run prepare --nodes 4000 -- "$m/plain"
if [ "$rc" -eq 2 ] && grep -q "this host has no node 4000 (its nodes: " <<<"$err"; then ok "--nodes 4000: the host has no such node, exit 2"; else
	fail "--nodes 4000 names the missing node" "exit $rc" "$err"; fi
run prepare --sysfs-root "$host" --nodes 1,5 --dry-run -- "$m/plain"
grep -q "this host has no node 5 (its nodes: 0-1)" <<<"$err" && ok "the host's nodes are read through the root" ||
	fail "the host's nodes through the root" "$err"

# ---- A model truncated while prepared ----
mkfile "$scratch/shrinks.gguf" 1024
NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE=$scratch/shrinks.gguf "${faulty[@]}" \
	"$numaplan" prepare --dry-run --nodes "$node" -- "$scratch/shrinks.gguf" "$m/plain/a.safetensors" >/dev/null 2>"$scratch/err"
rc=$?
err=$(cat "$scratch/err")
is "a model truncated between mincore and the touch of its pages: no SIGBUS, exit 0" "$rc" 0
grep -q "$scratch/shrinks.gguf: changed (shrank) while prepared" <<<"$err" && ok "it says the file changed" || fail "says the file changed" "$err"
grep -q "model page cache: " <<<"$err" && ok "and goes on to the next file" || fail "goes on" "$err"

# ---- More shards than descriptors ----
mkdir -p "$scratch/shards"
for i in $(seq 1 300); do printf 'x%.0s' $(seq 1 64) >"$scratch/shards/$(printf '%04d' "$i").safetensors"; done
(ulimit -n 48 && exec "$numaplan" prepare --dry-run --nodes "$node" -- "$scratch/shards") 2>"$scratch/err"
err=$(cat "$scratch/err")
is "300 shards under 48 descriptors: every page counted" "$(cached_pages)" 300
if [ "$(cached_pages)" = 300 ] && ! grep -q "Too many open files" <<<"$err"; then ok "no shard skipped for want of descriptors"; else
	fail "no shard skipped for want of descriptors" "$err"; fi

# ---- A 2 TiB sparse file: the scan follows the data ----
if truncate -s 2T "$scratch/sparse.gguf" 2>/dev/null; then
	printf 'head' | dd of="$scratch/sparse.gguf" conv=notrunc status=none
	printf 'tail' | dd of="$scratch/sparse.gguf" bs=1 seek=$((2 * 1024 * 1024 * 1024 * 1024 - 4)) conv=notrunc status=none
	rss=$(python3 - "$numaplan" "$node" "$scratch/sparse.gguf" "$(scaled 120)" 2>"$scratch/err" <<'EOF'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "prepare", "--dry-run", "--nodes", sys.argv[2], "--", sys.argv[3]],
                   stderr=subprocess.PIPE, timeout=int(sys.argv[4]), text=True)
sys.stderr.write(r.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
EOF
)
	err=$(cat "$scratch/err")
	is "a 2 TiB sparse file: its two cached pages" "$(cached_pages)" 2
	[ "$(cached_pages)" = 2 ] && [ -n "$rss" ] && [ "$rss" -lt 200 ] && ok "in bounded memory (peak $rss MiB; a page map of the whole file is 512 MiB)" ||
		fail "bounded memory" "peak ${rss:-?} MiB" "$err"
else
	ok "a 2 TiB sparse file # SKIP the temporary file system takes no 2 TiB file"
	ok "bounded memory # SKIP"
fi

# ---- As root, for a unit's user: the files are opened as that user ----
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkfile "$m/secret/only-root" 64
	chmod 0600 "$m/secret/only-root"
	chmod 0644 "$m/secret/key"
	USER=nobody "$numaplan" prepare --dry-run --nodes "$node" -- "$m/secret" >/dev/null 2>"$scratch/err"
	err=$(cat "$scratch/err")
	grep -q "$m/secret/only-root: Permission denied" <<<"$err" && ok "USER=nobody: a file only root reads is not read" ||
		fail "USER=nobody: a file only root reads is not read" "$err"
	is "and what nobody may read is prepared, its cached pages seen (CAP_FOWNER)" "$(cached_pages)" 16
	USER=no-such-user-here "$numaplan" prepare --dry-run --nodes "$node" -- "$m/secret" >/dev/null 2>"$scratch/err"
	grep -q "the unit's user no-such-user-here (\$USER) is unknown here: nothing prepared" "$scratch/err" &&
		ok "a user that cannot be found: nothing prepared as root" || fail "unknown user" "$(cat "$scratch/err")"
	USER=root "$numaplan" prepare --dry-run --nodes "$node" -- "$m/secret" >/dev/null 2>"$scratch/err"
	err=$(cat "$scratch/err")
	is "a root unit reads what root reads" "$(cached_pages)" 32
else
	for d in "a file only root reads" "what nobody may read" "unknown user" "a root unit"; do ok "$d # SKIP not root"; done
fi
done_testing

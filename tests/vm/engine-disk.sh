#!/bin/bash
# Builds, or reuses, the disk that carries the real inference engine (tests/engine/) into the
# end-to-end tier's guest: an ext4 image holding server.mjs with its locked node_modules
# (install.sh), a random-weight model (make-gguf.py, $ENGINE_MODEL_MIB MiB, default 64) and a
# copy of this host's `node`. The guest mounts it read-only. Prints the image's path on stdout
# (its last line); progress goes to stderr.
#
# Usage: tests/vm/engine-disk.sh
#
# The image lies in ${NUMAPLAN_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaplan-engine}/HASH/,
# HASH covering this script, tests/engine's package.json, package-lock.json, .npmrc, server.mjs
# and make-gguf.py, the model size and the node binary's bytes: the same inputs reuse it without
# running npm. A build happens in a temporary directory beside it, under a lock, and is renamed
# into place only when complete; it then removes the images of other inputs.
#
# Needs node (20 or later) and npm on PATH, python3, mkfs.ext4 (e2fsprogs, for -d) and flock;
# npm ci needs the registry unless npm's cache holds the packages.
# Exit status: 0 the image is ready; 3 node or npm is missing or too old (the engine scenarios
# skip, saying so); 1 anything else failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
engine=$(cd "$here/../engine" && pwd)
# 64 MiB: the libraries every process maps (libc, libm, ld.so: some 300 pages whose page cache
# the guest keeps where its boot read them) stay well under 1% of the engine's pages.
mib=${ENGINE_MODEL_MIB:-64}

say() { echo "engine-disk: $*" >&2; }
now() { echo "${EPOCHREALTIME/[.,]/}"; }
secs() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1e6 }'; }
t0=$(now)

for tool in node npm; do
	command -v "$tool" >/dev/null || { say "$tool is not installed"; exit 3; }
done
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then
	say "node-llama-cpp needs Node 20 or later, $(command -v node) is $(node --version 2>&1)"
	exit 3
fi
for tool in python3 mkfs.ext4 flock; do
	command -v "$tool" >/dev/null || { say "$tool is not installed"; exit 1; }
done
node_bin=$(readlink -f "$(command -v node)")

inputs_hash() {
	(
		printf '== model %s MiB\n' "$mib"
		cd "$engine"
		for f in "$here/engine-disk.sh" package.json package-lock.json .npmrc server.mjs make-gguf.py; do
			printf '== %s\n' "${f##*/}"
			cat "$f"
		done
		printf '== node\n'
		cat "$node_bin"
	) | sha256sum | cut -c1-16
}

cache=${NUMAPLAN_ENGINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaplan-engine}
hash=$(inputs_hash)
dest=$cache/$hash
image=$dest/engine.ext4
# boot.sh splits VM_QEMU_ARGS on blanks, and QEMU's -drive takes commas as separators.
case $image in
*[[:space:],]*) say "the cache path $image holds a blank or a comma; set NUMAPLAN_ENGINE_CACHE"; exit 1 ;;
esac

if [ -f "$dest/info" ]; then
	say "reusing $image ($(secs $(($(now) - t0))) s)"
	echo "$image"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dest/info" ]; then # built by another run while this one waited
	say "reusing $image, built while waiting for the lock ($(secs $(($(now) - t0))) s)"
	echo "$image"
	exit 0
fi

tmp=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf --one-file-system -- "$tmp"' EXIT
tree=$tmp/tree
say "building $image"
"$engine/install.sh" "$tree" >"$tmp/install.log" 2>&1 || {
	say "install.sh failed:"
	sed 's/^/engine-disk:   /' "$tmp/install.log" | tail -n 30 >&2
	exit 1
}
grep -E 'npm ci took|installed ' "$tmp/install.log" | sed 's/^/engine-disk: /' >&2 || true
python3 "$engine/make-gguf.py" "$tree/model.gguf" --mib "$mib" 2>"$tmp/gguf.log" || {
	say "make-gguf.py failed: $(cat "$tmp/gguf.log")"
	exit 1
}
cp "$node_bin" "$tree/node"
rm -f "$tree/.engine-lock.sha256"
# Room for the tree plus ext4's own: a quarter more and 32 MiB.
kib=$(du -sk "$tree" | cut -f1)
size_mib=$((kib * 5 / 4 / 1024 + 32))
mkfs.ext4 -q -F -L engine -d "$tree" "$tmp/engine.ext4" "${size_mib}M" >&2
{
	echo "node=$node_bin $(node --version)"
	echo "model_mib=$mib"
	echo "size_mib=$size_mib"
	echo "tree_kib=$kib"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "build_seconds=$(secs $(($(now) - t0)))"
} >"$tmp/info"
rm -rf --one-file-system -- "$tree" "$tmp/install.log" "$tmp/gguf.log"
chmod 0444 "$tmp/engine.ext4" "$tmp/info"
mv -T "$tmp" "$dest"
trap - EXIT
for d in "$cache"/*/; do
	d=${d%/}
	[ "$d" = "$dest" ] || [ ! -f "$d/info" ] || rm -rf --one-file-system -- "$d"
done
say "built $image in $(secs $(($(now) - t0))) s (${size_mib} MiB, tree $((kib / 1024)) MiB)"
echo "$image"

#!/bin/bash
# Install the test engine (server.mjs and its locked node_modules) into DEST, so that
# DEST plus a Node 20 binary runs offline, e.g. inside the test VM.
#
#   install.sh DEST
#
# Idempotent: a DEST already installed from the same lockfile is only refreshed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dest=${1:?usage: install.sh DEST}

for tool in node npm; do
	command -v "$tool" >/dev/null || { echo "install.sh: $tool not found" >&2; exit 1; }
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	echo "install.sh: node-llama-cpp needs Node >= 20, this is $(node --version)" >&2
	exit 1
fi

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
cp "$here/package.json" "$here/package-lock.json" "$here/server.mjs" "$dest/"

stamp="$dest/.engine-lock.sha256"
want=$(cd "$dest" && sha256sum package.json package-lock.json)
if [ -d "$dest/node_modules/node-llama-cpp" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
	echo "install.sh: $dest already installed from this lockfile"
else
	rm -f "$stamp"
	start=$(date +%s%N)
	# --omit=optional drops node-llama-cpp's CUDA/Vulkan/other-platform binaries (the CPU
	# one is a direct dependency); --ignore-scripts skips its postinstall, which would try
	# to download and build llama.cpp if the prebuilt binary failed to load.
	(cd "$dest" && npm ci --omit=optional --ignore-scripts --prefer-offline \
		--no-audit --no-fund --update-notifier=false --loglevel=warn)
	echo "$want" >"$stamp"
	echo "install.sh: npm ci took $(( ($(date +%s%N) - start) / 1000000 )) ms"
fi

# The check the skipped postinstall would have made: the prebuilt CPU binary loads.
node "$dest/server.mjs" --check 2>&1
echo "install.sh: node $(node --version) at $(command -v node)"
# shellcheck disable=SC2016 # JavaScript, not shell, expands these
(cd "$dest" && node -p '
	const deps = Object.entries(require("./package.json").dependencies).map(([n, v]) => `${n}@${v}`);
	const n = Object.keys(require("./node_modules/.package-lock.json").packages).length;
	`install.sh: installed ${deps.join(" ")} (${n} packages)`')
echo "install.sh: $dest/node_modules: $(du -sh "$dest/node_modules" | cut -f1)"

#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the collection as Galaxy does, `ansible-galaxy collection build`, into OUTPUT (the name
# Galaxy gives it, NAMESPACE-NAME-VERSION.tar.gz, in the directory of OUTPUT). OUTPUT.status gets
# "ok", or "skip REASON" with OUTPUT empty when ansible-galaxy is not installed, so that the tiers
# using it (the fleet tier, the guest's fleet scenario) say so and the rest still runs.
# Usage: build-collection.sh OUTPUT COLLECTION_DIR
set -eu
out=$1
src=$2
if ! command -v ansible-galaxy >/dev/null; then
	: >"$out"
	echo "skip ansible-galaxy is not installed (Debian: apt-get install ansible-core)" >"$out.status"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/numaplan-galaxy.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
# Its cache and temporaries in the scratch directory, not in $HOME.
ANSIBLE_HOME=$tmp/home ANSIBLE_LOCAL_TEMP=$tmp/tmp ANSIBLE_NOCOLOR=1 \
	ansible-galaxy collection build "$src" --output-path "$tmp/out" >"$tmp/log" 2>&1 || {
	cat "$tmp/log" >&2
	exit 1
}
built=$(ls "$tmp/out")
if [ "$built" != "${out##*/}" ]; then
	echo "build-collection: ansible-galaxy made $built, not ${out##*/}" >&2
	exit 1
fi
mv "$tmp/out/$built" "$out"
echo ok >"$out.status"

#!/bin/sh
# meson install: the commented sample configuration, into /etc/numaplan/numaplan.conf (where
# numaplan reads it, whatever the prefix), and only when there is none: an admin's file is never
# overwritten. A package build stages into an empty DESTDIR, so the package always carries the
# sample, and its package manager keeps an admin's edits from then on (Debian's: a conffile).
# Usage (from meson): install-sample-config.sh SAMPLE
set -eu
dest="${DESTDIR:-}/etc/numaplan/numaplan.conf"
if [ -e "$dest" ]; then
	echo "numaplan: $dest exists, left as it is"
	exit 0
fi
mkdir -p "$(dirname "$dest")"
install -m 0644 "$1" "$dest"
echo "numaplan: installed the sample configuration $dest"

#!/bin/bash
# Builds numaplan's Debian package as an admin would, `dpkg-buildpackage -us -uc -b`, from a copy
# of the source tree in a temporary directory (dpkg-buildpackage writes its results beside the
# tree it builds, and leaves debian/ full of build state), and copies the .deb to OUTPUT; then,
# given a COMMAND, runs it (the end-to-end tier, whose guest installs OUTPUT).
# OUTPUT.status gets one line: "ok SECONDS", "skip REASON" or "fail REASON"; OUTPUT.log the build's
# output. Neither a missing tool nor a failed build fails this step: OUTPUT is then empty, and the
# tiers that use it (tests/pkg/deb.sh, the guest's package scenario) report the status, so that
# the rest of the end-to-end tier still runs. Its one line goes to stdout as a TAP comment.
# The tests of the tree run in their own tiers, so the package's own (debian/rules: the unit
# suite) run here only with NUMAPLAN_DEB_CHECK=1.
# Usage: build-deb.sh OUTPUT SOURCE_DIR [-- COMMAND...]
set -u
out=$1
src=$2
shift 2
[ "${1:-}" = -- ] && shift
cmd=("$@")
tmp=
status() { # status STATE [REASON]: records it, then runs COMMAND or exits 0
	echo "$*" >"$out.status"
	echo "# build-deb: $*"
	[ -z "$tmp" ] || rm -rf --one-file-system -- "$tmp"
	[ ${#cmd[@]} -eq 0 ] || exec "${cmd[@]}"
	exit 0
}
mkdir -p "$(dirname "$out")"
: >"$out"
: >"$out.log"
# Never from inside the package's own build (its tests run in a copy of this tree).
[ -z "${NUMAPLAN_DEB_BUILDING:-}" ] || status "skip inside a package build"
export NUMAPLAN_DEB_BUILDING=1

for tool in dpkg-buildpackage dh; do
	command -v "$tool" >/dev/null ||
		status "skip $tool is not installed (Debian: apt-get install dpkg-dev debhelper)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/numaplan-deb.XXXXXX")
trap 'rm -rf --one-file-system -- "$tmp"' EXIT
trap 'exit 130' INT TERM
t0=$SECONDS

# The tree as git sees it (tracked and untracked files, not ignored ones), else all of it but
# build directories.
tree=$tmp/numaplan
mkdir "$tree"
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' _ |
		tar --null -T - -cf -) | tar -C "$tree" -xf -
else
	tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$tree" -xf -
fi || status "fail could not copy $src"

opts=nocheck
[ "${NUMAPLAN_DEB_CHECK:-0}" = 1 ] && opts=
if ! (cd "$tree" && DEB_BUILD_OPTIONS="$opts ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$out.log" 2>&1; then
	status "fail dpkg-buildpackage -us -uc -b failed: $(tail -n 3 "$out.log" | tr '\n' ' ')"
fi
debs=("$tmp"/numaplan_*.deb)
[ -f "${debs[0]}" ] || status "fail dpkg-buildpackage made no numaplan_*.deb"
# The name says debian/changelog's version; OUTPUT's, meson.build's.
[ "${debs[0]##*/}" = "${out##*/}" ] ||
	status "fail it made ${debs[0]##*/}, not ${out##*/}: debian/changelog and meson.build disagree on the version"
cp "${debs[0]}" "$out"
status "ok $((SECONDS - t0))"

#!/bin/bash
# The README's quick start stays true: its package list is tests/packages' BUILD_PACKAGES, its
# test command is what .ci/run runs, and the binary it names exists; the Debian package's route
# beside it builds with dpkg-buildpackage, installs with apt and purges; its global options are
# those of numaplan --help, and it names every library numaplan loads with dlopen().
# Usage: readme.sh SOURCE_DIR NUMAPLAN
set -u
src=$1
numaplan=$2
. "$(dirname "$0")/tap.sh"
. "$src/tests/packages"

readme_pkgs=$(grep -m1 '^apt-get update && apt-get install -y' "$src/README.md" |
	sed 's/.*install -y \([^&]*\)&&.*/\1/' | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
want=$(printf '%s\n' "${BUILD_PACKAGES[@]}" | sort | tr '\n' ' ')
is "the README installs BUILD_PACKAGES" "$readme_pkgs" "$want"
grep -q '^tests/run-all$' "$src/README.md" && ok "the README's test command is tests/run-all" ||
	fail "the README's test command is tests/run-all"
grep -q 'exec tests/run-all$' "$src/.ci/run" && ok ".ci/run runs the README's test command" ||
	fail ".ci/run runs the README's test command"
grep -q 'ninja -C build && ./build/src/numaplan show && ./build/src/numaplan plan$' "$src/README.md" && ok "the quick start runs show and plan" ||
	fail "the quick start runs show and plan"
# test command is what .ci/run runs, and the binary it names exists; the Debian package's route
# beside it builds with dpkg-buildpackage, installs with apt and purges; its global options are
# those of numaplan --help, and it names every library numaplan loads with dlopen().
# Usage: readme.sh SOURCE_DIR NUMAPLAN
done_testing

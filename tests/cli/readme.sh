#!/bin/bash
# The README's quick start stays true: its package list is tests/packages' BUILD_PACKAGES, its
# test command is what .ci/run runs, and the binary it names exists; the Debian package's route
# beside it builds with dpkg-buildpackage, installs with apt and purges; its global options are
# those of numaplan --help, and it names every library numaplan loads with dlopen(); the worked
# example plans on its fixture host as it says, and its commands are numaplan's.
# Usage: readme.sh SOURCE_DIR NUMAPLAN
set -u
src=$1
numaplan=$2
. "$(dirname "$0")/tap.sh"
. "$src/tests/packages"

# The quick start's build command: its first line and the lines its backslashes continue, as one.
quick=$(awk '/^apt-get update && apt-get install -y/ { on = 1 } on { if (sub(/\\$/, "")) { line = line $0; next } print line $0; exit }' \
	"$src/README.md")
readme_pkgs=$(sed 's/.*install -y \([^&]*\)&&.*/\1/' <<<"$quick" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
want=$(printf '%s\n' "${BUILD_PACKAGES[@]}" | sort | tr '\n' ' ')
is "the README installs BUILD_PACKAGES" "$readme_pkgs" "$want"
grep -q '^tests/run-all$' "$src/README.md" && ok "the README's test command is tests/run-all" ||
	fail "the README's test command is tests/run-all"
grep -q 'exec tests/run-all$' "$src/.ci/run" && ok ".ci/run runs the README's test command" ||
	fail ".ci/run runs the README's test command"
grep -q 'ninja -C build && ./build/src/numaplan show && ./build/src/numaplan plan$' <<<"$quick" && ok "the quick start runs show and plan" ||
	fail "the quick start runs show and plan"

# The binary it names: BUILD/src/numaplan, where meson puts it, and it runs.
version=$("$numaplan" --version 2>&1)
rc=$?
case $numaplan in
src/numaplan | */src/numaplan) [ -x "$numaplan" ] && [ $rc -eq 0 ] && [[ $version == "numaplan "[0-9]* ]] ;;
*) false ;;
esac && ok "the binary the quick start names is the build's src/numaplan, and it runs" ||
	fail "the binary the quick start names is the build's src/numaplan, and it runs" "$numaplan --version: exit $rc" "$version"

# The package route beside it: build, install, remove.
route=$(sed -n '/^### The Debian package$/,/^- /p' "$src/README.md")
for cmd in 'apt-get update && apt-get build-dep -y ./ && dpkg-buildpackage -us -uc -b' \
	'apt-get install -y ../numaplan_*.deb' 'apt-get purge numaplan'; do
	grep -qF -- "$cmd" <<<"$route" && ok "the README's package route: $cmd" || fail "the README's package route: $cmd"
done

# The global options: each of --help's by one of its names, and none that --help lacks.
help=$("$numaplan" --help 2>&1 | sed -n '/^Global options/,/^$/p')
global=$(sed -n '/^Global options, before or after the command:/,/^$/p' "$src/README.md")
readme_opts=$(grep -oE -- '`--?[a-z][a-z-]*' <<<"$global" | tr -d '`' | sort -u)
missing= unknown= n_help=0
while read -r names; do
	[ -n "$names" ] || continue
	n_help=$((n_help + 1))
	found=
	for o in $names; do grep -qxF -- "$o" <<<"$readme_opts" && found=1; done
	[ -n "$found" ] || missing+=" ${names%% *}"
done < <(grep -E -- '^ +-' <<<"$help" | grep -oE -- '^ +(-[a-z], )?--?[a-z][a-z-]*' | tr -d ',')
for o in $readme_opts; do
	grep -qE -- "^ +(-[a-z], )?$o([ ,]|$)" <<<"$help" || unknown+=" $o"
done
if [ "$n_help" -ge 5 ] && [ -z "$missing" ] && [ -z "$unknown" ]; then
	ok "the README's global options are those of numaplan --help ($n_help)"
else
	fail "the README's global options are those of numaplan --help" "--help's: $n_help options, the README lacks:$missing" \
		"the README's that --help lacks:$unknown"
fi

# The libraries loaded with dlopen(): each in the README's sentence, which names no other.
loaded=$(cat "$src"/src/*/*.c | grep -oE 'dlopen(_many_sym\(&[a-z_]+,|\() *"lib[a-z0-9]+' | sed 's/.*"//' | sort -u)
loads=$(tr '\n' ' ' <"$src/README.md" | grep -oE 'and loads [^.]* with `dlopen\(\)`')
named=$(grep -oE '\blib[a-z0-9]+' <<<"$loads" | sort -u)
if [ "$(wc -w <<<"$loaded")" -ge 4 ] && [ -n "$loads" ]; then
	is "the README names every library numaplan loads with dlopen(), and no other" "$(echo $named)" "$(echo $loaded)"
else
	fail "the README names every library numaplan loads with dlopen()" "in src/: $(echo $loaded)" "the README's sentence: $loads"
fi
# The worked example: its configuration plans on the fixture host it names, as its excerpt of plan
# says, line for line; its unit is the one in examples/; every command of its list is numaplan's,
# with options its --help has.
fixtures=$src/tests/fixtures
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
block() { # block N: the README's Nth fenced block after "## A worked example"
	awk -v n="$1" '/^## A worked example/ { on = 1 } on && /^```/ { k++; next } on && k == 2 * n - 1' "$src/README.md"
}
# Its model, there: model-copies = per-node of a model that is not is an error (a copy of nothing).
mkdir -p "$scratch/models"
head -c 4096 /dev/zero >"$scratch/models/llama-3.1-8b-q4.gguf"
block 2 | sed "s|/srv/models/|$scratch/models/|" >"$scratch/numaplan.conf"
chmod 0644 "$scratch/numaplan.conf"
"$numaplan" plan -c "$scratch/numaplan.conf" --sysfs-root "$fixtures/hosts/dgx-2s-8gpu" >"$scratch/plan" 2>&1
rc=$?
missing=$(block 3 | grep -vxF '...' | grep . | while IFS= read -r line; do grep -qxF -- "$line" "$scratch/plan" || echo "$line"; done)
if [ "$rc" -eq 0 ] && [ -z "$missing" ] && [ "$(block 3 | grep -c .)" -ge 10 ]; then
	ok "the worked example's configuration plans on dgx-2s-8gpu as its excerpt of plan says"
else fail "the worked example's plan" "exit $rc; lines plan did not print:" "$missing"; fi
unit_missing=$(block 1 | grep . | while IFS= read -r line; do grep -qxF -- "$line" "$src/examples/llama-server@.service" || echo "$line"; done)
is "its unit is examples/llama-server@.service's" "$unit_missing" ""
bad=
while read -r verb opts; do
	h=$("$numaplan" "$verb" --help 2>&1) || { bad+=" $verb"; continue; }
	for o in $(grep -oE -- '--?[a-z][a-z-]*' <<<"$opts"); do
		grep -qE -- "(^| |,)$o([ ,=]|$)" <<<"$h" || bad+=" $verb$o"
	done
done < <(sed -n '/^## Commands/,/^Global options/p' "$src/README.md" | sed -n 's/^numaplan \([a-z]*\) *\(.*\)/\1 \2/p' |
	sed 's/  .*//')
is "the README's list of commands: each numaplan's, each option in its --help" "$bad" ""
for cmd in 'numaplan apply --diff' 'numaplan apply --restart' 'numaplan verify' 'numaplan remove'; do
	read -ra w <<<"$cmd"
	"$numaplan" "${w[1]}" --help 2>&1 | grep -qE -- "^Usage: numaplan ${w[1]}" && { [ ${#w[@]} -lt 3 ] ||
		"$numaplan" "${w[1]}" --help 2>&1 | grep -qE -- "(^| )${w[2]}([ ,=]|$)"; } &&
		ok "the worked example's '$cmd' is numaplan's" || fail "the worked example's '$cmd'"
done
done_testing

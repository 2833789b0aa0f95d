#!/bin/bash
# What meson installs is what the README and numaplan(8) say it installs: the binary (in bin/, on
# every user's PATH, and the units and the generator's link run it there), the units, the man
# pages, the profiles, bash completion, and the sample configuration (never over an admin's).
# Usage: install.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if ! meson install -C "$build" --destdir "$scratch/root" --no-rebuild >"$scratch/log" 2>&1; then
	echo "Bail out! meson install failed: $(tail -3 "$scratch/log")"
	exit 1
fi
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
for f in bin/numaplan share/man/man8/numaplan.8 share/man/man5/numaplan.conf.5 \
	share/numaplan/profiles/per-accelerator.conf share/numaplan/schemas/show.schema.json \
	share/bash-completion/completions/numaplan; do
	check "installs PREFIX/$f" test -e "$scratch/root$prefix/$f"
	grep -qF "\`$f\`" "$src/README.md" && ok "the README names $f" || fail "the README names $f"
done
check "PREFIX/bin/numaplan is the program itself, not a link" test -f "$scratch/root$prefix/bin/numaplan" -a ! -L "$scratch/root$prefix/bin/numaplan"
is "and there is no PREFIX/sbin/numaplan (the Debian package's link is the package's)" \
	"$(find "$scratch/root$prefix" -path '*/sbin/numaplan*' | sed "s|^$scratch/root||")" ""
missing=
for f in "$src"/schemas/*.schema.json "$src"/schemas/*.schema.json.in; do
	f=${f%.in}
	[ -e "$scratch/root$prefix/share/numaplan/schemas/${f##*/}" ] || missing+=" ${f##*/}"
done
is "installs every schema of schemas/" "$missing" ""
catalog=$(find "$scratch/root" -name numaplan.catalog | sed "s|^$scratch/root||")
is "installs numaplan.catalog where journalctl reads catalogs, under the prefix" "$catalog" "$prefix/lib/systemd/catalog/numaplan.catalog"
units=$(find "$scratch/root" -name numaplan.service -printf '%h\n' | sed "s|^$scratch/root||")
check "installs numaplan.service, numaplan-verify.service and .timer together ($units)" \
	test -e "$scratch/root$units/numaplan-verify.timer" -a -e "$scratch/root$units/numaplan-verify.service"
is "numaplan.service runs PREFIX/bin/numaplan" "$(grep '^ExecStart=' "$scratch/root$units/numaplan.service")" \
	"ExecStart=$prefix/bin/numaplan apply --boot"
is "numaplan-verify.service runs PREFIX/bin/numaplan, and no other path" \
	"$(grep -o '[^ ]*/numaplan ' "$scratch/root$units/numaplan-verify.service" | sort -u)" "$prefix/bin/numaplan "
generator=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "generator"][0])')
links=$(find "$scratch/root" -name numaplan-generator | sed "s|^$scratch/root||")
if [ "$generator" = True ]; then
	check "-Dgenerator=true: installs the numaplan-generator link ($links)" test -n "$links"
	is "to PREFIX/bin/numaplan" "$(readlink "$scratch/root$links")" "$prefix/bin/numaplan"
else
	is "without -Dgenerator=true, no numaplan-generator: an install leaves the boot path alone" "$links" ""
fi
check "installs the sample configuration as /etc/numaplan/numaplan.conf" test -f "$scratch/root/etc/numaplan/numaplan.conf"
grep -qF "/etc/numaplan/numaplan.conf" "$src/README.md" && ok "the README names it" || fail "the README names the sample"
echo "[numaplan]" >"$scratch/root/etc/numaplan/numaplan.conf"
meson install -C "$build" --destdir "$scratch/root" --no-rebuild >/dev/null 2>&1
is "a second install leaves an admin's configuration as it was" "$(cat "$scratch/root/etc/numaplan/numaplan.conf")" "[numaplan]"
check "the sample configuration parses: the built-in default" "$scratch/root$prefix/bin/numaplan" plan -c "$src/profiles/numaplan.conf.sample" --sysfs-root "$src/tests/fixtures/hosts/dgx-2s-8gpu"
version=$(sed -n "s/^ *version *: *'\\([^']*\\)'.*/\\1/p" "$src/meson.build" | head -1)
for page in numaplan.8 numaplan.conf.5; do
	th=$(head -1 "$src/man/$page")
	case $th in *"numaplan $version"*) ok "man/$page says version $version (man -l shows no placeholder)" ;; *) fail "man/$page version" "$th" ;; esac
done
done_testing

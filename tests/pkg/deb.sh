#!/bin/bash
# numaplan's Debian package, built by tests/pkg/build-deb.sh: lintian has no error or warning (an
# override must say why, in a comment above it), it holds what the README says (binary, units,
# man pages, profiles, completion), the binary is /usr/bin/numaplan, which the units run, with
# /usr/sbin/numaplan a link to it (what older versions wrote names that path), the sample
# configuration is a conffile, no generator is installed, and every library numaplan loads with
# dlopen() is a Depends or a Recommends.
# Usage: deb.sh DEB SOURCE_DIR   (DEB: where the package goes)
set -u
deb=$1
src=$2
. "$src/tests/cli/tap.sh"

"$src/tests/pkg/build-deb.sh" "$deb" "$src"
read -r state why <"$deb.status" 2>/dev/null || { state=fail why="no $deb.status: build-deb.sh did not run"; }
case $state in
ok) ok "dpkg-buildpackage -us -uc -b built ${deb##*/} in $why s" ;;
skip) skip_all "$why" ;;
*) fail "dpkg-buildpackage -us -uc -b" "$why" "$(tail -n 30 "$deb.log" 2>/dev/null)"; done_testing; exit ;;
esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if command -v lintian >/dev/null; then
	# lintian only warns that it runs as root, which CI does.
	lintian --display-info --pedantic "$deb" >"$scratch/lintian" 2>"$scratch/lintian.err"
	rc=$?
	bad=$(grep -E '^(E|W): ' "$scratch/lintian")
	if [ $rc -eq 0 ] && [ -z "$bad" ]; then
		ok "lintian --pedantic: no error, no warning ($(grep -c '^[IPX]: ' "$scratch/lintian") info or pedantic tags)"
	else
		fail "lintian --pedantic: no error, no warning" "exit $rc" "$bad" "$(cat "$scratch/lintian.err")"
	fi
else
	echo "ok $((tap_n += 1)) - lintian # SKIP lintian is not installed (Debian: apt-get install lintian)"
fi
unexplained=
for f in "$src"/debian/*lintian-overrides; do
	[ -f "$f" ] || continue
	unexplained+=$(awk -v f="${f#"$src"/}" '!/^#/ && NF && prev !~ /^#/ { print f ":" NR ": " $0 } { prev = $0 }' "$f")
done
is "every lintian override has its reason in a comment above it" "$unexplained" ""

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$scratch/files"
dpkg-deb -x "$deb" "$scratch/root"
has() { grep -qxF "$1" "$scratch/files"; }
want=(/usr/bin/numaplan /usr/sbin/numaplan /usr/share/man/man8/numaplan.8.gz /usr/share/man/man5/numaplan.conf.5.gz /usr/share/man/man8/numaplan-generator.8.gz
	/usr/share/bash-completion/completions/numaplan /lib/systemd/system/numaplan.service
	/lib/systemd/system/numaplan-verify.service /lib/systemd/system/numaplan-verify.timer
	/usr/share/doc/numaplan/README.Debian /usr/share/doc/numaplan/examples/numaplan.rules.yml)
for p in "$src"/examples/*; do want+=("/usr/share/doc/numaplan/examples/${p##*/}"); done
for p in "$src"/profiles/*.conf; do want+=("/usr/share/numaplan/profiles/${p##*/}"); done
missing=
for f in "${want[@]}"; do has "$f" || missing+="$f "; done
is "it holds the binary, the units, the man pages, the profiles, the completion, README.Debian and the examples (${#want[@]} files)" "$missing" ""
bin=$scratch/root/usr/bin/numaplan
check "/usr/bin/numaplan is the program, executable by all, not a link" test -f "$bin" -a ! -L "$bin" -a -x "$bin"
is "its mode is 0755, root's" "$(dpkg-deb -c "$deb" | awk '$6 == "./usr/bin/numaplan" { print $1, $2 }')" "-rwxr-xr-x root/root"
is "/usr/sbin/numaplan is a relative link to it" "$(readlink "$scratch/root/usr/sbin/numaplan")" ../bin/numaplan
is "numaplan.service runs /usr/bin/numaplan" "$(grep '^ExecStart=' "$scratch/root/lib/systemd/system/numaplan.service")" \
	"ExecStart=/usr/bin/numaplan apply --boot"
is "numaplan-verify.service runs /usr/bin/numaplan, and no other path" \
	"$(grep -o '[^ ]*/numaplan ' "$scratch/root/lib/systemd/system/numaplan-verify.service" | sort -u)" "/usr/bin/numaplan "
grep -q /usr/bin/numaplan "$scratch/root/usr/share/doc/numaplan/README.Debian" &&
	grep -q /usr/sbin/numaplan "$scratch/root/usr/share/doc/numaplan/README.Debian" &&
	ok "README.Debian says where numaplan is, and why /usr/sbin/numaplan stays" ||
	fail "README.Debian says where numaplan is, and why /usr/sbin/numaplan stays"
is "no numaplan-generator: installing changes no boot" "$(grep system-generators "$scratch/files")" ""

dpkg-deb --ctrl-tarfile "$deb" | tar -C "$scratch" -xf - ./conffiles ./control
is "the sample configuration is its one conffile" "$(cat "$scratch/conffiles")" /etc/numaplan/numaplan.conf
check "it is profiles/numaplan.conf.sample" cmp "$scratch/root/etc/numaplan/numaplan.conf" "$src/profiles/numaplan.conf.sample"

# The packages numaplan's dlopen() calls name in their "install PACKAGE" message.
field() { sed -n "s/^$1: //p" "$scratch/control" | tr ',' '\n' | sed 's/^ *//; s/ .*//'; }
declared=$( (field Depends; field Recommends) | sort -u)
dl=$(grep -ho 'dlopen_many_sym(&dl, "[^"]*", "[^"]*"' "$src"/src/*/*-dl.c | awk -F'"' '{ print $4 }' | sort -u)
undeclared=$(comm -23 <(echo "$dl") <(echo "$declared"))
if [ -n "$dl" ] && [ -z "$undeclared" ]; then
	ok "every dlopen()ed library's package is a Depends or a Recommends: $(echo $dl)"
else
	fail "every dlopen()ed library's package is a Depends or a Recommends" "undeclared: $undeclared" "found: $dl"
fi
done_testing

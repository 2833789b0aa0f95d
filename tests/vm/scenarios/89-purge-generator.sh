#!/bin/bash
# The Debian package's removal where numaplan cannot do it, and its purge after generator mode:
#  - /usr/bin/numaplan deleted by hand, then apt-get remove: prerm says the binary is missing,
#    deletes apply's drop-in itself and reloads, so the replica is systemd's again rather than
#    asserting a marker nothing writes at the next boot;
#  - reinstalled, the generator turned on with the link of 0.1.0's README (to /usr/sbin/numaplan,
#    which the package keeps as a link to /usr/bin/numaplan), `numaplan apply` in generator
#    mode (which records the plan's units in /etc/systemd/system/.numaplan-units), then apt-get
#    purge: nothing of numaplan's stays under /etc, /usr and /var, and the replica unit has no
#    drop-in of numaplan's. An admin's own drop-in beside numaplan's stays through all of it.
# Extras: numaplan_*.deb (empty when the host could not build it). As in 89-package, the other
# scenarios' binary stays at /usr/local/bin/numaplan; their configuration is set aside and put back.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=$LLAMA
deb=$(ls "$EXTRA"/numaplan_*.deb 2>/dev/null | head -n 1)
if [ ! -s "$deb" ]; then
	vm_skip "the Debian package" "no .deb among the extras: the host's pkg tier says why"
	vm_done
fi
export DEBIAN_FRONTEND=noninteractive
ours() { find /etc /usr /var -xdev -name '*numaplan*' 2>/dev/null | sort; }
numaplan_dropins() { systemctl show -P DropInPaths "$unit" | tr ' ' '\n' | grep numaplan; }
admin=$UNITS/$unit.d/10-admin.conf
gen=/etc/systemd/system-generators/numaplan-generator
saved=$PWD/saved
mkdir "$saved"
[ -e /etc/numaplan ] && mv /etc/numaplan "$saved/"
cleanup() {
	# After a failure: the package and what it left out of the way of the later scenarios.
	if [ -n "$(dpkg-query -W -f '${Status}' numaplan 2>/dev/null)" ]; then
		apt-get purge -y -q numaplan >/dev/null 2>&1
	fi
	rm -rf /etc/numaplan "$gen" "${UNITS:?}/$unit.d"
	[ "$had_gendir" = yes ] || rmdir /etc/systemd/system-generators 2>/dev/null
	[ -e "$saved/numaplan" ] && mv "$saved/numaplan" /etc/
	systemctl daemon-reload
}
trap cleanup EXIT
had_gendir=no
[ -d /etc/systemd/system-generators ] && had_gendir=yes
before=$(ours)
make_model
[ -f "$UNITS/$unit" ] || make_replica_unit "$unit" 8080 "$MODEL"
rm -rf "${UNITS:?}/$unit.d"
mkdir "$UNITS/$unit.d"
printf '# the admin'"'"'s\n[Service]\nEnvironment=ADMIN=1\n' >"$admin"

# The binary deleted by hand, then the package removed.
vm_check "apt-get install ./${deb##*/}" apt-get install -y -q "$deb"
llama_conf
vm_check "/usr/bin/numaplan apply" /usr/bin/numaplan apply
vm_check_eq "the replica is placed: NUMAMask" "$(systemctl show -P NUMAMask "$unit")" 1
rm /usr/bin/numaplan
out=$(apt-get remove -y -q numaplan 2>&1)
vm_check_eq "binary deleted: apt-get remove numaplan exits 0" "$?" 0
vm_check_match "and says the binary is missing" "$out" "numaplan: /usr/bin/numaplan is missing: numaplan's drop-ins are removed without it"
vm_check "the drop-in is gone all the same" test ! -e "$UNITS/$unit.d/50-numaplan.conf"
vm_check_eq "and systemd reloaded: no drop-in of numaplan's, no NUMAMask" \
	"$(numaplan_dropins)/$(systemctl show -P NUMAMask "$unit")" /
vm_check_eq "the admin's drop-in stays" "$(head -n 1 "$admin")" "# the admin's"

# Reinstalled, generator mode, purge.
vm_check "apt-get install ./${deb##*/} again" apt-get install -y -q "$deb"
mkdir -p /etc/systemd/system-generators
ln -s /usr/sbin/numaplan "$gen"
vm_check "/usr/bin/numaplan apply, in generator mode" /usr/bin/numaplan apply
vm_check "the generator wrote the drop-in" test -f "/run/systemd/generator/$unit.d/50-numaplan.conf"
vm_check_match "which names /usr/bin/numaplan, the link's target" \
	"$(grep -h '^ExecStartPre=' "/run/systemd/generator/$unit.d/50-numaplan.conf")" '"/usr/bin/numaplan" prepare '
vm_check "apply recorded the plan's units in $UNITS/.numaplan-units" test -f "$UNITS/.numaplan-units"
vm_check_eq "the replica is placed: NUMAMask" "$(systemctl show -P NUMAMask "$unit")" 1
t0=$SECONDS
vm_check "apt-get purge numaplan" apt-get purge -y -q numaplan
vm_diag "apt-get purge: $((SECONDS - t0)) s"
vm_check_eq "dpkg: gone" "$(dpkg-query -W -f '${Status}' numaplan 2>/dev/null)" ""
left=$(comm -13 <(echo "$before") <(ours))
vm_check_eq "nothing of numaplan's left under /etc, /usr, /var (.numaplan-units, the generator link included)" "$left" ""
vm_check_eq "the replica unit has no drop-in of numaplan's, no NUMAMask" \
	"$(numaplan_dropins)/$(systemctl show -P NUMAMask "$unit")" /
vm_check_eq "the admin's drop-in stays" "$(head -n 1 "$admin")" "# the admin's"
vm_done

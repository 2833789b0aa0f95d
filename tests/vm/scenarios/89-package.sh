#!/bin/bash
# numaplan as Debian's package, the way an admin meets it: apt installs the .deb with no network
# (its Depends are in the image) and enables, starts and generates nothing; the installed
# /usr/bin/numaplan (any user runs show; /usr/sbin/numaplan is a link to it) applies, the stand-in
# replica starts pinned and verify passes; a drop-in that names /usr/sbin/numaplan, as 0.1.0 wrote
# it, starts the replica through the link, status calls it stale, and apply writes it anew; a
# reinstall keeps the admin's configuration (a conffile) and the drop-in; then the admin turns on
# the unit, the timer and the generator, and apt purge takes all of it out, placement included,
# leaving nothing of numaplan's under /etc, /usr and /var that was not there before.
# Extras: numaplan_*.deb (empty when the host could not build it). The other scenarios' binary
# stays at /usr/local/bin/numaplan; their configuration is set aside and put back.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=$LLAMA
deb=$(ls "$EXTRA"/numaplan_*.deb 2>/dev/null | head -n 1)
if [ ! -s "$deb" ]; then
	vm_skip "the Debian package" "no .deb among the extras: the host's pkg tier says why"
	vm_done
fi
export DEBIAN_FRONTEND=noninteractive
# numaplan's files, by name: what must be the same after the purge as before the install.
ours() { find /etc /usr /var -xdev -name '*numaplan*' 2>/dev/null | sort; }
saved=$PWD/saved
mkdir "$saved"
[ -e /etc/numaplan ] && mv /etc/numaplan "$saved/"
cleanup() {
	systemctl stop "$unit" 2>/dev/null
	# After a failure: the package and what it left out of the way of the later scenarios.
	if dpkg -s numaplan >/dev/null 2>&1; then
		systemctl disable -q numaplan.service numaplan-verify.timer 2>/dev/null
		apt-get purge -y -q numaplan >/dev/null 2>&1
	fi
	rm -rf /etc/numaplan /etc/systemd/system-generators/numaplan-generator
	[ "$had_gendir" = yes ] || rmdir /etc/systemd/system-generators 2>/dev/null
	[ -e "$saved/numaplan" ] && mv "$saved/numaplan" /etc/
}
trap cleanup EXIT
had_gendir=no
[ -d /etc/systemd/system-generators ] && had_gendir=yes
before=$(ours)
make_model
[ -f "$UNITS/$unit" ] || make_replica_unit "$unit" 8080 "$MODEL"
rm -rf "${UNITS:?}/$unit.d"

t0=$SECONDS
vm_check "apt-get install ./${deb##*/}, with no network" apt-get install -y -q "$deb"
vm_diag "apt-get install: $((SECONDS - t0)) s"
vm_check_eq "dpkg: installed" "$(dpkg-query -W -f '${Status}' numaplan)" "install ok installed"
vm_check_match "/usr/bin/numaplan runs: its libraries are there" "$(/usr/bin/numaplan --version 2>&1)" "^numaplan "
vm_check_eq "/usr/sbin/numaplan is a link to it" "$(readlink -f /usr/sbin/numaplan)" /usr/bin/numaplan
vm_check "a user who is not root runs /usr/bin/numaplan show" runuser -u nobody -- /usr/bin/numaplan show --no-pager
vm_check_eq "the sample configuration is a conffile" \
	"$(dpkg-query -W -f '${Conffiles}' numaplan | awk 'NF { print $1 }')" /etc/numaplan/numaplan.conf
vm_check_eq "installing enabled nothing" \
	"$(systemctl is-enabled numaplan.service numaplan-verify.timer | tr '\n' ' ')" "disabled disabled "
vm_check_eq "and started nothing" "$(systemctl is-active numaplan.service numaplan-verify.timer | tr '\n' ' ')" \
	"inactive inactive "
vm_check_eq "and installed no generator: the boot path is as it was" \
	"$(ls /lib/systemd/system-generators /usr/lib/systemd/system-generators /etc/systemd/system-generators 2>/dev/null | grep -c numaplan)" 0

# The admin edits the conffile, applies, starts the replica, verifies.
llama_conf
vm_check "/usr/bin/numaplan apply" /usr/bin/numaplan apply
dropin=$UNITS/$unit.d/50-numaplan.conf
vm_check_match "its drop-in runs the installed binary's prepare" "$(grep '^ExecStartPre=' "$dropin")" \
	'^ExecStartPre=-\+"/usr/bin/numaplan" prepare '
vm_check "the replica starts" systemctl start "$unit"
wait_ready 8080 120 || vm_not_ok "the replica answers /health"
out=$(/usr/bin/numaplan verify "$unit" 2>&1)
vm_check_eq "/usr/bin/numaplan verify passes, warm-up (libcurl) included" "$?" 0
vm_check_match "pinned as planned" "$out" "$unit: pinned as planned"

# The drop-in as 0.1.0 wrote it, naming /usr/sbin/numaplan: the replica starts with it, placed,
# its prepare run through the link, until apply writes it anew.
systemctl stop "$unit"
sed -i 's|"/usr/bin/numaplan"|"/usr/sbin/numaplan"|g' "$dropin"
systemctl daemon-reload
vm_check "a drop-in naming /usr/sbin/numaplan: the replica starts" systemctl start "$unit"
wait_ready 8080 120 || vm_not_ok "the replica answers /health"
vm_check_match "its prepare ran through the link, and succeeded" \
	"$(systemctl show -P ExecStartPre "$unit" | tr '}' '\n' | grep 'path=/usr/sbin/numaplan ')" "code=exited ; status=0( |/|$)"
vm_check_eq "and it is placed: NUMAMask" "$(systemctl show -P NUMAMask "$unit")" 1
vm_check_match "status calls the drop-in stale" "$(/usr/bin/numaplan status "$unit" 2>&1)" "stale"
/usr/bin/numaplan apply --check >/dev/null 2>&1
vm_check_eq "apply --check: a change pending (exit 1)" "$?" 1
vm_check "/usr/bin/numaplan apply writes it anew" /usr/bin/numaplan apply
vm_check_match "naming /usr/bin/numaplan" "$(grep '^ExecStartPre=' "$dropin")" '^ExecStartPre=-\+"/usr/bin/numaplan" prepare '
vm_check "the replica restarts with it" systemctl restart "$unit"
wait_ready 8080 120 || vm_not_ok "the replica answers /health"

# A reinstall runs dpkg's upgrade path: the admin's configuration and the drop-in stay.
conf=$(cat "$CONF")
vm_check "a reinstall (dpkg -i: dpkg's upgrade path)" dpkg -i "$deb"
vm_check_eq "keeps the admin's configuration" "$(cat "$CONF")" "$conf"
vm_check "and the drop-in" test -f "$dropin"
vm_check_eq "and the replica's placement" "$(systemctl show -P NUMAMask "$unit")" 1

# The admin turns everything on: the unit, the timer, metrics for node_exporter, and the generator
# (as the README says: it runs from the next daemon-reload, here the purge's), then purges. The
# purge takes apply's drop-in out and reloads: the replica runs on, no longer pinned.
systemctl enable -q numaplan.service numaplan-verify.timer
mkdir -p /var/lib/prometheus/node-exporter
systemctl start numaplan-verify.service
vm_check "numaplan-verify.service wrote its metrics" test -f /var/lib/prometheus/node-exporter/numaplan.prom
mkdir -p /etc/systemd/system-generators
ln -s /usr/bin/numaplan /etc/systemd/system-generators/numaplan-generator
pid=$(systemctl show -P MainPID "$unit")
t0=$SECONDS
vm_check "apt-get purge numaplan" apt-get purge -y -q numaplan
vm_diag "apt-get purge: $((SECONDS - t0)) s"
rmdir /var/lib/prometheus/node-exporter /var/lib/prometheus 2>/dev/null
vm_check_eq "dpkg: gone" "$(dpkg-query -W -f '${Status}' numaplan 2>/dev/null)" ""
left=$(comm -13 <(echo "$before") <(ours))
vm_check_eq "nothing of numaplan's left under /etc, /usr, /var (drop-ins, conffile, links, metrics)" "$left" ""
vm_check_eq "systemd forgot the placement: NUMAMask" "$(systemctl show -P NUMAMask "$unit")" ""
vm_check_eq "and numaplan.service" "$(systemctl show -P LoadState numaplan.service)" not-found
vm_check_eq "the replica was not restarted" "$(systemctl show -P MainPID "$unit")" "$pid"
vm_check_eq "but its cgroup has every node at once, systemd's default" \
	"$(awk '/^Mems_allowed_list/ { print $2 }' "/proc/$pid/status")" 0-1
vm_done

#!/bin/bash
# model-copies = per-node under systemd, for servers of different users on one node: the unit
# first runs as User=nobody, whose prepare mounts node 1's tmpfs for nobody and copies the model,
# and the server reads the copy; then the same unit without User= (a root server): prepare
# refuses nobody's tmpfs, by name, and the server reads the original (the environment file
# prepare wrote in ExecStartPre=, which systemd reads before ExecStart=); then DynamicUser=yes,
# refused the same way; after numaplan remove, the root server gets its own tmpfs and reads the
# copy.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

dir=/srv/models/copied
unit=copy-user.service
copies=/run/numaplan/models/node1
mkdir -p "$dir/sub"
dd if=/dev/zero of="$dir/weights.gguf" bs=1M count=4 status=none
echo '{}' >"$dir/sub/config.json"
chmod -R a+rX /srv/models
printf '#!/bin/sh\necho "server sees NUMAPLAN_MODEL=$NUMAPLAN_MODEL"\n' >/usr/local/bin/np-show-model
chmod 0755 /usr/local/bin/np-show-model
write_conf "[replica copy]
unit = $unit
accelerators = 41:00.0
memory = 64M
model = $dir
model-copies = per-node"

start_as() { # start_as LABEL [USER-LINE]: the unit run as that user; sets log (its journal since the start)
	printf '[Service]\nType=oneshot\n%s\nExecStart=/usr/local/bin/np-show-model\n' "${2:-}" >"$UNITS/$unit"
	systemctl daemon-reload
	journal_mark
	vm_check "$1: the unit starts" systemctl start "$unit"
	log=$(unit_said "$unit" "server sees")
}

vm_check "apply" "$NUMAPLAN" apply
vm_check_match "the drop-in reads the environment file prepare writes" "$(cat "$UNITS/$unit.d/50-numaplan.conf")" \
	"EnvironmentFile=-/run/numaplan/models/.env/%n"

start_as User=nobody User=nobody
vm_check_eq "User=nobody: the tmpfs is nobody's" "$(stat -c %U "$copies")" nobody
vm_check_match "User=nobody: the server reads the copy" "$log" "server sees NUMAPLAN_MODEL=$copies$dir"
vm_check_match "and prepare says so" "$log" "the server reads $copies$dir"

start_as "root (no User=)"
vm_check_match "root: prepare refuses nobody's tmpfs, by name" "$log" \
	"the tmpfs on $copies belongs to uid [0-9]+, and this unit's server runs as uid 0: refused"
vm_check_match "root: the server reads the original, not nobody's copy" "$log" "server sees NUMAPLAN_MODEL=$dir"
vm_check_eq "nobody's tmpfs is still one mount" "$(findmnt -rn -M "$copies" | wc -l)" 1

start_as DynamicUser=yes DynamicUser=yes
vm_check_match "DynamicUser=yes: refused too (another uid)" "$log" "the tmpfs on $copies belongs to uid [0-9]+"
vm_check_match "DynamicUser=yes: the server reads the original" "$log" "server sees NUMAPLAN_MODEL=$dir"

vm_check "numaplan remove" "$NUMAPLAN" remove
vm_check_eq "takes the tmpfs away" "$(findmnt -rn -M "$copies" | wc -l)" 0
vm_check "apply again" "$NUMAPLAN" apply
start_as "root again"
vm_check_eq "root: its own tmpfs" "$(stat -c %U "$copies")" root
vm_check_match "root: the server reads the copy" "$log" "server sees NUMAPLAN_MODEL=$copies$dir"

# apply --restart: a running replica whose drop-in changed is restarted, and waited for.
printf '#!/bin/sh\necho "server sees NUMAPLAN_MODEL=$NUMAPLAN_MODEL"\nexec sleep 300\n' >/usr/local/bin/np-show-model
printf '[Service]\nExecStart=/usr/local/bin/np-show-model\n' >"$UNITS/$unit"
systemctl daemon-reload
vm_check "a running replica" systemctl start "$unit"
sed -i 's/^memory = 64M$/memory = 96M/' "$CONF"
journal_mark
out=$("$NUMAPLAN" apply --restart 2>&1)
vm_check_eq "apply --restart, its drop-in changed: exit 0" "$?" 0
vm_check_match "and says it restarted it" "$out" "restarted $unit"
log=$(unit_said "$unit" "server sees")
vm_check_match "which started again, reading the copy" "$log" "server sees NUMAPLAN_MODEL=$copies$dir"
systemctl stop "$unit"

"$NUMAPLAN" remove >/dev/null 2>&1
rm -rf "$dir" "$UNITS/$unit" "$UNITS/$unit.d" /usr/local/bin/np-show-model
systemctl daemon-reload
llama_conf
vm_done

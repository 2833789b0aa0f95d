#!/bin/bash
# apply, start, verify: a replica on the node of its device passes every check with at least
# 99% of its pages on node 1; beside it, the same replica unpinned, as a baseline.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=$LLAMA
make_model
make_replica_unit "$unit" 8080 "$MODEL"
llama_conf

flat=$("$NUMAPLAN" plan --json | json_flat)
vm_check_eq "plan: llama on node 1" "$(json_get replicas.0.nodes.0 <<<"$flat")" 1
out=$("$NUMAPLAN" apply --json)
vm_check_eq "apply exits 0" "$?" 0
vm_check_eq "apply created the drop-in" "$(json_flat <<<"$out" | json_get units.0.action)" created
path=$(json_get replicas.0.dropin_path <<<"$flat")
if [ "$(cat "$path")" = "$(printf '%b' "$(json_get replicas.0.dropin <<<"$flat")")" ]; then
	vm_ok "the drop-in on disk is plan --json's text"
else
	vm_not_ok "the drop-in on disk is plan --json's text" "$(cat "$path")"
fi
vm_check_eq "systemd reloaded: NUMAPolicy is bind" "$(systemctl show -P NUMAPolicy $unit)" bind
vm_check "the unit starts" systemctl start $unit
wait_ready 8080 120 && vm_ok "the replica answers /health" || vm_not_ok "the replica answers /health"

verify_json $unit
flat=$FLAT
vm_check_eq "verify exits 0" "$VERIFY_RC" 0
vm_check_eq "verify: ok" "$(json_get ok <<<"$flat")" true
# Every check verify has (its table's, as the document lists them), none named here.
for ((i = 0; ; i++)); do
	check=$(json_get "units.0.checks.$i.name" <<<"$flat") || break
	vm_check_eq "verify: $check passes" "$(json_get "units.0.checks.$i.ok" <<<"$flat")" true
done
pinned=$(locality "$flat" 0)
total=$(json_get units.0.pages.total <<<"$flat")
if at_least "$pinned" 99; then vm_ok "at least 99% of the pinned replica's pages on node 1 ($pinned%)"; else
	vm_not_ok "at least 99% of the pinned replica's pages on node 1 ($pinned%)"; show_failures "$flat"; fi
vm_check_eq "verify --tap exits 0" "$("$NUMAPLAN" verify --tap --no-warmup $unit >/dev/null 2>&1; echo $?)" 0
"$NUMAPLAN" verify $unit >/tmp/verify.txt 2>&1
vm_check_match "the table says it plainly" "$(head -1 /tmp/verify.txt)" "^$unit: pinned as planned"

# Baselines: the same server with no drop-in, its model page cache dropped: once where the
# scheduler puts it, once running on node 0's CPUs (as it may, unpinned, on a busy host).
baseline_run() { # baseline_run [CPUAffinity]: sets BASE (share on node 1) and BASE_PAGES
	systemctl stop baseline.service 2>/dev/null
	rm -rf "$UNITS/baseline.service.d"
	if [ -n "${1:-}" ]; then
		mkdir -p "$UNITS/baseline.service.d"
		printf '[Service]\nCPUAffinity=%s\n' "$1" >"$UNITS/baseline.service.d/10-cpus.conf"
	fi
	systemctl daemon-reload
	drop_caches
	systemctl start baseline.service
	wait_ready 8090 120
	verify_json --no-warmup baseline.service
	BASE=$(share_on "$FLAT" 0 1)
	BASE_PAGES=$(json_get units.0.pages.total <<<"$FLAT")
}
systemctl stop $unit
make_replica_unit baseline.service 8090 "$MODEL"
write_conf "[replica baseline]
unit = baseline.service
accelerators = 41:00.0
memory = 256M"
baseline_run
free_base=$BASE
# Judged on where its pages are, not on the missing drop-in: run on node 0's CPUs, first touch
# puts its memory there, and verify's page count must see it.
baseline_run 0-1
vm_check_eq "the baseline on node 0's CPUs fails memory-locality" "$(check_of "$FLAT" 0 memory-locality ok)" false
if awk -v x="$BASE" 'BEGIN { exit !(x < 50) }'; then vm_ok "and under half its pages are on node 1 ($BASE%)"; else
	vm_not_ok "and under half its pages are on node 1 ($BASE%)"; fi
vm_diag "pages on node 1: pinned $pinned% of $total pages; unpinned baseline $free_base% of $BASE_PAGES pages where the scheduler ran it, $BASE% when it ran on node 0's CPUs"
rm -rf "$UNITS/baseline.service.d"
systemctl stop baseline.service
rm -f "$UNITS/baseline.service"
systemctl daemon-reload
llama_conf
vm_done

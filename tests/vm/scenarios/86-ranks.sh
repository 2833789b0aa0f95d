#!/bin/bash
# One replica over both nodes' devices, a worker (rank) per device as tensor-parallel engines run:
# bound over nodes 0-1, not interleaved; its drop-in gives each rank its device's node and CPUs
# (NUMAPLAN_RANK_NODES, NUMAPLAN_RANK_CPUS) and spreads the model's page cache over both nodes.
# Workers that follow NUMAPLAN_RANK_CPUS pass rank-locality; one whose second worker binds itself
# to the first worker's node fails it, naming that worker and its device.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

UNIT=tp.service
BOCHS=0000:21:00.0 # node 0
# make_tp_unit [STANDIN-OPTION...]: the stand-in with a rank per device, each mapping its BAR.
make_tp_unit() {
	cat >"$UNITS/$UNIT" <<UNIT
[Unit]
Description=numaplan stand-in replica over both nodes' devices

[Service]
ExecStart=$STANDIN --listen 127.0.0.1:8092 --model $MODEL --kv-mib 4 --rank-devices $BOCHS,$GPU --worker-mib 16 $*
UNIT
	systemctl daemon-reload
}

make_model
make_tp_unit
write_conf "[replica tp]
unit = $UNIT
accelerators = 21:00.0 41:00.0
memory = 128M
model = $MODEL
min-local = 90%"
"$NUMAPLAN" apply >/dev/null 2>&1 || vm_not_ok "apply"
dropin=$(cat "$UNITS/$UNIT.d/50-numaplan.conf")
vm_check_match "bound over both nodes, not interleaved" "$dropin" $'NUMAPolicy=bind\nNUMAMask=0-1'
vm_check_match "each rank's node and CPUs, in PCI order" "$dropin" \
	'Environment=NUMAPLAN_RANK_NODES=0,1 NUMAPLAN_RANK_CPUS=0-1;2-3'
vm_check_match "prepare spreads the model over both nodes" "$dropin" "prepare --nodes 0-1 --spread"

journal_mark
systemctl restart $UNIT
wait_ready 8092 60 || vm_not_ok "the replica serves"
said=$(unit_said $UNIT "model page cache:" | grep "model page cache:" | tail -1)
vm_check_match "prepare read the model in, spread" "$said" "pages read in"
vm_diag "prepare: ${said#*: }"
pid=$(systemctl show -P MainPID $UNIT)
file0=$(numa_share 0 "$MODEL" "$pid")
if at_least "$file0" 42.5 && at_least 57.5 "$file0"; then vm_ok "the model's cached pages are spread: $file0% on node 0"; else
	vm_not_ok "the model's cached pages are spread" "$file0% on node 0"; fi

verify_json $UNIT --no-warmup
flat=$FLAT
vm_check_eq "rank-locality passes for workers on their ranks' CPUs" "$(check_of "$flat" 0 rank-locality ok)" true ||
	show_failures "$flat"
vm_check_eq "verify passes" "$VERIFY_RC" 0 || show_failures "$flat"
vm_check_eq "verify found both ranks" "$(json_count units.0.ranks <<<"$flat")" 2
for k in 0 1; do
	on=$(json_get "units.0.ranks.$k.pages.on_node" <<<"$flat")
	total=$(json_get "units.0.ranks.$k.pages.total" <<<"$flat")
	vm_diag "rank $k: $(json_get "units.0.ranks.$k.accelerator" <<<"$flat") on node $(json_get "units.0.ranks.$k.node" <<<"$flat"): $on of $total anonymous pages there"
done
vm_diag "$(check_of "$flat" 0 rank-locality detail)"

# The second worker binds itself to the first one's CPUs, on node 0, and allocates there.
make_tp_unit --rank-cpus "'0-1;0-1'"
systemctl restart $UNIT
wait_ready 8092 60 || vm_not_ok "the replica serves"
rank1=$(ps -eo pid=,comm= | awk '$2 == "standin-rank1" { print $1 }')
verify_json $UNIT --no-warmup
flat=$FLAT
detail=$(check_of "$flat" 0 rank-locality detail)
vm_check_eq "rank-locality fails for a worker off its device's node" "$(check_of "$flat" 0 rank-locality ok)" false
vm_check_match "naming the worker, its device and where its memory is" "$detail" \
	"pid ${rank1:-[0-9]+} \(standin-rank1\) drives $GPU, rank 1 on node 1: [0-9]+ of its [0-9]+ anonymous pages on node 1 \(node 0: [0-9]+"
vm_diag "$detail"

systemctl stop $UNIT
"$NUMAPLAN" remove "$UNIT" >/dev/null 2>&1
rm -rf "$UNITS/$UNIT" "$UNITS/$UNIT.d"
systemctl daemon-reload
llama_conf
vm_done

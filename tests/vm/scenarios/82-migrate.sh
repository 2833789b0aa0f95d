#!/bin/bash
# numaplan migrate on a running replica whose anonymous memory and model page cache sit on
# node 0 (it was started there, before any plan): afterwards at least 99% of its pages are on its
# planned node 1, the same processes still running. --dry-run first moves nothing.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=mig.service
write_conf "[replica mig]
unit = $unit
accelerators = 41:00.0
memory = 256M
min-local = 99%"
drop_caches
# Started with node 0's policy and CPUs, as a replica started before numaplan was installed: its
# KV cache, its worker's memory and its model's page cache all land on node 0.
systemd-run --unit=$unit -p NUMAPolicy=bind -p NUMAMask=0 -p CPUAffinity=0-1 \
	"$STANDIN" --listen 127.0.0.1:8095 --model "$MODEL" --kv-mib 48 --workers 1 --worker-mib 8 --threads 2 >/dev/null 2>&1
wait_ready 8095 120 || vm_not_ok "the replica serves"
pids=$(unit_pids $unit)
main=$(systemctl show -P MainPID $unit)
before=$(numa_share 1 - $pids)
vm_diag "started on node 0: $before% of its pages on node 1 (numa_maps of $(wc -w <<<"$pids") processes)"

dry=$("$NUMAPLAN" migrate --dry-run --json $unit)
dflat=$(json_flat <<<"$dry")
would=$(json_get units.0.would_move.pages <<<"$dflat")
if [ "${would:-0}" -ge 8192 ]; then vm_ok "--dry-run says what would move ($would pages)"; else vm_not_ok "--dry-run says what would move" "$dry"; fi
vm_check_eq "--dry-run moves nothing" "$(numa_share 1 - $pids)" "$before"

t0=$EPOCHREALTIME
out=$("$NUMAPLAN" migrate --json $unit)
rc=$?
t1=$EPOCHREALTIME
flat=$(json_flat <<<"$out")
vm_check_eq "migrate exits 0: on plan afterwards" "$rc" 0
vm_check_eq "its JSON says ok" "$(json_get units.0.ok <<<"$flat")" true
vm_check_eq "no restart: the same main process" "$(systemctl show -P MainPID $unit)" "$main"
vm_check_eq "and the same processes" "$(unit_pids $unit | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$pids")"
after=$(numa_share 1 - $pids)
if at_least "$after" 99; then vm_ok "at least 99% of its pages on node 1 now ($after%, numa_maps)"; else
	vm_not_ok "at least 99% of its pages on node 1" "$after%" "$out"; fi
anon=$(numa_share 1 - $main)
file=$(numa_share 1 "$MODEL" $main)
if at_least "$file" 99; then vm_ok "the model's page cache moved ($file% on node 1)"; else vm_not_ok "the model's page cache moved" "$file%"; fi
from0=$(json_get units.0.moved.from.0 <<<"$flat")
to1=$(json_get units.0.moved.to.1 <<<"$flat")
vm_check_eq "pages counted from node 0 and to node 1 alike" "$from0" "$to1"
bytes=$(json_get units.0.moved.bytes <<<"$flat")
secs=$(json_get units.0.moved.seconds <<<"$flat")
vm_check_eq "bytes are pages of 4 KiB" "$bytes" "$((from0 * 4096))"
text=$("$NUMAPLAN" migrate $unit)
vm_check_match "a second migrate has nothing left to move, and says so" "$text" "moved 0 pages .*on node 1: (99\.[0-9]|100\.0)% of [0-9]+ pages before"
failed="$(json_get units.0.moved.failed.pages <<<"$flat") ($(grep -E '^units\.0\.moved\.failed\.by_errno\.' <<<"$flat" | sed 's/.*by_errno\.//' | tr '\t\n' '= '))"
vm_diag "migrate: $before% -> $after% on node 1 (main process $anon%, model $file%); moved $from0 pages ($((bytes >> 20)) MiB) in $secs s ($(awk -v b="$bytes" -v s="$secs" 'BEGIN { if (s > 0) printf "%.2f", b / s / 1e9 }') GB/s), $failed did not move; wall $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"

vm_check_eq "a unit that is not running: exit 1" "$(systemctl stop $unit; "$NUMAPLAN" migrate $unit >/dev/null 2>&1; echo $?)" 1
vm_check_eq "a unit that is not a replica: exit 2" "$("$NUMAPLAN" migrate nosuch.service >/dev/null 2>&1; echo $?)" 2
llama_conf
vm_done

#!/bin/bash
# The model's page cache filled on node 0 before the pinned replica maps it. With model = in the
# configuration, the drop-in's ExecStartPre= moves it onto node 1 before the server starts, and
# verify passes with min-local 99%. Without it, the cache stays on node 0, verify names the file
# and numaplan migrate, and numaplan migrate moves it with the replica running. Each of those
# steps is an entry of the replica's history in the journal (journalctl NUMAPLAN_UNIT=UNIT), with
# its kind's MESSAGE_ID, explained by numaplan.catalog.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

fill_on_node0() {
	systemctl stop $LLAMA
	drop_caches
	numactl --membind=0 --cpunodebind=0 cat "$MODEL" >/dev/null
}

llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
# The server runs as an unprivileged user; the move before it runs as root all the same.
printf '[Service]\nUser=nobody\n' >"$UNITS/$LLAMA.d/10-user.conf"
systemctl daemon-reload
vm_check_match "the drop-in prepares the model before the start" "$(cat "$UNITS/$LLAMA.d/50-numaplan.conf")" \
	"ExecStartPre=-\+\"/usr/local/bin/numaplan\" prepare --nodes 1 (--nics \"[^\"]*\" --nics-env \"[^\"]*\" )?-- \"$MODEL\""
fill_on_node0
dry=$("$NUMAPLAN" prepare --dry-run --nodes 1 -- "$MODEL" 2>&1)
vm_check_match "before the start, the model's cache is on node 0" "$dry" "32.0 MiB cached, 0 of 8192 pages on node 1 already"
free1=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo)
journal_mark
t0=$EPOCHREALTIME
systemctl start $LLAMA
t1=$EPOCHREALTIME
wait_ready 8080 120 || vm_not_ok "the replica serves"
vm_diag "node 1 had $((free1 / 1024)) MiB free before the start"
pid=$(systemctl show -P MainPID $LLAMA)
said=$(unit_said $LLAMA "model page cache:" | grep "model page cache:" | tail -1)
vm_check_eq "the server runs as nobody" "$(stat -c %U /proc/$pid)" nobody
vm_check_match "ExecStartPre= said what it moved (journal)" "$said" "moved 8192 pages \(32.0 MiB\) in [0-9.]+ s, from node 0: 8192 to node 1: 8192"
file1=$(numa_share 1 "$MODEL" "$pid")
if at_least "$file1" 99; then vm_ok "the server maps its model from node 1 ($file1% of the file's pages, numa_maps)"; else
	vm_not_ok "the server maps its model from node 1" "$file1%"; fi
verify_json $LLAMA
flat=$FLAT
vm_check_eq "verify passes with min-local 99%" "$VERIFY_RC" 0 || show_failures "$flat"
vm_diag "model cached on node 0, then started: $(locality "$flat" 0)% of the replica's pages on node 1; start took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s with the move; prepare: ${said#*; }"

rm -f "$UNITS/$LLAMA.d/10-user.conf"
systemctl daemon-reload
# The same start with the cache already in place: what ExecStartPre= costs when nothing moves.
systemctl stop $LLAMA
journal_mark
t0=$EPOCHREALTIME
systemctl start $LLAMA
t1=$EPOCHREALTIME
said=$(unit_said $LLAMA "model page cache:" | grep "model page cache:" | tail -1)
vm_check_match "a start with the cache in place moves nothing" "$said" "8192 of 8192 pages on node 1 already; moved 0 pages"
vm_diag "start with the model in place: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s; prepare: ${said#*; }"

# Another server on node 0 maps the same model and runs: the start leaves its pages alone.
systemctl stop $LLAMA
drop_caches
systemd-run --unit=other.service -p NUMAPolicy=bind -p NUMAMask=0 -p CPUAffinity=0-1 \
	"$STANDIN" --listen 127.0.0.1:8096 --model "$MODEL" >/dev/null 2>&1
wait_ready 8096 120 || vm_not_ok "the other server serves"
journal_mark
systemctl start $LLAMA
said=$(unit_said $LLAMA "mapped by other running" | grep -E "model page cache:|mapped by other running" | tail -2)
vm_check_match "a start leaves the pages another running server maps, and says so" "$said" \
	"8192 of the cached pages are mapped by other running processes"
other=$(numa_share 0 "$MODEL" "$(systemctl show -P MainPID other.service)")
if at_least "$other" 99; then vm_ok "the other server's model stays on its node 0 ($other%)"; else vm_not_ok "the other server's model stays on node 0" "$other%"; fi
systemctl stop other.service $LLAMA

# Without model =: nothing moves the cache before the start, verify says so, migrate fixes it live.
write_conf "$(sed '/^model = /d' "$CONF")"
"$NUMAPLAN" apply >/dev/null 2>&1
fill_on_node0
systemctl start $LLAMA
wait_ready 8080 120 || vm_not_ok "the replica serves"
pid=$(systemctl show -P MainPID $LLAMA)
verify_json $LLAMA
flat=$FLAT
vm_check_eq "without model =, verify exits 1" "$VERIFY_RC" 1
vm_check_eq "memory-locality fails" "$(check_of "$flat" 0 memory-locality ok)" false
vm_check_eq "remote_files names the model" "$(json_get units.0.remote_files.0.path <<<"$flat")" "$MODEL"
vm_check_match "the detail names numaplan migrate" "$(check_of "$flat" 0 memory-locality detail)" \
	"$MODEL has .* off the plan.*numaplan migrate $LLAMA moves it now"
before=$(locality "$flat" 0)
out=$("$NUMAPLAN" migrate --json $LLAMA)
rc=$?
mflat=$(json_flat <<<"$out")
vm_check_eq "numaplan migrate exits 0" "$rc" 0
vm_check_eq "the same process" "$(systemctl show -P MainPID $LLAMA)" "$pid"
moved=$(json_get units.0.moved.from.0 <<<"$mflat")
if [ "${moved:-0}" -ge 8192 ]; then vm_ok "it moved the model's pages from node 0 ($moved)"; else vm_not_ok "it moved the model's pages from node 0" "$moved"; fi
file1=$(numa_share 1 "$MODEL" "$pid")
if at_least "$file1" 99; then vm_ok "the model's pages are on node 1 now ($file1%, numa_maps)"; else vm_not_ok "the model's pages on node 1" "$file1%"; fi
verify_json $LLAMA
vm_check_eq "verify passes after migrate, no restart" "$VERIFY_RC" 0 || show_failures "$FLAT"
vm_diag "without model =: $before% of the replica's pages on node 1 at start; after numaplan migrate $(locality "$FLAT" 0)% ($(json_get units.0.moved.pages <<<"$mflat") pages in $(json_get units.0.moved.seconds <<<"$mflat") s)"
systemctl stop $LLAMA
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1

# The replica's history: KIND OUTCOME per entry, oldest first (MESSAGE_IDs of numaplan.catalog).
history=$(journalctl -b "NUMAPLAN_UNIT=$LLAMA" -o export --output-fields=MESSAGE_ID,NUMAPLAN_OUTCOME,SYSLOG_IDENTIFIER \
	2>/dev/null | awk -F= '
	BEGIN { k["ec2fc912cc4f4a4f9f5293ad0b8ede1b"] = "apply"; k["c5cf8806459a439889c8eafbc8541403"] = "prepare"
		k["a19230ef74904c308de8abb910f9613f"] = "verify"; k["d9ce25374ef4497c9f4c4c90d3b40096"] = "migrate" }
	$1 == "MESSAGE_ID" { id = $2 } $1 == "NUMAPLAN_OUTCOME" { out = $2 } $1 == "SYSLOG_IDENTIFIER" { who = $2 }
	/^$/ { if (id != "") print (id in k ? k[id] : id) "/" out "/" who; id = out = who = "" }' | tr '\n' ' ')
vm_diag "journalctl NUMAPLAN_UNIT=$LLAMA: $history"
vm_check_match "the journal has the replica's history: apply, prepare at each start, verify passing and failing, migrate" \
	"$history" "apply/(created|updated|unchanged)/numaplan .*prepare/ok/numaplan verify/ok/numaplan prepare/ok/numaplan prepare/partial/numaplan apply/updated/numaplan verify/failed/numaplan migrate/ok/numaplan verify/ok/numaplan apply/updated/numaplan $"
entry=$(journalctl -b "NUMAPLAN_UNIT=$LLAMA" MESSAGE_ID=c5cf8806459a439889c8eafbc8541403 -n 1 -o export 2>/dev/null)
vm_check_match "prepare's entry comes from the unit itself, with its numbers" "$(grep -E '^(_SYSTEMD_UNIT|NUMAPLAN_NODES|NUMAPLAN_PAGES)=' <<<"$entry" | sort | tr '\n' ' ')" \
	"^NUMAPLAN_NODES=1 NUMAPLAN_PAGES=8192 _SYSTEMD_UNIT=$LLAMA $"
if [ -f "$EXTRA/numaplan.catalog" ]; then
	mkdir -p /usr/lib/systemd/catalog && cp "$EXTRA/numaplan.catalog" /usr/lib/systemd/catalog/ && journalctl --update-catalog
	vm_check_match "journalctl -x explains verify's entry from numaplan.catalog" \
		"$(journalctl -b -x "NUMAPLAN_UNIT=$LLAMA" MESSAGE_ID=a19230ef74904c308de8abb910f9613f -n 1 2>&1)" \
		"Subject: numaplan verify: $LLAMA ok.*numaplan verify $LLAMA says what is wrong"
else
	vm_skip "journalctl -x explains verify's entry" "numaplan.catalog is not among the extra files"
fi
vm_done

#!/bin/bash
# The fleet side on a real host: the Ansible collection's modules (numaplan.host.apply with systemd
# reloading, numaplan.host.verify) against a running replica, and the Prometheus metrics of a real
# verify: numaplan-verify.service writes them into node_exporter's textfile directory when it
# exists, and only then. The metrics files go to $SHARE/results/*.prom, where the host checks
# them with promtool. Extras: numaplan-host-*.tar.gz (the collection as ansible-galaxy built it;
# empty when the host had no ansible-galaxy), numaplan-verify.service.in.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=$LLAMA
textfile=/var/lib/prometheus/node-exporter
collection=$(ls "$EXTRA"/numaplan-host-*.tar.gz 2>/dev/null | head -n 1)
if ! command -v ansible >/dev/null || [ ! -f "$collection" ]; then
	vm_not_ok "ansible-core in the guest and the collection among the extras" "$(ls "$EXTRA")"
	vm_done
fi
if [ ! -s "$collection" ]; then
	vm_skip "the fleet scenario" "the host could not build the collection (its fleet tier says why)"
	vm_done
fi
# Where ansible-galaxy collection install puts it (the fleet tier on the host runs that; here it
# would cost seconds of emulated Python for the same files).
mkdir -p collections/ansible_collections/numaplan/host
tar -xzf "$collection" -C collections/ansible_collections/numaplan/host
export ANSIBLE_COLLECTIONS_PATH=$PWD/collections ANSIBLE_HOME=$PWD/ansible-home ANSIBLE_LOCAL_TEMP=$PWD/ansible-tmp
export ANSIBLE_NOCOLOR=1 ANSIBLE_DEPRECATION_WARNINGS=0

# module NAME ARGS: runs numaplan.host.NAME on this host; RESULT gets its result flattened
# (json_flat), "failed" included. ansible -o prints "HOST | STATUS => JSON".
module() {
	local t0=$SECONDS
	ansible localhost -o -i localhost, -c local -e ansible_python_interpreter=/usr/bin/python3 \
		-m "numaplan.host.$1" -a "$2" >"$1.out" 2>"$1.err"
	RESULT=$(python3 -c '
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("localhost | ")][0]
status, doc = line[len("localhost | "):].split(" => ", 1)
r = json.loads(doc)
r["failed"] = bool(r.get("failed")) or status.startswith("FAILED")
print(json.dumps(r))' "$1.out" 2>&1 | json_flat --foreign)
	vm_diag "ansible numaplan.host.$1 $2: $((SECONDS - t0)) s"
}

make_model
make_replica_unit "$unit" 8080 "$MODEL"
llama_conf
rm -rf "$UNITS/$unit.d"
systemctl daemon-reload

module apply ""
vm_check_eq "numaplan.host.apply: changed" "$(json_get changed <<<"$RESULT")" true
vm_check_eq "numaplan.host.apply: the unit's drop-in created" "$(json_get units.0.action <<<"$RESULT")" created
vm_check_eq "numaplan.host.apply returns the plan: node 1" "$(json_get plan.replicas.0.nodes.0 <<<"$RESULT")" 1
vm_check_eq "and systemd reloaded (reload defaults to true): NUMAPolicy is bind" \
	"$(systemctl show -P NUMAPolicy "$unit")" bind
vm_check "the unit starts" systemctl start "$unit"
wait_ready 8080 120 || vm_not_ok "the replica answers /health"

module verify "units=$unit warmup=false"
vm_check_eq "numaplan.host.verify: not failed" "$(json_get failed <<<"$RESULT")" false
vm_check_eq "numaplan.host.verify: ok" "$(json_get ok <<<"$RESULT")" true
vm_check_eq "numaplan.host.verify returns verify's document: the unit" "$(json_get verify.units.0.unit <<<"$RESULT")" "$unit"
vm_check_match "with its summary" "$(json_get verify.units.0.summary <<<"$RESULT")" "^pinned as planned"
[ "$(json_get ok <<<"$RESULT")" = true ] || vm_diag "$(cat verify.out verify.err)"

# numaplan-verify.service as installed, with the binary under test.
sed "s|@bindir@|${NUMAPLAN%/*}|g" "$EXTRA/numaplan-verify.service.in" >"$UNITS/numaplan-verify.service"
systemctl daemon-reload
had_textfile=no
[ -d "$textfile" ] && had_textfile=yes
mkdir -p "$textfile"
rm -f "$textfile/numaplan.prom"
vm_check "numaplan-verify.service succeeds on the pinned replica" systemctl start numaplan-verify.service
prom=$textfile/numaplan.prom
if [ -f "$prom" ]; then
	vm_ok "it wrote $prom, node_exporter's textfile directory being there"
	cp "$prom" "$SHARE/results/$SCENARIO.pinned.prom"
else
	vm_not_ok "it wrote $prom" "$(journalctl -u numaplan-verify.service -n 20 --no-pager)"
fi
metric() { awk -v m="$1" '$1 == m { print $2 }' "$2" 2>/dev/null; }
vm_check_eq "metrics: success 1" "$(metric numaplan_verify_success "$prom")" 1
vm_check_eq "metrics: the unit ok" "$(metric "numaplan_verify_unit_ok{unit=\"$unit\"}" "$prom")" 1
vm_check_eq "metrics: its memory-locality check ok" \
	"$(metric "numaplan_verify_check_ok{unit=\"$unit\",check=\"memory-locality\"}" "$prom")" 1
ratio=$(metric "numaplan_verify_local_ratio{unit=\"$unit\"}" "$prom")
if at_least "${ratio:-0}" 0.99; then vm_ok "metrics: local_ratio $ratio, at least min-local 0.99"; else
	vm_not_ok "metrics: local_ratio at least 0.99" "got '$ratio'"; fi
anon=$(metric "numaplan_verify_resident_pages{unit=\"$unit\",node=\"1\",kind=\"anon\"}" "$prom")
if [ "${anon:-0}" -gt 1000 ]; then vm_ok "metrics: $anon anonymous pages on node 1"; else
	vm_not_ok "metrics: anonymous pages on node 1" "got '$anon'"; fi
vm_check_eq "metrics: the page size" "$(metric numaplan_verify_page_size_bytes "$prom")" "$(getconf PAGESIZE)"
vm_check_eq "no temporary left beside it" "$(ls -A "$textfile")" numaplan.prom
ts=$(metric numaplan_verify_last_run_timestamp_seconds "$prom")
now=$(date +%s)
if awk -v t="${ts:-0}" -v n="$now" 'BEGIN { exit !(t > n - 120 && t <= n + 1) }'; then vm_ok "metrics: the run's time is now"; else
	vm_not_ok "metrics: the run's time" "got '$ts', now $now"; fi

# Not pinned: the unit stopped. The module fails with verify's summary; the metrics say why.
systemctl stop "$unit"
module verify "units=$unit warmup=false"
vm_check_eq "numaplan.host.verify fails on a stopped replica" "$(json_get failed <<<"$RESULT")" true
vm_check_match "with numaplan's summary" "$(json_get msg <<<"$RESULT")" "^$unit: NOT pinned as planned: unit-active"
"$NUMAPLAN" verify --no-warmup --metrics "$SHARE/results/$SCENARIO.stopped.prom" "$unit" >/dev/null 2>&1
vm_check_eq "verify --metrics exits 1 on the stopped replica" "$?" 1
vm_check_eq "its metrics: the unit not ok" \
	"$(metric "numaplan_verify_unit_ok{unit=\"$unit\"}" "$SHARE/results/$SCENARIO.stopped.prom")" 0
vm_check_eq "its metrics: unit-active 0" \
	"$(metric "numaplan_verify_check_ok{unit=\"$unit\",check=\"unit-active\"}" "$SHARE/results/$SCENARIO.stopped.prom")" 0

# Without the textfile directory: the service verifies and writes nothing.
rm -rf "$textfile"
[ "$had_textfile" = yes ] || rmdir /var/lib/prometheus 2>/dev/null
systemctl start numaplan-verify.service
vm_check_eq "without the textfile directory numaplan-verify.service still verifies (fails: stopped)" \
	"$(systemctl show -P Result numaplan-verify.service)" exit-code
vm_check_match "and it ran verify" "$(journalctl -u numaplan-verify.service -n 30 --no-pager)" "NOT pinned as planned"
vm_check "and wrote no metrics" test ! -e "$textfile"
[ "$had_textfile" = yes ] && mkdir -p "$textfile"

systemctl reset-failed numaplan-verify.service 2>/dev/null
rm -f "$UNITS/numaplan-verify.service"
systemctl daemon-reload
vm_done

#!/bin/bash
# numaplan.service and numaplan-verify.service as installed, sandboxed: systemd-analyze security's
# exposure of each (docs/design.md's figures), and each still does its job: numaplan.service's apply
# reserves the huge pages, writes the drop-in, removes its boot marker and reloads; numaplan-verify.service
# checks the pinned replica and writes its metrics into a textfile directory another user owns.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

sed "s|@bindir@/numaplan|$NUMAPLAN|" "$EXTRA/numaplan.service.in" >"$UNITS/numaplan.service"
sed "s|@bindir@|${NUMAPLAN%/*}|g" "$EXTRA/numaplan-verify.service.in" >"$UNITS/numaplan-verify.service"
systemctl daemon-reload
for u in numaplan.service:6.5 numaplan-verify.service:4.5; do
	score=$(systemd-analyze security "${u%:*}" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
	vm_diag "figure: systemd-analyze security ${u%:*}: ${score:-?}"
	if [ -n "$score" ] && at_least "${u#*:}" "$score"; then vm_ok "${u%:*}: exposure $score, at most ${u#*:}"; else
		vm_not_ok "${u%:*}: exposure at most ${u#*:}" "${score:-none}"; fi
done

"$NUMAPLAN" remove >/dev/null 2>&1
make_model
make_replica_unit $LLAMA 8080 "$MODEL" --huge-mib 4
llama_conf
printf 'hugepages = 4M\n' >>"$CONF"
vm_check "numaplan.service's apply succeeds in its sandbox" systemctl restart numaplan.service
vm_check_eq "it wrote the drop-in" "$(grep -c '^NUMAMask=1$' "$UNITS/$LLAMA.d/50-numaplan.conf" 2>/dev/null)" 1
vm_check "and left no boot marker" test ! -e /run/numaplan/unplaced
vm_check_eq "and reserved node 1's huge pages" "$(pool_of 1)" 2
[ "$(pool_of 1)" = 2 ] || vm_diag "$(journalctl -b -u numaplan.service -n 20 --no-pager)"

drop_caches
systemctl start $LLAMA
wait_ready 8080 120 || vm_not_ok "the replica serves"
textfile=/var/lib/prometheus/node-exporter
had_textfile=no
[ -d "$textfile" ] && had_textfile=yes
mkdir -p "$textfile"
chown nobody "$textfile"
chmod 0755 "$textfile"
rm -f "$textfile/numaplan.prom"
vm_check "numaplan-verify.service passes the pinned replica in its sandbox" systemctl start numaplan-verify.service
vm_check_eq "it wrote its metrics into a directory nobody owns: success 1" \
	"$(awk '$1 == "numaplan_verify_success" { print $2 }' "$textfile/numaplan.prom" 2>/dev/null)" 1
systemctl is-failed -q numaplan-verify.service && vm_diag "$(journalctl -b -u numaplan-verify.service -n 20 --no-pager)"

systemctl stop $LLAMA numaplan.service
"$NUMAPLAN" remove >/dev/null 2>&1
[ "$had_textfile" = yes ] || rm -rf "$textfile"
rm -f "$UNITS/numaplan.service" "$UNITS/numaplan-verify.service"
make_replica_unit $LLAMA 8080 "$MODEL"
llama_conf
vm_done

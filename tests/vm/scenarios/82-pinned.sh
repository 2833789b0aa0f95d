#!/bin/bash
# Locked and pinned pages. A replica started on node 0 before any plan (numaplan-pinner: 24 MiB
# of anonymous memory, 4 MiB locked with mlock, 4 MiB pinned as an io_uring's fixed buffer, all
# written there), its plan node 1: verify reports the locked pages and the pinned ones on node 0,
# and says that only a restart moves the pinned ones, with no migrate advice. migrate moves all
# the rest, the locked pages too, and counts the pinned pages it could not move. Restarted with
# the plan's drop-in, it pins its buffer after the bind, on node 1: verify passes and migrate
# finds nothing pinned off the plan.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

PINNER=$EXTRA/numaplan-pinner
unit=pin.service
mib=4
pages=$((mib * 256))
if [ ! -x "$PINNER" ]; then
	vm_not_ok "numaplan-pinner is among the extra files" "EXTRA_FILES: $EXTRA_FILES"
	vm_done
fi
write_conf "[replica pin]
unit = $unit
accelerators = 41:00.0
memory = 128M
min-local = 99%"

# held_by PID: until its io_uring buffer is pinned (VmPin), 20 s (vm_seconds) at most.
held_by() {
	local deadline=$((SECONDS + $(vm_seconds 20)))
	while [ $SECONDS -lt $deadline ]; do
		grep -q "^VmPin:[[:space:]]*$((mib * 1024)) kB" "/proc/$1/status" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# Started with node 0's policy and CPUs, as a replica started before numaplan was installed.
systemd-run --unit=$unit -p NUMAPolicy=bind -p NUMAMask=0 -p CPUAffinity=0-1 \
	"$PINNER" --anon-mib 24 --lock-mib $mib --pin-mib $mib >/dev/null 2>&1
main=$(systemctl show -P MainPID $unit)
if ! held_by "$main"; then
	vm_not_ok "numaplan-pinner pins its buffer" "$(journalctl -b -u $unit -o cat 2>&1 | tail -n 5)" \
		"$(grep -E '^Vm(Lck|Pin)' "/proc/$main/status" 2>&1)"
	systemctl stop $unit
	llama_conf
	vm_done
fi

verify_json --no-warmup $unit
flat=$FLAT
vm_check_eq "verify exits 1: its pages are on node 0" "$VERIFY_RC" 1
vm_check_eq "memory-locality fails" "$(check_of "$flat" 0 memory-locality ok)" false
vm_check_eq "VmPin: $pages pinned pages" "$(json_get units.0.pages.pinned.vm_pinned <<<"$flat")" $pages
vm_check_eq "all of them in the buffer its io_uring lists" "$(json_get units.0.pages.pinned.listed <<<"$flat")" $pages
vm_check_eq "its mapping on node 0" "$(json_get units.0.pages.pinned.by_node.0 <<<"$flat")" $pages
vm_check_eq "so all of them off the plan" "$(json_get units.0.pages.pinned.off_plan <<<"$flat")" $pages
vm_check_eq "VmLck: $pages locked pages" "$(json_get units.0.pages.locked.vm_locked <<<"$flat")" $pages
vm_check_eq "its locked mapping on node 0" "$(json_get units.0.pages.locked.by_node.0 <<<"$flat")" $pages
detail=$(check_of "$flat" 0 memory-locality detail)
vm_check_match "the detail says only a restart moves the pinned pages" "$detail" \
	"$pages pinned pages \\([0-9.]+ MiB, buffers registered with io_uring\\) sit off the plan: .*only a restart of $unit moves them"
if [[ $detail == *"numaplan migrate"* ]]; then vm_not_ok "and does not advise migrate" "$detail"; else
	vm_ok "and does not advise migrate"; fi
text=$("$NUMAPLAN" verify --no-warmup --metrics "$SHARE/results/$SCENARIO.prom" $unit 2>/dev/null)
vm_check_match "the text names the pinned pages, their node and the restart" "$text" \
	"  pinned: $pages pages \\(4\\.0 MiB, VmPin\\); $pages in buffers registered with io_uring, whose mappings hold node 0: $pages; $pages off the plan: only a restart moves a pinned page"
vm_check_match "and the locked ones" "$text" "  locked: $pages pages \\(4\\.0 MiB, VmLck\\); its locked mappings' resident pages: node 0: $pages"
prom=$(cat "$SHARE/results/$SCENARIO.prom" 2>/dev/null)
vm_check_match "the metrics too" "$prom" "numaplan_verify_pinned_off_plan_pages\\{unit=\"$unit\"\\} $pages"
vm_check_match "locked pages by node in the metrics" "$prom" "numaplan_verify_locked_resident_pages\\{unit=\"$unit\",node=\"0\"\\} $pages"

out=$("$NUMAPLAN" migrate --json $unit 2>/dev/null)
rc=$?
mflat=$(json_flat <<<"$out")
vm_check_eq "migrate exits 1: the pinned pages keep it under min-local" "$rc" 1
vm_check_eq "it counts the $pages pinned pages it could not move" "$(json_get units.0.moved.failed.pinned_pages <<<"$mflat")" $pages
moved=$(json_get units.0.moved.pages <<<"$mflat")
if [ "${moved:-0}" -ge $((24 * 256 + pages)) ]; then vm_ok "and moved the rest ($moved pages), the locked ones with it"; else
	vm_not_ok "and moved the rest" "moved $moved" "$out"; fi
vm_check_eq "no restart: the same process" "$(systemctl show -P MainPID $unit)" "$main"
words=$("$NUMAPLAN" migrate $unit 2>/dev/null)
vm_check_match "migrate's text says why they stay" "$words" "did not move \\(pinned: $pages\\).*only a restart of their process does"
verify_json --no-warmup $unit
flat=$FLAT
vm_check_eq "afterwards: the locked pages are on node 1" "$(json_get units.0.pages.locked.by_node.1 <<<"$flat")" $pages
vm_check_eq "the pinned ones still on node 0" "$(json_get units.0.pages.pinned.by_node.0 <<<"$flat")" $pages
vm_check_match "verify still says only a restart moves them" "$(check_of "$flat" 0 memory-locality detail)" \
	"$pages pinned pages .* sit off the plan: .*only a restart of $unit moves them"
vm_diag "before the bind: pinned $pages pages on node 0, locked $pages on node 0; migrate moved $moved pages and could not move $(json_get units.0.moved.failed.pinned_pages <<<"$mflat") (pinned); after it: locked on node 1 $(json_get units.0.pages.locked.by_node.1 <<<"$flat"), pinned on node 0 $(json_get units.0.pages.pinned.by_node.0 <<<"$flat"), $(locality "$flat" 0)% of its pages on node 1"

# The restart: the same program as a unit with the plan's drop-in, pinning after the bind.
systemctl stop $unit
cat >"$UNITS/$unit" <<UNIT
[Unit]
Description=numaplan-pinner, a replica that locks and pins memory

[Service]
ExecStart=$PINNER --anon-mib 24 --lock-mib $mib --pin-mib $mib
UNIT
vm_check "apply writes its drop-in" "$NUMAPLAN" apply
systemctl start $unit
main=$(systemctl show -P MainPID $unit)
held_by "$main" || vm_not_ok "restarted, it pins its buffer again"
verify_json --no-warmup $unit
flat=$FLAT
vm_check_eq "pinned after the bind: verify passes" "$VERIFY_RC" 0 || show_failures "$flat"
vm_check_eq "its pinned buffer on node 1" "$(json_get units.0.pages.pinned.by_node.1 <<<"$flat")" $pages
vm_check_eq "none off the plan" "$(json_get units.0.pages.pinned.off_plan <<<"$flat")" 0
vm_check_eq "its locked pages on node 1" "$(json_get units.0.pages.locked.by_node.1 <<<"$flat")" $pages
out=$("$NUMAPLAN" migrate --json $unit 2>/dev/null)
rc=$?
mflat=$(json_flat <<<"$out")
vm_check_eq "migrate exits 0" "$rc" 0
vm_check_eq "with no pinned page left behind" "$(json_get units.0.moved.failed.pinned_pages <<<"$mflat")" 0
vm_diag "after the restart: pinned on node 1 $(json_get units.0.pages.pinned.by_node.1 <<<"$flat"), locked on node 1 $(json_get units.0.pages.locked.by_node.1 <<<"$flat"), $(locality "$flat" 0)% of its pages on node 1"

systemctl stop $unit
rm -f "$UNITS/$unit"
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
vm_check "apply removed its drop-in" test ! -e "$UNITS/$unit.d"
vm_done

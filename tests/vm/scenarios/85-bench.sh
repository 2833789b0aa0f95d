#!/bin/bash
# numaplan bench in place: a stand-in replica on node 1 (its device's) that takes 50 ms over each
# answer (a model's work, which the guest's noise of a few ms does not drown), and 100 ms more
# while its memory sits on another node (--remote-penalty). bench --json finds the remote arm
# (node 0) slower by about that, the interval above 1; without the penalty the ratio is near 1.
# The drop-ins and the unit's state after a bench are those before, 2N starts do not trip a start
# limit of 3, a stopped replica is measured (unpinned) and left stopped, a replica whose
# placement does not hold is refused before any restart, and a SIGTERM in the middle of a round
# leaves the unit running, placed by its own drop-in.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

unit=bench.service
port=8095
model=/srv/models/bench.gguf
dropin=$UNITS/$unit.d/50-numaplan.conf
arm_dropin=/run/systemd/system/$unit.d/90-numaplan-bench.conf
make_model "$model"

bench_unit() { # bench_unit [STANDIN-OPTION...]: the replica's unit, started afresh
	cat >"$UNITS/$unit" <<UNIT
[Unit]
Description=numaplan bench's stand-in replica
StartLimitIntervalSec=600
StartLimitBurst=3

[Service]
ExecStart=$STANDIN --listen 127.0.0.1:$port --model $model --kv-mib 8 --answer-after 0.05 $*
UNIT
	systemctl daemon-reload
	systemctl reset-failed $unit 2>/dev/null
	systemctl restart $unit
	wait_ready $port 60 || vm_not_ok "the stand-in answers on $port"
}
write_conf "[replica b0]
unit = $unit
accelerators = 41:00.0
memory = 128M
model = $model
warmup-url = http://127.0.0.1:$port/completion
warmup-body = {\"prompt\":\"bench\",\"n_predict\":16}
min-local = 90%"
"$NUMAPLAN" apply >/dev/null 2>&1 || vm_not_ok "apply"

# What must be the same after a bench as before it.
state() {
	printf '%s\n' "$(md5sum "$dropin")" "arm drop-in: $([ -e "$arm_dropin" ] && echo there || echo none)"
	systemctl show -p ActiveState -p SubState -p LoadState -p DropInPaths -p EffectiveCPUs \
		-p EffectiveMemoryNodes -p NUMAPolicy -p NUMAMask $unit
}
bench_json() { # bench_json ARGS...: FLAT, RC
	local out
	out=$("$NUMAPLAN" bench --json "$@" 2>/tmp/bench.err)
	RC=$?
	FLAT=$(printf '%s\n' "$out" | json_flat)
}
ms_apart() { # ms_apart FLAT: remote's p50 less planned's
	awk -v a="$(json_get arms.remote.p50_ms <<<"$1")" -v b="$(json_get arms.planned.p50_ms <<<"$1")" \
		'BEGIN { printf "%.1f", a - b }'
}
say_figures() { # say_figures LABEL FLAT: each arm's figures, the ratio, the sentence
	local arm line=
	for arm in planned "$(json_get against <<<"$2")"; do
		line+=$(json_get "arms.$arm.p50_ms" <<<"$2" | awk -v a="$arm" '{ printf "%s p50 %.1f ms, ", a, $1 }')
		line+=$(json_get "arms.$arm.p99_ms" <<<"$2" | awk '{ printf "p99 %.1f ms, ", $1 }')
		line+=$(json_get "arms.$arm.tokens_per_s" <<<"$2" | awk '{ printf "%.0f tokens/s; ", $1 }')
	done
	vm_diag "$1: $line$(json_get seconds <<<"$2" | awk '{ printf "%.1f s", $1 }')"
	vm_diag "$1: $(json_get summary <<<"$2")"
}

# ---- the penalty: remote is 100 ms slower ----
bench_unit --near-node 1 --remote-penalty 0.1
before=$(state)
t0=$SECONDS
bench_json --rounds 2 --requests 5 b0
flat=$FLAT
vm_check_eq "bench exits 0" "$RC" 0 || vm_diag "$(cat /tmp/bench.err)"
vm_check_eq "the remote arm ran on node 0, the one away from the GPU" "$(json_get arms.remote.node <<<"$flat")" 0
vm_check_eq "the remote arm's CPUs are node 0's" "$(json_get arms.remote.cpus <<<"$flat")" 0-1
vm_check_eq "no round discarded" "$(json_count discarded <<<"$flat")" 0
vm_check_eq "each arm: 10 answers, none failed" \
	"$(json_get arms.planned.requests <<<"$flat") $(json_get arms.planned.failed <<<"$flat") $(json_get arms.remote.requests <<<"$flat") $(json_get arms.remote.failed <<<"$flat")" \
	"10 0 10 0"
apart=$(ms_apart "$flat")
if at_least "$apart" 70 && at_least 160 "$apart"; then vm_ok "remote's p50 is about 100 ms above planned's ($apart ms)"; else
	vm_not_ok "remote's p50 is about 100 ms above planned's" "$apart ms" "$flat"; fi
low=$(json_get ratio.p50.low <<<"$flat")
if at_least "$low" 1.01; then vm_ok "the interval excludes 1 (low $low)"; else vm_not_ok "the interval excludes 1" "low $low"; fi
vm_check_match "the sentence says where and how much" "$(json_get summary <<<"$flat")" \
	"^on node 0, away from its GPU, requests take [0-9.]+x the time they take as planned, interval [0-9.]+-[0-9.]+$"
vm_check_match "tokens per second for both arms" \
	"$(json_get arms.planned.tokens_per_s <<<"$flat") $(json_get arms.remote.tokens_per_s <<<"$flat")" '^[0-9.]+ [0-9.]+$'
vm_check_eq "restored" "$(json_get restored <<<"$flat") $(json_get was_running <<<"$flat")" "true true"
vm_check_eq "the drop-ins and the unit's state are those before" "$(state)" "$before"
vm_check_eq "4 starts and a start limit of 3: not tripped" "$(systemctl show -P ActiveState $unit)" active
verify_json $unit
vm_check_eq "verify passes after it" "$VERIFY_RC" 0 || show_failures "$FLAT"
grep -q 'bench b0: 4 rounds' /tmp/bench.err && vm_ok "the time it takes was said first (stderr)" ||
	vm_not_ok "the time it takes was said first" "$(cat /tmp/bench.err)"
vm_diag "its stderr: $(cat /tmp/bench.err)"
say_figures "penalty 100 ms" "$flat"
vm_diag "bench of 2 rounds x 5 requests: $((SECONDS - t0)) s"

# ---- a SIGTERM in the middle of a round ----
"$NUMAPLAN" bench --json --rounds 2 --requests 40 b0 >/tmp/bench-term.json 2>/tmp/bench-term.err &
pid=$!
deadline=$((SECONDS + $(vm_seconds 60)))
until [ -e "$arm_dropin" ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
sleep 1.5 # the remote round under way: restarted, timing
kill -TERM $pid
wait $pid
rc=$?
vm_check_eq "SIGTERM: exit 128+15" "$rc" 143
flat=$(json_flat </tmp/bench-term.json)
vm_check_eq "interrupted, and restored" "$(json_get interrupted_by <<<"$flat") $(json_get restored <<<"$flat")" "SIGTERM true"
vm_check_eq "the drop-ins and the unit's state are those before" "$(state)" "$before"
verify_json $unit
vm_check_eq "verify passes: running, placed by its drop-in" "$VERIFY_RC" 0 || show_failures "$FLAT"

# ---- refused: a running replica whose placement does not hold ----
mkdir -p "$UNITS/$unit.d"
printf '[Service]\nCPUAffinity=0-3\n' >"$UNITS/$unit.d/60-admin.conf"
systemctl daemon-reload
pid_before=$(systemctl show -P MainPID $unit)
"$NUMAPLAN" bench b0 >/dev/null 2>/tmp/bench.err
vm_check_eq "a drop-in after numaplan's that sets CPUAffinity=: refused, exit 1" "$?" 1
vm_check_match "naming the check" "$(cat /tmp/bench.err)" "dropin-in-effect fails"
vm_check_eq "before any restart" "$(systemctl show -P MainPID $unit)" "$pid_before"
rm -f "$UNITS/$unit.d/60-admin.conf"
systemctl daemon-reload

# ---- no penalty: near 1 ----
bench_unit
bench_json --rounds 2 --requests 5 b0
flat=$FLAT
vm_check_eq "without the penalty, bench exits 0" "$RC" 0 || vm_diag "$(cat /tmp/bench.err)"
estimate=$(json_get ratio.p50.estimate <<<"$flat")
if at_least "$estimate" 0.8 && at_least 1.25 "$estimate"; then vm_ok "the ratio is near 1 ($estimate)"; else
	vm_not_ok "the ratio is near 1" "$estimate" "$flat"; fi
say_figures "no penalty" "$flat"
text=$("$NUMAPLAN" bench --rounds 1 --requests 2 b0 2>/dev/null)
vm_check_match "the text: a line an arm" "$(grep -cE '^  (planned|remote) ' <<<"$text")" '^2$'
vm_check_match "the text: the sentence, with the interval's method" "$text" \
	$'\non node 0, away from its GPU, requests take [0-9.]+x the time they take as planned, interval [^\n]*\\(95%, a paired bootstrap over 1 pair of rounds\\)\n'
vm_check_match "the text: restored" "$(tail -n 1 <<<"$text")" "^restored: $unit runs placed by its own drop-in$"
vm_diag "$text"

# ---- stopped, against unpinned ----
systemctl stop $unit
before=$(state)
bench_json --against unpinned --rounds 1 --requests 3 b0
flat=$FLAT
vm_check_eq "a stopped replica, unpinned: exit 0" "$RC" 0 || vm_diag "$(cat /tmp/bench.err)"
vm_check_eq "its unpinned arm had every CPU and node" \
	"$(json_get arms.unpinned.cpus <<<"$flat") $(json_get arms.unpinned.nodes <<<"$flat")" "0-3 0-1"
vm_check_eq "left stopped, as it was" "$(json_get was_running <<<"$flat") $(json_get restored <<<"$flat")" "false true"
vm_check_eq "the drop-ins and the unit's state are those before" "$(state)" "$before"
say_figures "stopped, unpinned" "$flat"

# The stand-in's configuration and drop-in back, for the scenarios that follow.
systemctl stop $unit 2>/dev/null
rm -f "$UNITS/$unit" "$model"
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
rm -rf "$UNITS/$unit.d"
systemctl daemon-reload
vm_done

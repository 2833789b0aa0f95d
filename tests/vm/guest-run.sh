#!/bin/bash
# Runs inside the guest, as root, from the 9p share (/mnt/host), started by the image's
# numaplan-test-runner.service at every boot. run-vm-tests puts it on the share with:
#   current-boot        the number of this boot (1, 2, ...)
#   plan                lines "BOOT PHASE NAME": the scenarios of every boot, in order
#   scenario-timeout    seconds one scenario may run
#   timeout-multiplier  NUMAPLAN_TEST_TIMEOUT_MULTIPLIER, for the scenarios' own waits
#   numaplan, scenarios/NAME.sh, extra/*, scenario-lib.sh
# For each plan line of this boot it runs scenarios/NAME.sh with bash and writes
# results/NAME.PHASE.{out,err,rc,seconds}; results/boot-N.started says the boot got this far.
# Console lines start with "NUMAPLAN-VM:". The scenario contract is in run-vm-tests.
set -u
SHARE=/mnt/host
boot=$(cat "$SHARE/current-boot")
timeout=$(cat "$SHARE/scenario-timeout")
multiplier=$(cat "$SHARE/timeout-multiplier" 2>/dev/null || echo 1)
results=$SHARE/results
mkdir -p "$results"
date -u +%s >"$results/boot-$boot.started"

install -m 0755 "$SHARE/numaplan" /usr/local/bin/numaplan
EXTRA=/usr/local/lib/numaplan-test
rm -rf "$EXTRA"
mkdir -p "$EXTRA"
extra_files=()
for f in "$SHARE"/extra/*; do
	[ -e "$f" ] || continue
	cp -p "$f" "$EXTRA/"
	extra_files+=("$EXTRA/${f##*/}")
done
mkdir -p /var/lib/numaplan-test

now() { echo "${EPOCHREALTIME/[.,]/}"; }
uptime() { local up _; read -r up _ </proc/uptime; echo "${up}"; }
echo "NUMAPLAN-VM: guest-run.sh boot $boot ready at uptime $(uptime) s"

while read -r b phase name; do
	[ "$b" = "$boot" ] || continue
	out=$results/$name.$phase
	echo "NUMAPLAN-VM: scenario $name ($phase) start at uptime $(uptime) s"
	work=$(mktemp -d "/tmp/$name.XXXXXX")
	t0=$(now)
	(
		cd "$work" || exit 1
		exec env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM=dumb \
			NUMAPLAN=/usr/local/bin/numaplan \
			SHARE="$SHARE" \
			EXTRA="$EXTRA" EXTRA_FILES="${extra_files[*]}" \
			SCENARIO="$name" SCENARIO_DIR="$SHARE/scenarios" \
			VM_LIB="$SHARE/scenario-lib.sh" \
			VM_BOOT="$boot" VM_PHASE="$phase" \
			VM_STATE=/var/lib/numaplan-test \
			VM_TARGET=numaplan-test.target \
			NUMAPLAN_TEST_TIMEOUT_MULTIPLIER="$multiplier" \
			timeout -k 10 "$timeout" bash "$SHARE/scenarios/$name.sh"
	) </dev/null >"$out.out" 2>"$out.err"
	rc=$?
	t1=$(now)
	awk -v us=$((t1 - t0)) 'BEGIN { printf "%.1f\n", us / 1e6 }' >"$out.seconds"
	echo "$rc" >"$out.rc"
	sync
	echo "NUMAPLAN-VM: scenario $name ($phase) end rc=$rc $(cat "$out.seconds") s"
done <"$SHARE/plan"
echo "NUMAPLAN-VM: guest-run.sh boot $boot done at uptime $(uptime) s"
exit 0

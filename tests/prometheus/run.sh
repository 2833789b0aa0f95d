#!/bin/bash
# SPDX-License-Identifier: MIT
# The Prometheus side, with Debian's promtool (package prometheus): the example alerting rules
# are valid and pass their unit tests, and what numaplan writes passes promtool check metrics:
# a rich verdict from the formatter (tests/core/metrics-sample.c), and verify --metrics itself on
# a fixture host (no verdict without systemd: the run's own metrics; with one, every unit's),
# written atomically. Usage: run.sh NUMAPLAN METRICS_SAMPLE SOURCE_ROOT FIXTURES_DIR
set -u
numaplan=$1
sample=$2
src=$3
fixtures=$4
. "$src/tests/cli/tap.sh"
command -v promtool >/dev/null || skip_all "promtool is not installed (Debian: apt-get install prometheus)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/numaplan-prometheus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

out=$(promtool check rules "$src/prometheus/numaplan.rules.yml" 2>&1) && ok "promtool check rules: the example rules are valid" ||
	fail "promtool check rules" "$out"
out=$(cd "$src/prometheus" && promtool test rules numaplan.rules.test.yml 2>&1) &&
	ok "promtool test rules: the rules' unit tests pass" || fail "promtool test rules" "$out"

"$sample" >"$scratch/sample.prom"
out=$(promtool check metrics <"$scratch/sample.prom" 2>&1) &&
	ok "promtool check metrics passes on a verdict of three units (pages, a failing check, an escaped name)" ||
	fail "promtool check metrics on the sample verdict" "$out"

host=$fixtures/hosts/dgx-2s-8gpu
printf '[replicas inference]\nunit = inference@%%i.service\nper = accelerator\nmemory = 32G\n' >"$scratch/np.conf"
printf '[numaplan]\nno-such-key = 1\n' >"$scratch/bad.conf"
mkdir -p "$scratch/textfile"
prom=$scratch/textfile/numaplan.prom
verify() { # verify CONFIG: verify --metrics into $prom; sets rc
	"$numaplan" verify --no-warmup --metrics "$prom" -c "$1" --sysfs-root "$host" --unit-dir "$scratch/units" \
		>"$scratch/out" 2>"$scratch/err"
	rc=$?
}
verify "$scratch/np.conf"
case $rc in
1 | 3) ok "verify --metrics exits $rc on a fixture host (1: a verdict, 3: no systemd)" ;;
*) fail "verify --metrics exit status" "rc $rc" "$(cat "$scratch/err")" ;;
esac
out=$(promtool check metrics <"$prom" 2>&1) && ok "promtool check metrics passes on what verify --metrics wrote" ||
	fail "promtool check metrics on verify's file" "$out" "$(cat "$prom" 2>/dev/null)"
if [ "$rc" = 3 ]; then
	grep -qx 'numaplan_verify_success 0' "$prom" && ! grep -q 'unit=' "$prom" &&
		ok "without systemd: success 0 and no unit metrics" || fail "without systemd: success 0" "$(cat "$prom")"
else
	grep -qx 'numaplan_verify_success 1' "$prom" && grep -q '^numaplan_verify_unit_ok{unit="inference@0.service"} 0$' "$prom" &&
		ok "with systemd: success 1, the fixture's units not ok" || fail "with systemd: the units" "$(cat "$prom")"
fi
is "the file is mode 0644, for node_exporter to read" "$(stat -c %a "$prom")" 644
is "and nothing else is left in its directory" "$(ls -A "$scratch/textfile")" numaplan.prom
grep -qx 'numaplan_verify_last_run_timestamp_seconds [0-9]*\.[0-9]*' "$prom" && ok "the run's time is there" ||
	fail "the run's time" "$(cat "$prom")"

exec 3<"$prom" # a scrape in progress holds the old file
inode=$(stat -c %i "$prom")
verify "$scratch/bad.conf"
is "a bad configuration: exit 2" "$rc" 2
grep -qx 'numaplan_verify_success 0' "$prom" && ok "and the file says no verdict" || fail "no verdict" "$(cat "$prom")"
[ "$(stat -c %i "$prom")" != "$inode" ] && grep -q '^numaplan_verify_duration_seconds ' <&3 &&
	ok "the file is replaced by a rename: a reader of the old one reads it whole" ||
	fail "replaced by a rename" "inode $inode, now $(stat -c %i "$prom")"
exec 3<&-

# The host's facts: the untuned fixture host's links, governors and warnings, with or without a
# verdict (without systemd there is none, and the host was read all the same).
host=$fixtures/hosts/untuned-2s-8gpu
verify "$scratch/np.conf"
out=$(promtool check metrics <"$prom" 2>&1) && ok "promtool check metrics passes with the host's facts" ||
	fail "promtool check metrics with the host's facts" "$out" "$(cat "$prom")"
grep -qx 'numaplan_host_pcie_link_width{pci="0000:01:00.0"} 8' "$prom" &&
	grep -qx 'numaplan_host_pcie_link_max_width{pci="0000:01:00.0"} 16' "$prom" &&
	grep -qx 'numaplan_host_pcie_link_speed_gts{pci="0000:41:00.0"} 2.5' "$prom" &&
	ok "the narrowed link's width and maximum, the idle GPU's speed" || fail "the links in the metrics" "$(cat "$prom")"
grep -qx 'numaplan_host_cpufreq_governor_info{governor="schedutil",driver="acpi-cpufreq",cpus="1-15,17-31"} 1' "$prom" &&
	ok "the governor as an info metric" || fail "the governor in the metrics" "$(cat "$prom")"
grep -qx 'numaplan_warnings{code="pcie-link-narrow",severity="warning"} 2' "$prom" &&
	grep -qx 'numaplan_warnings{code="pcie-mrrs-small",severity="warning"} 2' "$prom" &&
	grep -qx 'numaplan_warnings{code="swap-bound-replica",severity="warning"} 1' "$prom" &&
	! grep -q 'code="single-node"' "$prom" &&
	ok "a gauge per warning code in effect (a GPU's link and the adapter's narrowed), config space read for MaxReadReq" || fail "the warnings in the metrics" "$(cat "$prom")"
host=$fixtures/hosts/dgx-2s-8gpu

"$numaplan" verify --no-warmup --metrics "$scratch/nowhere/numaplan.prom" -c "$scratch/np.conf" --sysfs-root "$host" \
	--unit-dir "$scratch/units" >/dev/null 2>"$scratch/err"
rc=$?
is "--metrics into a missing directory: exit 3" "$rc" 3
grep -q "nowhere" "$scratch/err" && [ ! -e "$scratch/nowhere" ] && ok "naming it, and creating nothing" ||
	fail "the missing directory named" "$(cat "$scratch/err")"
done_testing

#!/bin/bash
# What the data path (adapters, interrupts) costs, in one hyperfine run on a replayed root
# (default: the 8-GPU fixture host nics-4n-8gpu, 6 adapters, 4 RDMA devices, 32 interrupts, 8
# replicas with irq-affinity = yes):
# - verify's added cost per replica: tests/bench/irqscan --irqs (the host as verify reads it now,
#   network adapters and every device's interrupts with it, and irq-locality judged for each
#   replica) against irqscan (the host as verify read it before, and its plan), the difference
#   of their own work divided by the replicas;
# - show, which reads and prints them, against lstopo-no-graphics --input of the same root (goal:
#   at most 0.5x, as show.sh), and, with BEFORE=NUMAPLAN, the show of a numaplan from before.
# Own work is a command's time less an empty C program's in the same run (tests/bench/lib.sh).
# Needs: hyperfine hwloc-nox (apt-get install -y hyperfine hwloc-nox).
# Usage: [BEFORE=NUMAPLAN] [RUNS=N] tests/bench/irqs.sh [BUILD [ROOT]]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-build}")
root=$(realpath "${2:-$src/tests/fixtures/hosts/nics-4n-8gpu}")
. "$src/tests/bench/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
empty=$(empty_program "$dir")
printf '[numaplan]\nirq-affinity = yes\n' >"$dir/irq.conf"
chmod 0644 "$dir/irq.conf"
scan="$build/tests/bench/irqscan"
"$scan" --irqs "$root" "$dir/irq.conf"
replicas=$("$scan" "$root" "$dir/irq.conf" | cut -d' ' -f1)
show="$build/src/numaplan show -c /dev/null --sysfs-root $root"
before=()
[ -z "${BEFORE:-}" ] || before=(--command-name "show before" "$(realpath "$BEFORE") show -c /dev/null --sysfs-root $root")
hyperfine -N --style none --warmup 100 --runs "${RUNS:-1000}" --export-json "$dir/run.json" \
	--command-name empty "$empty" --command-name "verify before" "$scan $root $dir/irq.conf" \
	--command-name "verify now" "$scan --irqs $root $dir/irq.conf" --command-name show "$show" \
	--command-name "show --json" "$show --json" "${before[@]}" --command-name lstopo "lstopo-no-graphics --input $root --of console"
names=(empty=empty "verify before=verify before" "verify now=verify now" show=show "show --json=show --json" lstopo=lstopo)
[ -z "${BEFORE:-}" ] || names+=("show before=show before")
python3 "$src/tests/bench/ratios.py" "$dir/run.json" --empty empty "${names[@]}" -- \
	"show<=0.5*lstopo" "own:show<=0.5*lstopo"
python3 - "$dir/run.json" "$replicas" <<'PY'
import json, math, statistics, sys
runs = {r["command"]: r["times"] for r in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
def mean_se(t): return statistics.mean(t), statistics.stdev(t) / math.sqrt(len(t))
(b, eb), (a, ea) = mean_se(runs["verify before"]), mean_se(runs["verify now"])
added, err = a - b, math.hypot(ea, eb)
print("verify, the data path added: %.1f us in all (+- %.1f), %.1f us per replica (%d replicas), %.0f%% of the read and plan"
      % (added * 1e6, err * 1e6, added * 1e6 / n, n, 100 * added / (b - statistics.mean(runs["empty"]))))
PY

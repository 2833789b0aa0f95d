#!/bin/bash
# What the memory kinds cost the plan on the hosts that have many nodes: plan --json of the
# built-in default on the 8-GPU fixture (dgx-2s-8gpu: 2 nodes, 64 CPUs), the GB200-like tray
# (gb200-tray: 2 CPU nodes, 4 GPUs, 32 GPU memory nodes, 144 CPUs) and the big host (16 nodes,
# 1,024 CPUs) twice: with 8 GPUs (big-16n-1024c-8gpu, made here by tests/fixtures/make-hosts.py:
# the 8-GPU fixture's replicas, so that only nodes and CPUs grow) and with 32
# (big-16n-1024c-32gpu: four times the replicas too), each beside lstopo-no-graphics --input of
# the same root, in ROUNDS (5) rounds of hyperfine (lib.sh's timed_rounds). Prints, per host, its
# nodes and CPUs, plan's and lstopo's means and own work (a command's time less an empty C
# program's in the same run, tests/bench/lib.sh), plan over lstopo, and plan over its time on the
# 8-GPU fixture (goal: at most 2x, judged by the median of the rounds), and whether plan's own
# work grows from that host to each other at most linearly: no faster than the larger of the
# growth of the nodes and of the CPUs (lstopo's growth printed beside it).
# Needs: hyperfine hwloc-nox (apt-get install -y hyperfine hwloc-nox).
# Usage: [RUNS=N] [ROUNDS=N] tests/bench/tiers.sh [NUMAPLAN]
set -eu
numaplan=$(realpath "${1:-build/src/numaplan}")
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$src/tests/bench/lib.sh"
empty=$(empty_program "$dir")
python3 "$src/tests/fixtures/make-hosts.py" "$dir" big-16n-1024c-8gpu
hosts=(dgx-2s-8gpu gb200-tray big-16n-1024c-8gpu big-16n-1024c-32gpu)
root_of() { if [ -d "$dir/$1" ]; then echo "$dir/$1"; else echo "$src/tests/fixtures/hosts/$1"; fi; }
args=(--command-name empty "$empty")
for h in "${hosts[@]}"; do
	root=$(root_of "$h")
	args+=(--command-name "plan @$h" "$numaplan plan --json -c /dev/null --sysfs-root $root"
		--command-name "lstopo @$h" "lstopo-no-graphics --input $root --of console")
done
RUNS=${RUNS:-300} timed_rounds "$dir/run.json" --warmup 5 "${args[@]}"
python3 - "$dir/run.json" "$dir" "$src/tests/fixtures/hosts" "${hosts[@]}" <<'PY'
import json, os, statistics, sys
run, made, fixtures, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def root_of(h): return os.path.join(made if os.path.isdir(os.path.join(made, h)) else fixtures, h)
results = json.load(open(run))["results"]
times = {r["command"]: r["times"] for r in results}
rounds = [{r["command"]: statistics.mean(r["rounds"][k]) for r in results} for k in range(len(results[0]["rounds"]))]
empty = statistics.mean(times["empty"])
def mean(c): return statistics.mean(times[c])
def own(c): return mean(c) - empty
def by_round(f):
    """f of each round's means: the median decides, the range is said."""
    v = [f(m) for m in rounds]
    return statistics.median(v), min(v), max(v)
def count(root, what):
    base = os.path.join(root, "sys/devices/system", what)
    prefix = "node" if what == "node" else "cpu"
    return sum(1 for d in os.listdir(base) if d.startswith(prefix) and d[len(prefix):].isdigit())
print("%-22s %5s %5s %10s %10s %10s %10s %8s %8s" % ("host", "nodes", "CPUs", "plan ms", "own ms", "lstopo ms",
                                                      "own ms", "/lstopo", "/8-GPU"))
base = hosts[0]
ok = True
for h in hosts:
    root = root_of(h)
    p, l = "plan @" + h, "lstopo @" + h
    r8 = mean(p) / mean("plan @" + base)
    r8m = by_round(lambda m: m[p] / m["plan @" + base])
    print("%-22s %5d %5d %10.2f %10.2f %10.2f %10.2f %7.2fx %7.2fx" % (
        h, count(root, "node"), count(root, "cpu"), mean(p) * 1e3, own(p) * 1e3, mean(l) * 1e3, own(l) * 1e3,
        mean(p) / mean(l), r8))
    if h != base:
        broot = root_of(base)
        grow_p, grow_l = own(p) / own("plan @" + base), own(l) / own("lstopo @" + base)
        grow_m = by_round(lambda m: (m[p] - m["empty"]) / (m["plan @" + base] - m["empty"]))
        linear = max(count(root, "node") / count(broot, "node"), count(root, "cpu") / count(broot, "cpu"))
        said = "; in %d rounds %.2fx (median; %.2fx to %.2fx)" % ((len(rounds),) + r8m)
        for goal, met in (("plan at most 2x its time on %s: %.2fx%s" % (base, r8, said), r8m[0] <= 2),
                          ("own work grows at most linearly in nodes and CPUs: %.2fx for %.1fx (lstopo's %.2fx)"
                           % (grow_p, linear, grow_l), grow_m[0] <= linear)):
            ok = ok and met
            print("  goal: %s: %s" % (goal, "met" if met else "NOT met"))
print("all goals met" if ok else "some goals not met")
PY

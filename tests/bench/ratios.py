#!/usr/bin/env python3
# Prints a hyperfine run (--export-json) as each command's mean and median with its ratio to each
# peer the goals name, then each goal and whether this run met it.
# Usage: ratios.py RUN.json NAME=COMMAND... -- GOAL...
#   GOAL: NAME<=FACTOR*PEER, a mean at most FACTOR times the peer's (both NAMEs)
import json
import sys

args = sys.argv[2:]
cut = args.index("--") if "--" in args else len(args)
names = dict(a.split("=", 1) for a in args[:cut])
goals = [(g.split("<=")[0], float(g.split("<=")[1].split("*")[0]), g.split("*")[1]) for g in args[cut + 1:]]
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
mean = {name: runs[cmd]["mean"] for name, cmd in names.items()}
peers = sorted({peer for _, _, peer in goals})

for name, cmd in names.items():
    r = runs[cmd]
    ratios = "  ".join("%.2fx %s" % (r["mean"] / mean[p], p) for p in peers if p != name)
    print("%-16s mean %6.2f ms  median %6.2f ms  %s" % (name, r["mean"] * 1e3, r["median"] * 1e3, ratios))
for name, factor, peer in goals:
    ratio = mean[name] / mean[peer]
    print("goal: %s at most %gx %s: %.2fx, %s" % (name, factor, peer, ratio, "met" if ratio <= factor else "NOT met"))

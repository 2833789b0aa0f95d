#!/usr/bin/env python3
# Prints a hyperfine run (--export-json) as each command's mean and median with its ratio to each
# peer the goals name, then each goal and whether this run met it.
#
# Own work: with --empty NAME (a C program that returns at once, linked as the system's cc links
# one, timed in the same run), each command's own work is its mean less NAME's: what it does
# beyond starting a process. Own-work ratios are printed beside the whole-process ones, with the
# standard error of each own work (the two means' errors together).
#
# Usage: ratios.py RUN.json [--median] [--empty NAME] NAME=COMMAND... -- GOAL...
#   RUN.json: hyperfine's, or {"results": [{"command": ..., "times": [seconds...]}...]}
#   --median: ratios of medians, not means (a run on a clock with outliers: an emulator's guest)
#   A run whose results hold "rounds" (lib.sh's timed_rounds) is judged round by round: each
#   goal's figure over its limit in every round, and the median of those decides; the figures
#   printed are those of all the times together.
#   NAME=COMMAND: the command of the run (as hyperfine names it, --command-name) printed as NAME;
#     a NAME that ends in " @HOST" is compared only with peers of the same " @HOST", each peer of
#     the goals on every host the run has it (one run can time two hosts)
#   GOAL: NAME<=FACTOR*PEER          a mean at most FACTOR times the peer's (the whole process)
#         own:NAME<=FACTOR*PEER      an own work at most FACTOR times the peer's
#         growth:A/B<=C/D            A's own work over B's at most C's over D's (how a cost grows
#                                    from one host to another, against how a peer's does)
#         beyond:A/B<=C/D            the same for A's work beyond its system calls: A's own work
#                                    less that of "syscalls of A" (lib.sh's syscall_floor), over
#                                    B's the same, at most C's own work over D's; said with A's
#                                    own work's growth and its system calls' growth beside it
import json
import math
import statistics
import sys


FLOOR = "syscalls of "


def parse_goal(g):
    kind = "whole"
    for k in ("own", "growth", "beyond"):
        if g.startswith(k + ":"):
            kind, g = k, g[len(k) + 1:]
    left, right = g.split("<=", 1)
    if kind in ("growth", "beyond"):
        return kind, tuple(left.split("/", 1)), tuple(right.split("/", 1))
    factor, peer = right.split("*", 1)
    return kind, left, (float(factor), peer)


def host_of(name):
    return name.rsplit(" @", 1)[1] if " @" in name else None


def on_host(name, host):
    """The same command on another host: "lstopo @1024" on 64 is "lstopo @64"."""
    base = name.rsplit(" @", 1)[0] if " @" in name else name
    return base if host is None else "%s @%s" % (base, host)


def judge(goal, mean, own, stat, ratio):
    """A goal's words, its figure as said, and its value and limit (met: value <= limit)."""
    kind, name, rest = goal
    if kind == "whole":
        factor, peer = rest
        what = "%s at most %gx %s" % (name, factor, peer) + (" (%ss)" % stat if stat != "mean" else "")
        value, limit = mean[name] / mean[peer], factor
        return what, "%.2fx" % value, value, limit
    if kind == "own":
        factor, peer = rest
        what = "own work of %s at most %gx %s's" % (name, factor, peer) + (" (%ss)" % stat if stat != "mean" else "")
        value = own(name) / own(peer) if own(peer) > 0 else math.inf
        return what, ratio(own(name), own(peer)), value, factor
    (a, b), (c, d) = name, rest
    grows, peer = own(a) / own(b), own(c) / own(d)
    hosts = "from %s to %s" % (host_of(b) or b, host_of(a) or a)
    # And what it adds, against what the peer adds.
    adds = "+%.2f ms, %s the peer's +%.2f ms" % (
        (own(a) - own(b)) * 1e3, ratio(own(a) - own(b), own(c) - own(d)), (own(c) - own(d)) * 1e3)
    if kind == "beyond":
        beyond = (own(a) - own(FLOOR + a)) / (own(b) - own(FLOOR + b))
        what = "%s's work beyond its system calls grows no faster than %s (own work, %s)" % (
            a.rsplit(" @", 1)[0], c.rsplit(" @", 1)[0], hosts)
        said = "%.2fx against %.2fx (its whole own work %.2fx, %s; its system calls alone %.2fx)" % (
            beyond, peer, grows, adds, own(FLOOR + a) / own(FLOOR + b))
        return what, said, beyond, peer
    what = "%s grows no faster than %s (own work, %s)" % (a.rsplit(" @", 1)[0], c.rsplit(" @", 1)[0], hosts)
    return what, "%.2fx against %.2fx (%s)" % (grows, peer, adds), grows, peer


def main(argv):
    run, args = argv[1], argv[2:]
    empty, stat = None, "mean"
    if args[:1] == ["--median"]:
        stat, args = "median", args[1:]
    if args[:1] == ["--empty"]:
        empty, args = args[1], args[2:]
    cut = args.index("--") if "--" in args else len(args)
    names = dict(a.split("=", 1) for a in args[:cut])
    goals = [parse_goal(g) for g in args[cut + 1:]]
    runs = {r["command"]: r for r in json.load(open(run))["results"]}
    res = {name: runs[cmd] for name, cmd in names.items()}
    for r in res.values():
        t = r["times"]
        r.setdefault("mean", statistics.mean(t))
        r.setdefault("median", statistics.median(t))
        r.setdefault("stddev", statistics.stdev(t) if len(t) > 1 else 0)
    # The figure compared: the mean, or the median; its standard error as the mean's.
    mean = {name: r[stat] for name, r in res.items()}
    se = {name: (r["stddev"] or 0) / math.sqrt(len(r["times"])) for name, r in res.items()}

    def own(name):
        return mean[name] - mean[empty] if empty else None

    def own_se(name):
        return math.hypot(se[name], se[empty])

    def ratio(a, b):
        return "%.2fx" % (a / b) if b > 0 else "n/a"

    peers = []
    for kind, name, rest in goals:
        if kind not in ("growth", "beyond") and rest[1] not in peers:
            peers.append(rest[1])
    width = max(len(n) for n in names)
    if empty:
        print("own work: each %s less that of %s (%.2f ms)" % (stat, empty, mean[empty] * 1e3))
    for name, r in res.items():
        line = "%-*s  mean %7.2f ms  median %7.2f ms" % (width, name, r["mean"] * 1e3, r["median"] * 1e3)
        if empty and name != empty:
            line += "  own %7.2f ± %.2f ms" % (own(name) * 1e3, own_se(name) * 1e3)
        for p in dict.fromkeys(on_host(p, host_of(name)) for p in peers):
            if p == name or p == empty or p not in mean:
                continue
            line += "  %s %s" % (ratio(mean[name], mean[p]), p)
            if empty and name != empty:
                line += " (own %s)" % ratio(own(name), own(p))
        print(line)
    rounds = min((len(r.get("rounds", [])) for r in res.values()), default=0)
    per_round = []
    for k in range(rounds):
        figures = {name: getattr(statistics, stat)(r["rounds"][k]) for name, r in res.items()}
        per_round.append(figures)
    for goal in goals:
        what, said, value, limit = judge(goal, mean, own, stat, ratio)
        ok = limit > 0 and value <= limit
        if per_round:
            q = [v / l if l > 0 else math.inf for v, l in
                 (judge(goal, f, lambda n, f=f: f[n] - f[empty] if empty else None, stat, ratio)[2:] for f in per_round)]
            ok = statistics.median(q) <= 1
            said += "; in %d rounds %.3f of the limit (median; %.3f to %.3f), met in %d" % (
                len(q), statistics.median(q), min(q), max(q), sum(x <= 1 for x in q))
        print("goal: %s: %s, %s" % (what, said, "met" if ok else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

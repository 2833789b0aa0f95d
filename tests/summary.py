#!/usr/bin/env python3
"""Counts TAP test points across meson test logs (testlog*.json) and prints "N passed, N failed".

A "not ok ... # TODO" point is counted apart, as TAP has it. A test whose process failed without
a failing TAP point (a crash, a timeout, a sanitizer abort) counts as one failure, so nothing that
broke can hide behind its passing points."""
import json
import re
import sys

passed = failed = skipped = todo = 0
broken = []
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            out = t.get("stdout") or ""
            ok = len(re.findall(r"^ok \d+", out, re.M))
            # A "not ok ... # TODO" point is a known gap the test names, not a failure (TAP).
            todo_here = len(re.findall(r"^not ok \d+[^\n]*# TODO", out, re.M | re.I))
            todo += todo_here
            not_ok = len(re.findall(r"^not ok \d+", out, re.M)) - todo_here
            skipped += len(re.findall(r"^ok \d+.*# SKIP", out, re.M | re.I))
            if re.search(r"^1\.\.0 # SKIP", out, re.M | re.I):
                skipped += 1
            passed += ok
            failed += not_ok
            if t.get("result") not in ("OK", "SKIP", "EXPECTEDFAIL") and not_ok == 0:
                failed += 1
                broken.append("%s (%s)" % (t.get("name"), t.get("result")))
for b in broken:
    print("# failed without a TAP failure: %s" % b)
if skipped:
    print("# %d skipped" % skipped)
if todo:
    print("# %d todo (not ok # TODO: known, not counted as failed)" % todo)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

#!/usr/bin/python3
"""The tree's layers, as src/meson.build draws them: each folder includes only the folders
below it, with no exception, and no file's includes lead back to itself. TAP. Usage: layers.py SOURCE_ROOT"""
import os
import re
import sys

BELOW = {
    'basic': set(),
    'core': {'basic'},
    'host': {'basic', 'core'},
    'live': {'basic', 'core', 'host'},
    'systemd': {'basic', 'core'},
    'stage': {'basic', 'core', 'host', 'live', 'systemd'},
    'cli': {'basic', 'core', 'host', 'live', 'systemd', 'stage'},
    'generator': {'basic', 'core', 'host', 'live', 'systemd', 'stage'},
    'program': {'basic', 'core', 'host', 'live', 'systemd', 'stage', 'cli', 'generator'},
}


def main():
    src = os.path.join(sys.argv[1], 'src')
    deps = {}
    n = 0
    failed = 0

    def check(cond, desc, diag=''):
        nonlocal n, failed
        n += 1
        failed += not cond
        print('%sok %d - %s' % ('' if cond else 'not ', n, desc))
        for line in diag.splitlines() if not cond else []:
            print('#   ' + line)

    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    check(set(folders) == set(BELOW), 'src/ holds the layer folders and no other', 'found: %s' % folders)
    for folder in folders:
        bad = []
        for f in sorted(os.listdir(os.path.join(src, folder))):
            if not f.endswith(('.c', '.h')):
                continue
            mod = '%s/%s' % (folder, f[:-2])
            for inc in re.findall(r'^#include "([^"]+)\.h"', open(os.path.join(src, folder, f)).read(), re.M):
                deps.setdefault(mod, set()).add(inc)
                layer = inc.split('/')[0]
                if layer != folder and layer not in BELOW.get(folder, set()):
                    bad.append('%s includes %s.h' % (f, inc))
        check(not bad, '%s/ includes only %s' % (folder, ', '.join(sorted(BELOW.get(folder, ()))) or 'itself'),
              '\n'.join(bad))
    # A circle: a module whose includes, followed, lead back to it.
    cycles = []
    state = {}

    def visit(u, path):
        state[u] = 1
        for v in sorted(deps.get(u, ())):
            if v == u:
                continue
            if state.get(v) == 1:
                cycles.append(' -> '.join(path[path.index(v):] + [v]))
            elif not state.get(v):
                visit(v, path + [v])
        state[u] = 2
    for u in sorted(deps):
        if not state.get(u):
            visit(u, [u])
    check(not cycles, 'no include circle', '\n'.join(cycles))
    print('1..%d' % n)
    return 1 if failed else 0


sys.exit(main())

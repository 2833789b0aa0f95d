#!/usr/bin/python3
"""No function in src/ is longer than 80 lines, from its signature's first line to its closing
brace: a longer one does several things, each of which can have a name. A definition is a line
at column 0 that names a function (not a declaration: no ';' at its end) and runs to the next
'}' at column 0. TAP. Usage: function-length.py SOURCE_ROOT"""
import os
import re
import sys

LIMIT = 80


def functions(path):
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    start = None
    for i, line in enumerate(lines):
        if start is None and re.match(r'^[A-Za-z_]', line) and '(' in line and not line.rstrip().endswith(';') \
                and not line.startswith(('typedef', 'struct ', 'enum ', 'union ')) \
                or start is None and re.match(r'^(static |struct |const )', line) and '(' in line \
                and not line.rstrip().endswith(';'):
            start = i
        if start is not None and line == '}':
            name = re.search(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(', lines[start])
            yield (name.group(1) if name else '?', start + 1, i - start + 1)
            start = None


def main():
    src = os.path.join(sys.argv[1], 'src')
    n = 0
    failed = 0
    for d, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(d, f)
            long = ['%s (line %d): %d lines' % fn for fn in functions(path) if fn[2] > LIMIT]
            n += 1
            failed += bool(long)
            rel = os.path.relpath(path, sys.argv[1])
            print('%sok %d - %s: no function over %d lines' % ('not ' if long else '', n, rel, LIMIT))
            for line in long:
                print('#   ' + line)
    print('1..%d' % n)
    return 1 if failed else 0


sys.exit(main())

#!/usr/bin/python3
"""verify's schema from its template and the one table of checks (VERIFY_CHECKS in
src/core/verify-checks.h): @CHECK_NAMES@ becomes the checks' names in the table's order,
@N_CHECKS@ how many there are. Usage: fill-checks.py TEMPLATE VERIFY_CHECKS_H OUTPUT"""
import json
import re
import sys

template, header, output = sys.argv[1:4]
table = open(header).read()
table = table[table.index('#define VERIFY_CHECKS(X)'):]
table = table[:table.index('\n\n')]
names = re.findall(r'X\(\w+, "([a-z-]+)"', table)
if not names:
    sys.exit('fill-checks.py: no checks found in %s' % header)
text = open(template).read().replace('@CHECK_NAMES@', ', '.join('"%s"' % n for n in names))
text = text.replace('@N_CHECKS@', str(len(names)))
json.loads(text)  # a template that no longer parses fails the build, not a user
open(output, 'w').write(text)

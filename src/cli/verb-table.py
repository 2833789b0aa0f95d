#!/usr/bin/python3
"""The table of verbs, made at build time from the verb files: each verb-NAME.c defines
`const struct verb verb_NAME` with a `.rank` (where --help lists it), and this writes the array
verbs[] in rank order. A new verb is its file (and its man page): nothing lists it by hand.
Usage: verb-table.py OUTPUT VERB-FILE..."""
import os
import re
import sys

rows = []
for path in sys.argv[2:]:
    text = open(path).read()
    name = re.search(r'^const struct verb (verb_\w+) = \{', text, re.M)
    rank = re.search(r'^\s*\.rank = (\d+),', text, re.M)
    if not name or not rank:
        sys.exit('%s: no "const struct verb verb_NAME = {" with a .rank' % path)
    rows.append((int(rank.group(1)), name.group(1), os.path.basename(path)))
rows.sort()
ranks = [r for r, _, _ in rows]
if len(set(ranks)) != len(ranks):
    sys.exit('verb-table.py: two verbs share a rank: %s' % rows)
with open(sys.argv[1], 'w') as out:
    out.write('/* Made by verb-table.py from %s: do not edit. */\n#include "cli/verbs.h"\n\n' %
              ', '.join(f for _, _, f in rows))
    out.write(''.join('extern const struct verb %s;\n' % n for _, n, _ in rows))
    out.write('\nconst struct verb *const verbs[] = {\n%s};\n' % ''.join('        &%s,\n' % n for _, n, _ in rows))
    out.write('const size_t n_verbs = %d;\n' % len(rows))

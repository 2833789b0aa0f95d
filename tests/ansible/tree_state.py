#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Print a directory tree as JSON: for every entry its type, mode, size, mtime and, for a file,
its sha256. Two equal listings mean nothing was written, created, removed or touched."""

import hashlib
import json
import os
import stat
import sys


def entry(path):
    st = os.lstat(path)
    e = dict(mode=stat.filemode(st.st_mode), size=st.st_size, mtime_ns=st.st_mtime_ns)
    if stat.S_ISREG(st.st_mode):
        with open(path, 'rb') as f:
            e['sha256'] = hashlib.sha256(f.read()).hexdigest()
    return e


def tree(root):
    if not os.path.lexists(root):
        return {}
    out = {'.': entry(root)}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(top, name)
            out[os.path.relpath(path, root)] = entry(path)
    return out


if __name__ == '__main__':
    print(json.dumps(tree(sys.argv[1]), sort_keys=True))
